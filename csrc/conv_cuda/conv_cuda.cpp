// CUDA kernels of complexext::convolution and convolution_weight_grad,
// written with ATen only (cuDNN runs the real convolutions), so this file
// builds with every torch and runs on any device. The same code is also
// registered as the internal ops _conv_real_layout and
// _conv_weight_grad_real_layout for CPU and CUDA, so the CPU tests check it
// (tests/test_conv_cuda_layout.py). See docs/gpu.md.
//
// The (re, im) axis of view_as_real(x) is one more spatial axis of a real
// convolution, so the input is read where it lies: a complex (B, C, L)
// input is the real (B, C, L, 2) one of a real conv2d (conv3d for a
// complex conv2d). Weight w = wr + i wi, (Cout, Cin/G, K) (transposed:
// (Cin, Cout/G, K)). Methods:
//
//   rows  : doubled output rows, kernel (K, 2) over (re, im):
//             row 2o   = [wr, -wi]  ->  wr*xr - wi*xi = re(y[o])
//             row 2o+1 = [wi,  wr]  ->  wi*xr + wr*xi = im(y[o])
//           real output (B, 2Cout, Lout, 1) = (B, Cout, 2, Lout); one pass
//           interleaves it into y (B, Cout, Lout, 2), adding the bias.
//           Transposed: (re, im) padded by 1, kernels [-wi, wr] and [wr, wi].
//   wide  : kernel (K, 3) over (re, im) zero-padded by 1 on each side:
//             [0, xr, xi, 0] * [wi, wr, -wi] -> (wr*xr - wi*xi, wi*xr + wr*xi)
//           the real output (B, Cout, Lout, 2) IS the complex result (no
//           pass after it), for 3/2 of the products of rows (the pads
//           multiply zeros). Transposed: [-wi, wr, wi], padding 1.
//   gauss : three real convolutions, torch's recipe, for comparison:
//           k1 = conv(xr + xi, wr), k2 = conv(xr, wi - wr),
//           k3 = conv(xi, wr + wi); re = k1 - k3, im = k1 + k2.
//   a real weight: kernel (K, 1), re and im alike, output = y itself.
//
// Precision. complex32 runs as fp16 convolutions, which cuDNN accumulates
// in fp32 (one rounding to fp16), unless the method ends in "32": then the
// real tensors are fp32 copies and the convolution may use TF32 tensor
// cores, which is exact here (an fp16 value has 11 significant bits, as
// TF32), so the bias is added in fp32 before the one rounding (fp16 output
// plus a bias would round twice: 1.4 times the floor). complex64 and
// complex128 compute in their own precision under torch's cuDNN flags
// (torch.backends.cudnn.allow_tf32, as for torch's float32 convolutions).
// Three spatial dims (a real conv4d does not exist) take four real
// convolutions in fp32 (fp64 for complex128).
//
// "auto" takes the method measured fastest on the nearest benchmark shape,
// among those that keep the call at the floor (conv_method.cpp, reading
// conv_method_table.h); COMPLEXEXT_CUDA_CONV (auto, rows, rows32, wide,
// wide32, gauss) overrides it for the CUDA kernel.
#include <ATen/ATen.h>
#include <torch/library.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "conv_method.h"
#include "../args/conv_args.h"

namespace complexext {
namespace {

using List = std::vector<int64_t>;

List with(at::IntArrayRef v, int64_t last) {
  List r(v.begin(), v.end());
  r.push_back(last);
  return r;
}

// fp32 for complex32 and complex64, fp64 for complex128: where biases add.
at::ScalarType sum_type(at::ScalarType t) { return conv::compute_type(t); }

struct Args {
  at::IntArrayRef stride, padding, dilation, output_padding;
  bool transposed;
  int64_t groups;
};

// One real convolution. extra: the input has the (re, im) axis last, a
// spatial axis of stride 1, padding pad_extra; tf32: TF32 allowed (exact
// for fp16 data), the other cuDNN flags as torch sets them.
at::Tensor real_conv(const at::Tensor& x, const at::Tensor& w, const Args& a, bool extra,
                     int64_t pad_extra, bool tf32) {
  const List s = extra ? with(a.stride, 1) : List(a.stride.begin(), a.stride.end());
  const List p = extra ? with(a.padding, pad_extra) : List(a.padding.begin(), a.padding.end());
  const List d = extra ? with(a.dilation, 1) : List(a.dilation.begin(), a.dilation.end());
  const List o = extra ? with(a.output_padding, 0)
                       : List(a.output_padding.begin(), a.output_padding.end());
  if (!tf32) return at::convolution(x, w, std::nullopt, s, p, d, a.transposed, o, a.groups);
  auto& ctx = at::globalContext();
  return at::_convolution(x, w, std::nullopt, s, p, d, a.transposed, o, a.groups,
                          ctx.benchmarkCuDNN(),
                          ctx.deterministicCuDNN() || ctx.deterministicAlgorithms(),
                          ctx.userEnabledCuDNN(), /*allow_tf32=*/true);
}

// The bias as (re, im) pairs in the sum type, shaped (1, Cout, 1..., 2).
at::Tensor bias_pairs(const std::optional<at::Tensor>& bias, at::ScalarType R, int64_t nsp) {
  if (!bias.has_value()) return {};
  const at::Tensor& b = *bias;
  const at::Tensor p = b.is_complex()
                           ? at::view_as_real(b.resolve_conj()).to(R)
                           : at::stack({b.to(R), at::zeros(b.sizes(), b.options().dtype(R))}, -1);
  List shape(nsp + 3, 1);
  shape[1] = b.size(0);
  shape.back() = 2;
  return p.reshape(shape);
}

// y: real (B, Cout, S..., 2) in any layout and float type; out = y + bias,
// one rounding. Returns y itself as the result when nothing is left to do.
at::Tensor finish(at::Tensor out, const at::Tensor& y, const at::Tensor& b2) {
  const auto real = c10::toRealValueType(out.scalar_type());
  if (!b2.defined() && y.scalar_type() == real && y.is_contiguous()) return at::view_as_complex(y);
  at::Tensor o = at::view_as_real(out);
  if (b2.defined()) {
    at::add_out(o, y, b2);
  } else {
    o.copy_(y);
  }
  return out;
}

// wr, wi of a complex weight in type R.
std::pair<at::Tensor, at::Tensor> parts(const at::Tensor& w, at::ScalarType R) {
  const at::Tensor v = at::view_as_real(w.resolve_conj());
  return {v.select(-1, 0).to(R), v.select(-1, 1).to(R)};
}

at::Tensor conv_rows(const at::Tensor& x, const at::Tensor& w, const Args& a, bool tf32,
                     int64_t cout) {
  const auto [wr, wi] = parts(w, x.scalar_type());
  // forward (Cout, 2, Cin/G, K..., 2), transposed (Cin, Cout/G, 2, K..., 2):
  // the two rows of output o are 2o (re) and 2o + 1 (im), also per group
  const at::Tensor W = a.transposed
                           ? at::stack({at::stack({-wi, wr}, -1), at::stack({wr, wi}, -1)}, 2)
                           : at::stack({at::stack({wr, -wi}, -1), at::stack({wi, wr}, -1)}, 1);
  List ws = {a.transposed ? w.size(0) : 2 * w.size(0), a.transposed ? 2 * w.size(1) : w.size(1)};
  for (int64_t i = 2; i < w.dim(); ++i) ws.push_back(w.size(i));
  ws.push_back(2);
  const at::Tensor y = real_conv(x, W.reshape(ws), a, true, a.transposed ? 1 : 0, tf32);
  // (B, 2Cout, S..., 1) -> (B, Cout, 2, S...) -> (B, Cout, S..., 2)
  List v = {y.size(0), cout, 2};
  for (int64_t i = 2; i < y.dim() - 1; ++i) v.push_back(y.size(i));
  return y.reshape(v).movedim(2, -1);
}

at::Tensor conv_wide(const at::Tensor& x, const at::Tensor& w, const Args& a, bool tf32) {
  const auto [wr, wi] = parts(w, x.scalar_type());
  const at::Tensor W = a.transposed ? at::stack({-wi, wr, wi}, -1) : at::stack({wi, wr, -wi}, -1);
  return real_conv(x, W, a, true, 1, tf32);
}

void conv_gauss(at::Tensor o, const at::Tensor& x, const at::Tensor& w, const Args& a) {
  const at::Tensor xr = x.select(-1, 0), xi = x.select(-1, 1);
  const auto [wr, wi] = parts(w, x.scalar_type());
  const at::Tensor k1 = real_conv(xr + xi, wr, a, false, 0, false);
  const at::Tensor k2 = real_conv(xr, wi - wr, a, false, 0, false);
  const at::Tensor k3 = real_conv(xi, wr + wi, a, false, 0, false);
  at::Tensor re = o.select(-1, 0), im = o.select(-1, 1);
  at::sub_out(re, k1, k3);
  at::add_out(im, k1, k2);
}

// Three spatial dims: re = xr*wr - xi*wi, im = xr*wi + xi*wr, each a real
// convolution in the sum type (fp32 sums: one rounding for complex32).
at::Tensor conv_3d(at::Tensor out, const at::Tensor& x, const at::Tensor& w, const Args& a,
                   const at::Tensor& b2) {
  const auto R = sum_type(out.scalar_type());
  const bool tf32 = out.scalar_type() == at::kComplexHalf;
  const at::Tensor xv = x.to(R), xr = xv.select(-1, 0), xi = xv.select(-1, 1);
  at::Tensor re, im;
  if (w.is_complex()) {
    const auto [wr, wi] = parts(w, R);
    re = real_conv(xr, wr, a, false, 0, tf32) - real_conv(xi, wi, a, false, 0, tf32);
    im = real_conv(xr, wi, a, false, 0, tf32) + real_conv(xi, wr, a, false, 0, tf32);
  } else {
    re = real_conv(xr, w.to(R), a, false, 0, tf32);
    im = real_conv(xi, w.to(R), a, false, 0, tf32);
  }
  return finish(out, at::stack({re, im}, -1), b2);
}

std::string chosen(std::string method, const at::Tensor& x, const at::Tensor& w,
                   const std::optional<at::Tensor>& b, bool transposed, int64_t groups) {
  if (method == "auto") return conv::auto_method(x, w, b.has_value(), transposed, groups);
  TORCH_CHECK(method == "rows" || method == "rows32" || method == "wide" || method == "wide32" ||
                  method == "gauss",
              "convolution: unknown method '", method, "' (expected auto, rows, rows32, wide, "
              "wide32 or gauss)");
  return method;
}

// The weight gradient with three spatial dims: four real weight gradients
// in the sum type, re = xr.gr + xi.gi, im = xr.gi - xi.gr.
at::Tensor grad_3d(const at::Tensor& X, const at::Tensor& Gv, at::IntArrayRef weight_size,
                   bool real_weight, const Args& a, at::ScalarType in_type,
                   at::ScalarType out_type) {
  const auto R = sum_type(in_type);
  const at::Tensor xv = X.to(R), gv = Gv.to(R);
  const at::Tensor w = at::empty(weight_size, xv.options());
  auto wg = [&](const at::Tensor& g, const at::Tensor& x) {
    return std::get<1>(at::convolution_backward(g, x, w, std::nullopt, a.stride, a.padding,
                                                a.dilation, a.transposed, a.output_padding,
                                                a.groups, {false, true, false}));
  };
  const at::Tensor xr = xv.select(-1, 0), xi = xv.select(-1, 1);
  const at::Tensor gr = gv.select(-1, 0), gi = gv.select(-1, 1);
  const at::Tensor re = wg(gr, xr) + wg(gi, xi);
  if (real_weight) return re.to(out_type);
  return at::view_as_complex(at::stack({re, wg(gi, xr) - wg(gr, xi)}, -1)).to(out_type);
}

}  // namespace

at::Tensor layout_convolution(const at::Tensor& input, const at::Tensor& weight,
                              const std::optional<at::Tensor>& bias, at::IntArrayRef stride,
                              at::IntArrayRef padding, at::IntArrayRef dilation, bool transposed,
                              at::IntArrayRef output_padding, int64_t groups,
                              c10::string_view method_arg) {
  const auto shape = conv::output_shape("convolution", input, weight, bias, stride, padding,
                                        dilation, transposed, output_padding, groups);
  const std::string method =
      chosen(std::string(method_arg), input, weight, bias, transposed, groups);
  at::Tensor out = at::empty(shape, input.options());
  if (out.numel() == 0) return out;
  const int64_t nsp = input.dim() - 2;
  const at::Tensor b2 = bias_pairs(bias, sum_type(input.scalar_type()), nsp);
  if (input.size(1) == 0) {  // no input channels: the bias alone
    at::Tensor o = at::view_as_real(out);
    o.zero_();
    if (b2.defined()) o.add_(b2);
    return out;
  }
  const Args a{stride, padding, dilation, output_padding, transposed, groups};
  at::Tensor x = at::view_as_real(input.resolve_conj());  // (B, C, S..., 2), no copy
  if (nsp == 3) return conv_3d(out, x, weight, a, b2);
  const bool f32 = input.scalar_type() == at::kComplexHalf && method.back() == '2';
  if (f32) x = x.to(at::kFloat);
  const auto R = x.scalar_type();
  if (!weight.is_complex())
    return finish(out, real_conv(x, weight.to(R).unsqueeze(-1), a, true, 0, f32), b2);
  if (method == "gauss") {
    conv_gauss(at::view_as_real(out), x, weight, a);
    if (b2.defined()) at::view_as_real(out).add_(b2);
    return out;
  }
  if (method.rfind("wide", 0) == 0) return finish(out, conv_wide(x, weight, a, f32), b2);
  return finish(out, conv_rows(x, weight, a, f32, shape[1]), b2);
}

// The weight gradient sum conj(x) * g at each tap (conv_grad.cpp) in the
// same layout: with the kernel (K, 1) over (re, im), aten's real weight
// gradient of grad_output g is sum xr*gr + xi*gi = re, and of -i g =
// (gi, -gr) it is sum xr*gi - xi*gr = im. So one real weight gradient of
// [g, -i g] (per group: the output channels of g, then those of -i g)
// gives both, each one sum (fp32 in cuDNN) and one rounding. A real weight
// takes the first half only.
at::Tensor layout_weight_grad(const at::Tensor& grad_output, const at::Tensor& input,
                              at::IntArrayRef weight_size, bool real_weight,
                              at::IntArrayRef stride, at::IntArrayRef padding,
                              at::IntArrayRef dilation, bool transposed,
                              at::IntArrayRef output_padding, int64_t groups) {
  const auto opts = conv::check_weight_grad("convolution_weight_grad", grad_output, input,
                                            weight_size, real_weight, stride, padding, dilation,
                                            transposed, output_padding, groups);
  const auto wtype = opts.dtype().toScalarType();
  if (input.numel() == 0 || grad_output.numel() == 0) return at::zeros(weight_size, opts);
  const Args a{stride, padding, dilation, output_padding, transposed, groups};
  const at::Tensor X = at::view_as_real(input.resolve_conj());
  const at::Tensor Gv = at::view_as_real(grad_output.resolve_conj());
  if (input.dim() == 5)
    return grad_3d(X, Gv, weight_size, real_weight, a, input.scalar_type(), wtype);
  const int64_t G = groups, cout = grad_output.size(1);
  at::Tensor Gs = Gv;
  List ws(weight_size.begin(), weight_size.end());
  if (!real_weight) {
    const at::Tensor Gm = at::stack({Gv.select(-1, 1), -Gv.select(-1, 0)}, -1);  // -i g
    List grouped = {Gv.size(0), G, cout / G};
    for (int64_t i = 2; i < Gv.dim(); ++i) grouped.push_back(Gv.size(i));
    List stacked(Gv.sizes().begin(), Gv.sizes().end());
    stacked[1] *= 2;
    Gs = at::stack({Gv.reshape(grouped), Gm.reshape(grouped)}, 2).reshape(stacked);
    ws[transposed ? 1 : 0] *= 2;
  }
  ws.push_back(1);
  const at::Tensor dV = std::get<1>(at::convolution_backward(
      Gs, X, at::empty(ws, X.options()), std::nullopt, with(stride, 1), with(padding, 0),
      with(dilation, 1), transposed, with(output_padding, 0), G, {false, true, false}))
                            .squeeze(-1);
  if (real_weight) return dV.contiguous();
  // rows (forward: per group; transposed: per input channel) as (2, n)
  List blocks = transposed ? List{weight_size[0], 2, weight_size[1]}
                           : List{G, 2, weight_size[0] / G, weight_size[1]};
  blocks.insert(blocks.end(), weight_size.begin() + 2, weight_size.end());
  const at::Tensor A = dV.reshape(blocks);
  List full(weight_size.begin(), weight_size.end());
  full.push_back(2);
  return at::view_as_complex(at::stack({A.select(1, 0), A.select(1, 1)}, -1).reshape(full));
}

namespace {

std::string cuda_method() {
  const char* env = std::getenv("COMPLEXEXT_CUDA_CONV");
  return env != nullptr && *env != '\0' ? env : "auto";
}

// The method the CUDA kernel runs for a call; with a table (its text, as
// conv_method_table.h holds it), the one "auto" takes from that table.
std::string cuda_method_for(const at::Tensor& input, const at::Tensor& weight,
                            const std::optional<at::Tensor>& bias, at::IntArrayRef stride,
                            at::IntArrayRef padding, at::IntArrayRef dilation, bool transposed,
                            at::IntArrayRef output_padding, int64_t groups,
                            std::optional<c10::string_view> table) {
  conv::output_shape("convolution", input, weight, bias, stride, padding, dilation, transposed,
                     output_padding, groups);
  if (table.has_value())
    return conv::auto_method(input, weight, bias.has_value(), transposed, groups,
                             std::string(*table));
  return chosen(cuda_method(), input, weight, bias, transposed, groups);
}

at::Tensor cuda_convolution(const at::Tensor& input, const at::Tensor& weight,
                            const std::optional<at::Tensor>& bias, at::IntArrayRef stride,
                            at::IntArrayRef padding, at::IntArrayRef dilation, bool transposed,
                            at::IntArrayRef output_padding, int64_t groups) {
  return layout_convolution(input, weight, bias, stride, padding, dilation, transposed,
                            output_padding, groups, cuda_method());
}

}  // namespace

// The schemas of the internal ops below are in ops.cpp.
TORCH_LIBRARY_IMPL(complexext, CPU, m) {
  m.impl("_conv_real_layout", &layout_convolution);
  m.impl("_conv_weight_grad_real_layout", &layout_weight_grad);
  m.impl("_conv_cuda_method", &cuda_method_for);
}

TORCH_LIBRARY_IMPL(complexext, CUDA, m) {
  m.impl("convolution", &cuda_convolution);
  m.impl("convolution_weight_grad", &layout_weight_grad);
  m.impl("_conv_real_layout", &layout_convolution);
  m.impl("_conv_weight_grad_real_layout", &layout_weight_grad);
  m.impl("_conv_cuda_method", &cuda_method_for);
}

}  // namespace complexext
