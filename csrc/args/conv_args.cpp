// Argument checks of the convolution ops (conv_args.h).
#include "conv_args.h"

namespace complexext {
namespace conv {

namespace {

void check_list(const char* op, const char* what, at::IntArrayRef v, int64_t n, int64_t min) {
  TORCH_CHECK((int64_t)v.size() == n, op, ": ", what, " must have ", n,
              " values (one per spatial dim), got ", v.size());
  for (int64_t e : v) TORCH_CHECK(e >= min, op, ": ", what, " values must be >= ", min,
                                  ", got ", v);
}

}  // namespace

std::vector<int64_t> output_shape(const char* op, const at::Tensor& x, const at::Tensor& w,
                                  const std::optional<at::Tensor>& bias, at::IntArrayRef stride,
                                  at::IntArrayRef padding, at::IntArrayRef dilation,
                                  bool transposed, at::IntArrayRef output_padding, int64_t G) {
  TORCH_CHECK(x.is_complex(), op, ": expected a complex input, got ", x.scalar_type());
  const auto real = c10::toRealValueType(x.scalar_type());
  TORCH_CHECK(w.scalar_type() == x.scalar_type() || w.scalar_type() == real,
              op, ": expected a ", x.scalar_type(), " or ", real, " weight for a ",
              x.scalar_type(), " input, got ", w.scalar_type());
  TORCH_CHECK(x.dim() >= 3 && x.dim() <= 5, op, ": expected a (B, C, 1 to 3 spatial dims) "
              "input, got ", x.dim(), " dims");
  TORCH_CHECK(w.dim() == x.dim(), op, ": expected a ", x.dim(), "-d weight, got ",
              w.dim(), " dims");
  TORCH_CHECK(w.device() == x.device(), op, ": input and weight on different devices");
  const int64_t nsp = x.dim() - 2;
  check_list(op, "stride", stride, nsp, 1);
  check_list(op, "padding", padding, nsp, 0);
  check_list(op, "dilation", dilation, nsp, 1);
  check_list(op, "output_padding", output_padding, nsp, 0);
  TORCH_CHECK(G >= 1, op, ": groups must be >= 1, got ", G);
  const int64_t cin = transposed ? w.size(0) : w.size(1) * G;
  const int64_t cout = transposed ? w.size(1) * G : w.size(0);
  TORCH_CHECK(w.size(0) % G == 0, op, ": weight.size(0) = ", w.size(0),
              " is not divisible by groups = ", G);
  TORCH_CHECK(x.size(1) == cin, op, ": expected an input with ", cin, " channels, got ",
              x.size(1));
  if (bias.has_value()) {
    const at::Tensor& b = *bias;
    TORCH_CHECK(b.scalar_type() == x.scalar_type() || b.scalar_type() == real,
                op, ": expected a ", x.scalar_type(), " or ", real, " bias, got ",
                b.scalar_type());
    TORCH_CHECK(b.dim() == 1 && b.size(0) == cout, op, ": expected a bias of shape (",
                cout, "), got ", b.sizes());
    TORCH_CHECK(b.device() == x.device(), op, ": input and bias on different devices");
  }
  for (int64_t i = 0; i < nsp; ++i) {
    TORCH_CHECK(w.size(i + 2) >= 1, op, ": kernel sizes must be >= 1, got a weight of shape ",
                w.sizes());
    TORCH_CHECK(x.size(0) == 0 || x.size(1) == 0 || x.size(i + 2) >= 1, op,
                ": spatial sizes of a non-empty input must be >= 1, got input shape ",
                x.sizes());
  }
  std::vector<int64_t> shape = {x.size(0), cout};
  for (int64_t i = 0; i < nsp; ++i) {
    const int64_t span = dilation[i] * (w.size(i + 2) - 1) + 1;
    int64_t n;
    if (transposed) {
      TORCH_CHECK(output_padding[i] < stride[i] || output_padding[i] < dilation[i],
                  op, ": output_padding must be smaller than stride or dilation");
      n = (x.size(i + 2) - 1) * stride[i] - 2 * padding[i] + span + output_padding[i];
    } else {
      TORCH_CHECK(output_padding[i] == 0, op, ": output_padding needs transposed=True");
      const int64_t padded = x.size(i + 2) + 2 * padding[i];
      TORCH_CHECK(padded >= span, op, ": the kernel (", span, " with dilation) is larger "
                  "than the padded input (", padded, ") along spatial dim ", i);
      n = (padded - span) / stride[i] + 1;
    }
    TORCH_CHECK(n >= 1, op, ": output size ", n, " along spatial dim ", i,
                " is not positive");
    shape.push_back(n);
  }
  return shape;
}

}  // namespace conv
}  // namespace complexext
