// CPU kernel of complexext::convolution_weight_grad: the gradient of
// convolution(input, weight) with respect to the weight for an incoming
// gradient g (PyTorch's convention, the conjugate Wirtinger derivative):
//
//   gw[o, i, k] = sum over b, t of conj(x[b, i, t*stride + k*dilation - pad]) * g[b, o, t]
//
// (transposed: gw[i, o, k] with the roles of x and g swapped). It runs as
// aten's real weight gradient (oneDNN for fp32) on the forward's doubled
// layout (conv_ops.cpp). The real gradient of [[wr, -wi], [wi, wr]] has
// blocks A_rr = sum g_re x_re, A_ri = sum g_re x_im, A_ir = sum g_im x_re,
// A_ii = sum g_im x_im (rows: output re/im; columns: input re/im), so
//
//   gw = (A_rr + A_ii) + i (A_ir - A_ri)
//
// Transposed weights are indexed (input, output): gw = (A_rr + A_ii) +
// i (A_ri - A_ir). A real weight gets Re(gw): re and im as a batch of 2B,
// one real gradient. All sums in the compute type; complex32 rounds once.
#include <ATen/ATen.h>
#include <torch/library.h>

#include "conv_common.h"
#include "conv_pack.h"

namespace complexext {
namespace {

at::Tensor complex_conv_weight_grad(const at::Tensor& grad_output, const at::Tensor& input,
                                    at::IntArrayRef weight_size, bool real_weight,
                                    at::IntArrayRef stride, at::IntArrayRef padding,
                                    at::IntArrayRef dilation, bool transposed,
                                    at::IntArrayRef output_padding, int64_t groups) {
  const auto opts = conv::check_weight_grad("convolution_weight_grad", grad_output, input,
                                            weight_size, real_weight, stride, padding, dilation,
                                            transposed, output_padding, groups);
  const auto wtype = opts.dtype().toScalarType();
  if (input.numel() == 0 || grad_output.numel() == 0) return at::zeros(weight_size, opts);
  if (input.dim() == 3) {  // as 2-d with a height of 1
    std::vector<int64_t> ws = {weight_size[0], weight_size[1], 1, weight_size[2]};
    return complex_conv_weight_grad(grad_output.unsqueeze(2), input.unsqueeze(2), ws,
                                    real_weight, conv::lift(stride, 1), conv::lift(padding, 0),
                                    conv::lift(dilation, 1), transposed,
                                    conv::lift(output_padding, 0), groups)
        .squeeze(2);
  }
  const at::ScalarType R = conv::compute_type(input.scalar_type());
  const bool cl = conv::channels_last(R);
  const at::Tensor x = input.resolve_conj().contiguous();
  const at::Tensor g = grad_output.resolve_conj().contiguous();
  const int64_t B = x.size(0), G = groups;
  const at::Tensor xs = pack_split(x, SplitLayout{B, x.size(1), G, real_weight}, R, cl);
  const at::Tensor gs = pack_split(g, SplitLayout{B, g.size(1), G, real_weight}, R, cl);
  std::vector<int64_t> ws(weight_size.begin(), weight_size.end());
  if (!real_weight) ws[0] *= 2, ws[1] *= 2;
  at::Tensor w = at::empty(ws, x.options().dtype(R));  // sizes only: no input gradient asked
  if (cl) w = w.contiguous(conv::channels_last_format(x.dim()));
  const at::Tensor a = std::get<1>(at::convolution_backward(
      gs, xs, w, std::nullopt, stride, padding, dilation, transposed, output_padding, groups,
      {false, true, false}));
  if (real_weight) return a.to(wtype).contiguous();
  // a: (G * 2 * w0/G, 2 * w1, k...) as (G, 2, w0/G, 2, w1, k...)
  std::vector<int64_t> blocks = {G, 2, weight_size[0] / G, 2, weight_size[1]};
  blocks.insert(blocks.end(), weight_size.begin() + 2, weight_size.end());
  const at::Tensor A = a.reshape(blocks);
  auto block = [&](int64_t r, int64_t c) { return A.select(1, r).select(2, c); };
  const at::Tensor re = block(0, 0) + block(1, 1);
  const at::Tensor im = transposed ? block(0, 1) - block(1, 0) : block(1, 0) - block(0, 1);
  return at::complex(re, im).reshape(weight_size).to(input.scalar_type()).contiguous();
}

}  // namespace

TORCH_LIBRARY_IMPL(complexext, CPU, m) {
  m.impl("convolution_weight_grad", &complex_conv_weight_grad);
}

}  // namespace complexext
