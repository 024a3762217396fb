// complexext::bmm on CUDA. complex32: the real embedding
//   [ar -ai]   [br]   [cr]
//   [ai  ar] x [bi] = [ci]      (B, 2M, 2K) x (B, 2K, N) -> (B, 2M, N)
// as ONE fp16 GEMM on the tensor cores with fp32 accumulation and an fp32
// result (aten::bmm.dtype, cuBLAS), rounded once to complex32: four real
// products' worth of work, no fp16 intermediate. complex64 and complex128:
// torch's complex GEMM (cuBLAS cgemm/zgemm).
#include <ATen/ATen.h>
#include <torch/library.h>

#include "../args/matmul_args.h"

namespace complexext {
namespace {

at::Tensor complex_bmm_cuda(const at::Tensor& a, const at::Tensor& b) {
  matmul::check_bmm("bmm", a, b);
  if (a.scalar_type() != at::kComplexHalf) return at::bmm(a, b);
  const int64_t M = a.size(1);
  const at::Tensor ra = at::view_as_real(a.resolve_conj());  // (B, M, K, 2) fp16
  const at::Tensor rb = at::view_as_real(b.resolve_conj());
  const at::Tensor ar = ra.select(3, 0), ai = ra.select(3, 1);
  const at::Tensor top = at::cat({ar, ai.neg()}, 2), bottom = at::cat({ai, ar}, 2);
  const at::Tensor A = at::cat({top, bottom}, 1);                         // (B, 2M, 2K)
  const at::Tensor Bm = at::cat({rb.select(3, 0), rb.select(3, 1)}, 1);  // (B, 2K, N)
  const at::Tensor C = at::bmm(A, Bm, at::kFloat);                        // (B, 2M, N) fp32
  return at::complex(C.narrow(1, 0, M), C.narrow(1, M, M)).to(at::kComplexHalf);
}

}  // namespace

TORCH_LIBRARY_IMPL(complexext, CUDA, m) { m.impl("bmm", &complex_bmm_cuda); }

}  // namespace complexext
