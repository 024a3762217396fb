// CPU kernel of complexext::convolution, shaped like aten::convolution.
//
// A complex convolution is computed as ONE real convolution in the compute
// type (fp32 for complex32 and complex64, fp64 for complex128) by
// at::convolution (oneDNN for fp32):
//
//   complex weight: per group, input channels [re(Cg), im(Cg)] and the
//     weight [[wr, -wi], [wi, wr]] (rows: output re, output im), so
//       out_re = wr*xr - wi*xi,  out_im = wi*xr + wr*xi
//     with all four products summed in the compute type. Transposed
//     weights are (Cin, Cout/G, k...), indexed (input, output), so the
//     blocks are [[wr, wi], [-wi, wr]].
//   real weight: re and im as a batch of 2B, out = (w*xr, w*xi).
//
// Products of fp16 values are exact in fp32 and sums accumulate in fp32, so
// a complex32 result has one rounding (to fp16 at the end) plus fp32
// accumulation error: the rounding floor. Layout changes in conv_pack.h;
// the real tensors are channels-last, where oneDNN is fastest.
#include <ATen/ATen.h>
#include <torch/library.h>

#include <optional>

#include "conv_pack.h"

namespace complexext {
namespace {

at::ScalarType compute_type(at::ScalarType t) {
  return t == at::kComplexDouble ? at::kDouble : at::kFloat;
}

void check_list(const char* what, at::IntArrayRef v, int64_t n, int64_t min) {
  TORCH_CHECK((int64_t)v.size() == n, "convolution: ", what, " must have ", n,
              " values (one per spatial dim), got ", v.size());
  for (int64_t e : v) TORCH_CHECK(e >= min, "convolution: ", what, " values must be >= ", min,
                                  ", got ", v);
}

// The output shape, after the argument checks.
std::vector<int64_t> output_shape(const at::Tensor& x, const at::Tensor& w,
                                  const std::optional<at::Tensor>& bias, at::IntArrayRef stride,
                                  at::IntArrayRef padding, at::IntArrayRef dilation,
                                  bool transposed, at::IntArrayRef output_padding, int64_t G) {
  TORCH_CHECK(x.is_complex(), "convolution: expected a complex input, got ", x.scalar_type());
  const auto real = c10::toRealValueType(x.scalar_type());
  TORCH_CHECK(w.scalar_type() == x.scalar_type() || w.scalar_type() == real,
              "convolution: expected a ", x.scalar_type(), " or ", real, " weight for a ",
              x.scalar_type(), " input, got ", w.scalar_type());
  TORCH_CHECK(x.dim() >= 3 && x.dim() <= 5, "convolution: expected a (B, C, 1 to 3 spatial dims) "
              "input, got ", x.dim(), " dims");
  TORCH_CHECK(w.dim() == x.dim(), "convolution: expected a ", x.dim(), "-d weight, got ",
              w.dim(), " dims");
  TORCH_CHECK(w.device() == x.device(), "convolution: input and weight on different devices");
  const int64_t nsp = x.dim() - 2;
  check_list("stride", stride, nsp, 1);
  check_list("padding", padding, nsp, 0);
  check_list("dilation", dilation, nsp, 1);
  check_list("output_padding", output_padding, nsp, 0);
  TORCH_CHECK(G >= 1, "convolution: groups must be >= 1, got ", G);
  const int64_t cin = transposed ? w.size(0) : w.size(1) * G;
  const int64_t cout = transposed ? w.size(1) * G : w.size(0);
  TORCH_CHECK(w.size(0) % G == 0, "convolution: weight.size(0) = ", w.size(0),
              " is not divisible by groups = ", G);
  TORCH_CHECK(x.size(1) == cin, "convolution: expected an input with ", cin, " channels, got ",
              x.size(1));
  if (bias.has_value()) {
    const at::Tensor& b = *bias;
    TORCH_CHECK(b.scalar_type() == x.scalar_type() || b.scalar_type() == real,
                "convolution: expected a ", x.scalar_type(), " or ", real, " bias, got ",
                b.scalar_type());
    TORCH_CHECK(b.dim() == 1 && b.size(0) == cout, "convolution: expected a bias of shape (",
                cout, "), got ", b.sizes());
    TORCH_CHECK(b.device() == x.device(), "convolution: input and bias on different devices");
  }
  std::vector<int64_t> shape = {x.size(0), cout};
  for (int64_t i = 0; i < nsp; ++i) {
    const int64_t span = dilation[i] * (w.size(i + 2) - 1) + 1;
    int64_t n;
    if (transposed) {
      TORCH_CHECK(output_padding[i] < stride[i] || output_padding[i] < dilation[i],
                  "convolution: output_padding must be smaller than stride or dilation");
      n = (x.size(i + 2) - 1) * stride[i] - 2 * padding[i] + span + output_padding[i];
    } else {
      TORCH_CHECK(output_padding[i] == 0, "convolution: output_padding needs transposed=True");
      const int64_t padded = x.size(i + 2) + 2 * padding[i];
      TORCH_CHECK(padded >= span, "convolution: the kernel (", span, " with dilation) is larger "
                  "than the padded input (", padded, ") along spatial dim ", i);
      n = (padded - span) / stride[i] + 1;
    }
    TORCH_CHECK(n >= 1, "convolution: output size ", n, " along spatial dim ", i,
                " is not positive");
    shape.push_back(n);
  }
  return shape;
}

// [[wr, -wi], [wi, wr]] per group (transposed: [[wr, wi], [-wi, wr]]).
at::Tensor doubled_weight(const at::Tensor& w, int64_t G, bool transposed, at::ScalarType R) {
  const at::Tensor wv = at::view_as_real(w.resolve_conj());
  std::vector<int64_t> grouped = {G, w.size(0) / G, w.size(1)};
  std::vector<int64_t> doubled = {2 * w.size(0), 2 * w.size(1)};
  for (int64_t i = 2; i < w.dim(); ++i) {
    grouped.push_back(w.size(i));
    doubled.push_back(w.size(i));
  }
  const at::Tensor wr = wv.select(-1, 0).to(R).reshape(grouped);
  const at::Tensor wi = wv.select(-1, 1).to(R).reshape(grouped);
  const at::Tensor top = at::cat({wr, transposed ? wi : -wi}, 2);
  const at::Tensor bottom = at::cat({transposed ? -wi : wi, wr}, 2);
  return at::cat({top, bottom}, 1).reshape(doubled);
}

// (bias_re, bias_im) in the compute type; undefined when there is no bias.
std::pair<at::Tensor, at::Tensor> split_bias(const std::optional<at::Tensor>& bias,
                                             at::ScalarType R) {
  if (!bias.has_value()) return {};
  const at::Tensor& b = *bias;
  if (!b.is_complex()) return {b.to(R).contiguous(), at::zeros_like(b, b.options().dtype(R))};
  const at::Tensor bv = at::view_as_real(b.resolve_conj());
  return {bv.select(-1, 0).to(R).contiguous(), bv.select(-1, 1).to(R).contiguous()};
}

at::Tensor complex_convolution(const at::Tensor& input, const at::Tensor& weight,
                               const std::optional<at::Tensor>& bias, at::IntArrayRef stride,
                               at::IntArrayRef padding, at::IntArrayRef dilation,
                               bool transposed, at::IntArrayRef output_padding, int64_t groups) {
  const auto shape = output_shape(input, weight, bias, stride, padding, dilation, transposed,
                                  output_padding, groups);
  at::Tensor out = at::empty(shape, input.options());
  if (out.numel() == 0) return out;
  if (input.size(1) == 0) {  // no input channels: the bias alone (oneDNN refuses empty channels)
    out.zero_();
    if (bias.has_value()) {
      std::vector<int64_t> shape(out.dim(), 1);
      shape[1] = -1;
      out.add_(bias->to(out.scalar_type()).view(shape));
    }
    return out;
  }
  if (input.dim() == 3) {
    // 1-d as 2-d with a height of 1: oneDNN's channels-last path needs 4-d.
    auto one = [](at::IntArrayRef v, int64_t first) {
      return std::vector<int64_t>{first, v[0]};
    };
    at::Tensor y = complex_convolution(input.unsqueeze(2), weight.unsqueeze(2), bias,
                                       one(stride, 1), one(padding, 0), one(dilation, 1),
                                       transposed, one(output_padding, 0), groups);
    return y.squeeze(2);
  }
  const at::ScalarType R = compute_type(input.scalar_type());
  // oneDNN (fp32) runs fastest channels-last; the fp64 fallback planar.
  const bool channels_last = R == at::kFloat && input.dim() <= 5;
  const auto fmt = input.dim() == 5 ? at::MemoryFormat::ChannelsLast3d
                                    : at::MemoryFormat::ChannelsLast;
  const bool cw = weight.is_complex();
  const at::Tensor x = input.resolve_conj().contiguous();
  const int64_t B = x.size(0), C = x.size(1), cout = shape[1];
  const at::Tensor xs = pack_split(x, SplitLayout{B, C, groups, !cw}, R, channels_last);
  at::Tensor w = cw ? doubled_weight(weight, groups, transposed, R) : weight.to(R);
  w = channels_last ? w.contiguous(fmt) : w.contiguous();
  const at::Tensor y = at::convolution(xs, w, std::nullopt, stride, padding, dilation, transposed,
                                       output_padding, groups);
  const auto b = split_bias(bias, R);
  unpack_split(y, out, SplitLayout{B, cout, groups, !cw}, b.first, b.second);
  return out;
}

}  // namespace

TORCH_LIBRARY_IMPL(complexext, CPU, m) { m.impl("convolution", &complex_convolution); }

}  // namespace complexext
