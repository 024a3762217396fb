// The checks of complexext::bmm, made by every backend's kernel (the
// Python front end, complexext.matmul/bmm/einsum, checks first in its own
// words).
#pragma once
#include <ATen/ATen.h>

namespace complexext {
namespace matmul {

// a (B, M, K) and b (B, K, N), complex, of one dtype, on one device.
inline void check_bmm(const char* op, const at::Tensor& a, const at::Tensor& b) {
  TORCH_CHECK_TYPE(a.is_complex() && a.scalar_type() == b.scalar_type(), op,
                   ": expected two complex tensors of one dtype, got ", a.scalar_type(),
                   " and ", b.scalar_type());
  TORCH_CHECK_VALUE(a.dim() == 3 && b.dim() == 3, op,
                    ": expected 3-d tensors (batch, rows, columns), got ", a.dim(), " and ",
                    b.dim(), " dims");
  TORCH_CHECK_VALUE(a.size(0) == b.size(0) && a.size(2) == b.size(1), op, ": shapes ",
                    a.sizes(), " and ", b.sizes(),
                    " cannot be multiplied (the batch sizes and the inner sizes must agree)");
  TORCH_CHECK_VALUE(a.device() == b.device(), op, ": expected tensors on one device, got ",
                    a.device(), " and ", b.device());
}

}  // namespace matmul
}  // namespace complexext
