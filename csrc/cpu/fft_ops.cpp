// CPU kernels of fft_c2c, fft_r2c and fft_c2r: the multi-axis driver
// (driver/fft_axes.h, shared with the GPU) over the CPU's one-axis
// transforms (axis.h).
#include <ATen/ATen.h>
#include <torch/library.h>

#include <algorithm>
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

// A transform over several dims keeps its values between axes in a buffer
// of the compute type the size of the output (driver/fft_axes.h; complex32
// transforms and every c2r have one). Over a batch (dim 0 not transformed)
// whose buffer would pass kChunkBytes, the CPU runs dim 0 a chunk at a
// time instead: one chunk's buffer, reused (the output cache hands the
// same block back), is still in cache when the next axis reads it, where
// the whole batch's went out to memory and came back.
constexpr int64_t kChunkBytes = int64_t(2) << 20;

// Rows of dim 0 a chunk takes, or 0 where the call runs whole. buffer: the
// shape the buffer would have (the output's for c2c and r2c, the input's
// for c2r); dims wrapped.
int64_t chunk_rows(at::IntArrayRef buffer, const std::vector<int64_t>& dims, at::ScalarType t) {
  if (dims.size() < 2 || buffer.size() < 3 || buffer[0] < 2) return 0;
  for (int64_t d : dims)
    if (d == 0) return 0;
  int64_t row = (int64_t)c10::elementSize(fft_compute_complex(t));
  for (size_t d = 1; d < buffer.size(); ++d) row *= buffer[d];
  if (row == 0 || row * buffer[0] <= kChunkBytes) return 0;
  return std::max<int64_t>(1, kChunkBytes / row);
}

// run(self rows, out rows) for each chunk of `rows` rows of dim 0.
template <class Run>
void by_chunks(const at::Tensor& self, const at::Tensor& out, int64_t rows, Run run) {
  for (int64_t i = 0; i < self.size(0); i += rows) {
    const int64_t c = std::min(rows, self.size(0) - i);
    at::Tensor o = out.narrow(0, i, c);
    run(self.narrow(0, i, c), o);
  }
}

// The op over a batch, a chunk of dim 0 at a time where chunk_rows gives
// rows, else whole. a: the op's checked arguments; buffer, buffer_type:
// the shape and dtype the buffer between axes is made for; out_name,
// out_type: the out= overload's name and dtype. run(self, given) runs the
// driver on self (a chunk, or all of it) into given (its rows of out, or
// null for a new output).
template <class Run>
at::Tensor chunked(const at::Tensor& self, const FftArgs& a, at::IntArrayRef buffer,
                   at::ScalarType buffer_type, const char* out_name, at::ScalarType out_type,
                   const at::Tensor* given, Run run) {
  const int64_t rows = chunk_rows(buffer, a.dims, buffer_type);
  if (!rows) return run(self, given);
  at::Tensor out = given ? check_fft_out(out_name, *given, self, a.shape, out_type)
                         : CpuAxes().empty(a.shape, self.options().dtype(out_type));
  by_chunks(self, out, rows, [&](const at::Tensor& s, at::Tensor& o) { run(s, &o); });
  return out;
}

// The out= forms: the last axis writes `out` itself (no copy). given:
// out's overload (checked), else null (a new output). Only a transform
// over several dims of a batch can be chunked; complex64 and complex128
// c2c and r2c work in place in the output, with no buffer.
at::Tensor c2c_into(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                    bool forward, const at::Tensor* given) {
  CpuAxes ax;
  const auto run = [&](const at::Tensor& s, const at::Tensor* g) {
    return driver::fft_c2c(ax, s, dim, normalization, forward, g);
  };
  if (dim.size() < 2 || self.dim() < 3 || self.scalar_type() != at::kComplexHalf)
    return run(self, given);
  const FftArgs a = check_c2c(self, dim, normalization);
  const auto t = self.scalar_type();
  return chunked(self, a, a.shape, t, "fft_c2c_out", t, given, run);
}

at::Tensor r2c_into(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                    bool onesided, const at::Tensor* given) {
  CpuAxes ax;
  const auto run = [&](const at::Tensor& s, const at::Tensor* g) {
    return driver::fft_r2c(ax, s, dim, normalization, onesided, g);
  };
  if (dim.size() < 2 || self.dim() < 3 || self.scalar_type() != at::kHalf)
    return run(self, given);
  const FftArgs a = check_r2c(self, dim, normalization, onesided);
  const auto ctype = c10::toComplexType(self.scalar_type());
  return chunked(self, a, a.shape, ctype, "fft_r2c_out", ctype, given, run);
}

at::Tensor c2r_into(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                    int64_t last_dim_size, const at::Tensor* given) {
  CpuAxes ax;
  const auto run = [&](const at::Tensor& s, const at::Tensor* g) {
    return driver::fft_c2r(ax, s, dim, normalization, last_dim_size, g);
  };
  if (dim.size() < 2 || self.dim() < 3) return run(self, given);
  const FftArgs a = check_c2r(self, dim, normalization, last_dim_size);
  const auto t = self.scalar_type();
  return chunked(self, a, self.sizes(), t, "fft_c2r_out", c10::toRealValueType(t), given, run);
}

at::Tensor fft_c2c(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                   bool forward) {
  return c2c_into(self, dim, normalization, forward, nullptr);
}

at::Tensor fft_r2c(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                   bool onesided) {
  return r2c_into(self, dim, normalization, onesided, nullptr);
}

at::Tensor fft_c2r(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                   int64_t last_dim_size) {
  return c2r_into(self, dim, normalization, last_dim_size, nullptr);
}

at::Tensor& fft_c2c_out(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                        bool forward, at::Tensor& out) {
  c2c_into(self, dim, normalization, forward, &out);
  return out;
}

at::Tensor& fft_r2c_out(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                        bool onesided, at::Tensor& out) {
  r2c_into(self, dim, normalization, onesided, &out);
  return out;
}

at::Tensor& fft_c2r_out(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                        int64_t last_dim_size, at::Tensor& out) {
  c2r_into(self, dim, normalization, last_dim_size, &out);
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
