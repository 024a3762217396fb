// Layout changes around the real convolution that computes a complex one.
//
// A complex tensor (B, C, S...) is stored interleaved: re, im, re, im...
// The real convolution wants split planes in the compute type (fp32 for
// complex32 and complex64, fp64 for complex128). pack_split writes each
// (b, c) row of S values as two real rows, unpack_split does the reverse
// (adding the bias in the compute type before the one rounding), each in a
// single pass over the data:
//
//   for b, c:  dst[re_row(b, c), :] = x[b, c, :].re
//              dst[im_row(b, c), :] = x[b, c, :].im
//
// Two row layouts (SplitRows):
//   channel split (complex weight):  (B, G, 2, C/G, S...): per group, the
//     real parts of its channels, then their imaginary parts;
//   batch fold (real weight):        (2, B, C, S...): all real parts, then
//     all imaginary parts, as a batch of 2B.
#pragma once
#include <ATen/ATen.h>

namespace complexext {

struct SplitRows {
  int64_t B, C, G;
  bool fold_batch;
  int64_t re_row(int64_t b, int64_t c) const {
    if (fold_batch) return b * C + c;
    const int64_t Cg = C / G;
    return b * 2 * C + (c / Cg) * 2 * Cg + c % Cg;
  }
  int64_t im_row(int64_t b, int64_t c) const {
    return fold_batch ? (B + b) * C + c : re_row(b, c) + C / G;
  }
  int64_t rows() const { return 2 * B * C; }
};

// x: complex, contiguous, (B, C, S...). Returns the split planes, a
// contiguous real tensor of the compute type with rows() rows of S values.
at::Tensor pack_split(const at::Tensor& x, const SplitRows& L, at::ScalarType compute);

// Writes the split planes src (rows() rows of S values, compute type) into
// out (complex, contiguous, (B, C, S...)). bias_re / bias_im: undefined, or
// C values of the compute type added to the real / imaginary parts.
void unpack_split(const at::Tensor& src, const at::Tensor& out, const SplitRows& L,
                  const at::Tensor& bias_re, const at::Tensor& bias_im);

}  // namespace complexext
