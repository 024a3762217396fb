// fft_c2c, fft_r2c, fft_c2r, stft and istft over an executor E (see
// fft_driver.h), with the CPU kernels' semantics: the FFTs through the
// multi-axis driver the CPU kernels use too (driver/fft_axes.h), the STFT's
// as csrc/cpu/stft_ops.cpp.
//
// istft also needs from E:
//   void envelope(const S* w, n_fft, hop, T, double* env, count)
//   void ola(const S* frames, const double* env, void* y, out_type, B, T, n_fft,
//            hop, start, length, comps)
//   bool capturing()      the current stream is being captured (CUDA graphs)
#pragma once
#include <ATen/ATen.h>

#include "../args/fft_args.h"
#include "../driver/fft_axes.h"
#include "fft_driver.h"

namespace complexext {
namespace gpu {

// The GPU's one-axis transforms over executor E, for the multi-axis driver
// (driver/fft_axes.h, shared with the CPU kernels).
template <class S, class E>
struct GpuAxes {
  E& ex;
  at::Tensor empty(at::IntArrayRef shape, const at::TensorOptions& o) {
    return at::empty(shape, o);
  }
  void c2c(const at::Tensor& src, const at::Tensor& dst, int64_t d, bool inverse, double scale) {
    run_axis<S>(ex, c2c_job<S>(src.size(d), inverse, scale), src, dst, d);
  }
  void r2c(const at::Tensor& src, const at::Tensor& dst, int64_t d, int64_t out_len,
           double scale) {
    cx_block_job<S> J{};
    J.kind = CX_JOB_R2C;
    J.n = src.size(d);
    J.out_len = out_len;
    J.scale = (S)scale;
    run_axis<S>(ex, J, src, dst, d);
  }
  void c2r(const at::Tensor& src, const at::Tensor& dst, int64_t d, int64_t n, double scale) {
    cx_block_job<S> J{};
    J.kind = CX_JOB_C2R;
    J.n = J.out_len = n;
    J.scale = (S)scale;
    run_axis<S>(ex, J, src, dst, d);
  }
};

template <class S, class E>
at::Tensor fft_c2c(E& ex, const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                   bool forward) {
  GpuAxes<S, E> ax{ex};
  return driver::fft_c2c(ax, self, dim, normalization, forward);
}

template <class S, class E>
at::Tensor fft_r2c(E& ex, const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                   bool onesided) {
  GpuAxes<S, E> ax{ex};
  return driver::fft_r2c(ax, self, dim, normalization, onesided);
}

template <class S, class E>
at::Tensor fft_c2r(E& ex, const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                   int64_t last_dim_size) {
  GpuAxes<S, E> ax{ex};
  return driver::fft_c2r(ax, self, dim, normalization, last_dim_size);
}

}  // namespace gpu
}  // namespace complexext
