// Layout changes around the real convolution that computes a complex one.
//
// A complex tensor (B, C, S...) is stored interleaved: re, im, re, im...
// The real convolution wants split re and im values in the compute type
// (fp32 for complex32 and complex64, fp64 for complex128), channels last
// for oneDNN. pack_split writes them, unpack_split does the reverse (adding
// the bias in the compute type before the one rounding), each in a single
// pass over the data:
//
//   for b, c, s:  real[re_batch(b), re_chan(c), s] = x[b, c, s].re
//                 real[im_batch(b), im_chan(c), s] = x[b, c, s].im
//
// Two mappings (SplitLayout):
//   channel split (complex weight): B batches of 2C channels, per group
//     the real parts of its C/G channels, then their imaginary parts;
//   batch fold (real weight): 2B batches of C channels, all real parts
//     (batches 0..B-1), then all imaginary parts.
// The real tensor is channels-last (c' stride 1; the conversion is a tiled
// transpose) or planar (s stride 1; row by row). Any other layout of the
// convolution's output is made planar first.
#pragma once
#include <ATen/ATen.h>

namespace complexext {

struct SplitLayout {
  int64_t B, C, G;
  bool fold_batch;
  int64_t batches() const { return fold_batch ? 2 * B : B; }
  int64_t channels() const { return fold_batch ? C : 2 * C; }
  int64_t re_batch(int64_t b) const { return b; }
  int64_t im_batch(int64_t b) const { return fold_batch ? B + b : b; }
  int64_t re_chan(int64_t c) const {
    const int64_t Cg = C / G;
    return fold_batch ? c : (c / Cg) * 2 * Cg + c % Cg;
  }
  int64_t im_chan(int64_t c) const { return fold_batch ? c : re_chan(c) + C / G; }
};

// x: complex, contiguous, (B, C, S...). Returns the real tensor of shape
// (batches(), channels(), S...) in the compute type, channels-last
// (memory order b', S..., c') when channels_last, else contiguous.
at::Tensor pack_split(const at::Tensor& x, const SplitLayout& L, at::ScalarType compute,
                      bool channels_last);

// Writes the real tensor y (batches(), channels(), S...; compute type; any
// strides) into out (complex, contiguous, (B, C, S...)). bias_re / bias_im:
// undefined, or C contiguous values of the compute type added to the real /
// imaginary parts.
void unpack_split(const at::Tensor& y, const at::Tensor& out, const SplitLayout& L,
                  const at::Tensor& bias_re, const at::Tensor& bias_im);

}  // namespace complexext
