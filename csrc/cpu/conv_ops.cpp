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

#include "conv_common.h"
#include "conv_pack.h"
#include "output_pool.h"

namespace complexext {
namespace {

using conv::compute_type;
using conv::lift;

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
  const auto shape = conv::output_shape("convolution", input, weight, bias, stride, padding,
                                        dilation, transposed, output_padding, groups);
  at::Tensor out = new_output(shape, input.options());
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
  if (input.dim() == 3) {  // as 2-d with a height of 1
    return complex_convolution(input.unsqueeze(2), weight.unsqueeze(2), bias, lift(stride, 1),
                               lift(padding, 0), lift(dilation, 1), transposed,
                               lift(output_padding, 0), groups)
        .squeeze(2);
  }
  const at::ScalarType R = compute_type(input.scalar_type());
  const bool channels_last = conv::channels_last(R);
  const auto fmt = conv::channels_last_format(input.dim());
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
