// complexext::bmm on the CPU: a batched complex matrix product with fp32
// accumulation for complex32 (fp64 for complex128) and one rounding. The
// fp16 values are read exactly into fp32 and the product is the complex64
// GEMM of the BLAS torch links (MKL's cgemm, batched), whose accumulation is
// fp32; the result is rounded once to complex32. The conversions move
// O(MK + KN + MN) values against the product's O(MNK) work, so the cost is
// that of the complex64 product to within them.
#include <ATen/ATen.h>
#include <torch/library.h>

#include "../args/matmul_args.h"

namespace complexext {
namespace {

at::Tensor complex_bmm_cpu(const at::Tensor& a, const at::Tensor& b) {
  matmul::check_bmm("bmm", a, b);
  if (a.scalar_type() != at::kComplexHalf) return at::bmm(a, b);
  return at::bmm(a.to(at::kComplexFloat), b.to(at::kComplexFloat)).to(at::kComplexHalf);
}

}  // namespace

TORCH_LIBRARY_IMPL(complexext, CPU, m) { m.impl("bmm", &complex_bmm_cpu); }

}  // namespace complexext
