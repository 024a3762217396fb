// CPU kernels of fft_c2c, fft_r2c and fft_c2r: the multi-axis driver
// (driver/fft_axes.h, shared with the GPU) over the CPU's one-axis
// transforms (axis.h).
#include <ATen/ATen.h>
#include <torch/library.h>

#include <cmath>

#include "../args/fft_args.h"
#include "../driver/fft_axes.h"
#include "axis.h"

namespace complexext {
namespace {

cx_axis_job c2c_job(int64_t n, bool inverse, double scale) {
  cx_axis_job J{};
  J.kind = CX_C2C;
  J.n = J.in_len = J.out_len = n;
  J.conj_in = J.conj_out = inverse;
  J.scale = scale;
  return J;
}

// The CPU's one-axis transforms, for the multi-axis driver (driver/fft_axes.h).
struct CpuAxes {
  at::Tensor empty(at::IntArrayRef shape, const at::TensorOptions& o) {
    return new_output(shape, o);
  }
  void c2c(const at::Tensor& src, const at::Tensor& dst, int64_t d, bool inverse, double scale) {
    run_axis(c2c_job(src.size(d), inverse, scale), src, dst, d);
  }
  void r2c(const at::Tensor& src, const at::Tensor& dst, int64_t d, int64_t out_len,
           double scale) {
    cx_axis_job J{};
    J.kind = CX_R2C;
    J.n = J.in_len = src.size(d);
    J.out_len = out_len;
    J.scale = scale;
    run_axis(J, src, dst, d);
  }
  void c2r(const at::Tensor& src, const at::Tensor& dst, int64_t d, int64_t n, double scale) {
    cx_axis_job J{};
    J.kind = CX_C2R;
    J.n = J.out_len = n;
    J.in_len = n / 2 + 1;
    J.scale = scale;
    run_axis(J, src, dst, d);
  }
};

at::Tensor fft_c2c(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                   bool forward) {
  CpuAxes ax;
  return driver::fft_c2c(ax, self, dim, normalization, forward);
}

at::Tensor fft_r2c(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                   bool onesided) {
  CpuAxes ax;
  return driver::fft_r2c(ax, self, dim, normalization, onesided);
}

at::Tensor fft_c2r(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                   int64_t last_dim_size) {
  CpuAxes ax;
  return driver::fft_c2r(ax, self, dim, normalization, last_dim_size);
}

// The out= forms: the last axis writes `out` itself (no copy).
at::Tensor& fft_c2c_out(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                        bool forward, at::Tensor& out) {
  CpuAxes ax;
  driver::fft_c2c(ax, self, dim, normalization, forward, &out);
  return out;
}

at::Tensor& fft_r2c_out(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                        bool onesided, at::Tensor& out) {
  CpuAxes ax;
  driver::fft_r2c(ax, self, dim, normalization, onesided, &out);
  return out;
}

at::Tensor& fft_c2r_out(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                        int64_t last_dim_size, at::Tensor& out) {
  CpuAxes ax;
  driver::fft_c2r(ax, self, dim, normalization, last_dim_size, &out);
  return out;
}

}  // namespace

TORCH_LIBRARY_IMPL(complexext, CPU, m) {
  m.impl("fft_c2c", &fft_c2c);
  m.impl("fft_r2c", &fft_r2c);
  m.impl("fft_c2r", &fft_c2r);
  m.impl("fft_c2c_out", &fft_c2c_out);
  m.impl("fft_r2c_out", &fft_r2c_out);
  m.impl("fft_c2r_out", &fft_c2r_out);
}

}  // namespace complexext
