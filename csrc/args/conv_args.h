// The convolution ops' argument checks, made by every backend's kernel (CPU:
// cpu/conv_ops.cpp, conv_grad.cpp; CUDA: conv_cuda/conv_cuda.cpp); messages
// start with the op's name. The Python fake kernels make the same checks
// (complexext/_ops/conv_args.py).
#pragma once
#include <ATen/ATen.h>

#include <optional>
#include <vector>

namespace complexext {
namespace conv {

// The compute type of a complex dtype's convolution, on every backend: fp32
// for complex32 and complex64, fp64 for complex128.
inline at::ScalarType compute_type(at::ScalarType t) {
  return t == at::kComplexDouble ? at::kDouble : at::kFloat;
}

// The output shape of convolution(x, w, bias, ...) after checking every
// argument; messages start with op.
std::vector<int64_t> output_shape(const char* op, const at::Tensor& x, const at::Tensor& w,
                                  const std::optional<at::Tensor>& bias, at::IntArrayRef stride,
                                  at::IntArrayRef padding, at::IntArrayRef dilation,
                                  bool transposed, at::IntArrayRef output_padding, int64_t G);

// The checks of convolution_weight_grad (every argument, and grad_output's
// dtype and shape against the forward's output); returns the options of
// the weight gradient (complex, or real for a real weight).
inline at::TensorOptions check_weight_grad(const char* op, const at::Tensor& grad_output,
                                           const at::Tensor& input, at::IntArrayRef weight_size,
                                           bool real_weight, at::IntArrayRef stride,
                                           at::IntArrayRef padding, at::IntArrayRef dilation,
                                           bool transposed, at::IntArrayRef output_padding,
                                           int64_t groups) {
  TORCH_CHECK(input.is_complex(), op, ": expected a complex input, got ", input.scalar_type());
  const auto wtype = real_weight ? c10::toRealValueType(input.scalar_type())
                                 : input.scalar_type();
  const auto opts = input.options().dtype(wtype);
  const auto shape = output_shape(op, input, at::empty(weight_size, opts), std::nullopt, stride,
                                  padding, dilation, transposed, output_padding, groups);
  TORCH_CHECK(grad_output.scalar_type() == input.scalar_type(), op, ": expected a ",
              input.scalar_type(), " grad_output, got ", grad_output.scalar_type());
  TORCH_CHECK(grad_output.sizes() == at::IntArrayRef(shape), op, ": expected a grad_output of "
              "shape ", at::IntArrayRef(shape), ", got ", grad_output.sizes());
  return opts;
}

}  // namespace conv
}  // namespace complexext
