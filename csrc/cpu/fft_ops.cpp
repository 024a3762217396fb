// CPU kernels of fft_c2c, fft_r2c and fft_c2r.
//
// A transform over several dims runs one axis at a time. The first pass
// reads the input as it is (any strides, fp16/fp32/fp64) and the last one
// writes the output with the normalisation applied. Between passes a
// complex32 transform keeps its values in fp32 (one complex64 buffer the
// size of the output): rounding to fp16 between axes would add one rounding
// error per axis. A one-axis transform makes no intermediate at all.
#include <ATen/ATen.h>
#include <torch/library.h>

#include <cmath>

#include "../fft_args.h"
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

// c2c along dims[0..k) of buf in place, the last of them writing to out.
void c2c_rest(at::Tensor buf, const at::Tensor& out, const std::vector<int64_t>& dims, bool inverse,
              double scale) {
  for (size_t i = 0; i < dims.size(); ++i) {
    const bool last = i + 1 == dims.size();
    const int64_t d = dims[i];
    run_axis(c2c_job(buf.size(d), inverse, last ? scale : 1.0), buf, last ? out : buf, d);
  }
}

at::Tensor fft_c2c(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                   bool forward) {
  FftArgs a = check_c2c(self, dim, normalization);
  auto& dims = a.dims;
  const double scale = a.scale;
  at::Tensor out = new_output(self.sizes(), self.options());
  if (out.numel() == 0) return out;
  const int64_t d0 = dims.back();
  if (dims.size() == 1) {
    run_axis(c2c_job(self.size(d0), !forward, scale), self, out, d0);
    return out;
  }
  at::Tensor buf = self.scalar_type() == fft_compute_complex(self.scalar_type())
                       ? out
                       : new_output(self.sizes(), self.options().dtype(at::kComplexFloat));
  run_axis(c2c_job(self.size(d0), !forward, 1.0), self, buf, d0);
  dims.pop_back();
  c2c_rest(buf, out, dims, !forward, scale);
  return out;
}

at::Tensor fft_r2c(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                   bool onesided) {
  FftArgs a = check_r2c(self, dim, normalization, onesided);
  auto& dims = a.dims;
  const auto& shape = a.shape;
  const double scale = a.scale;
  const int64_t d0 = dims.back(), n = self.size(d0);
  const auto ctype = c10::toComplexType(self.scalar_type());
  at::Tensor out = new_output(shape, self.options().dtype(ctype));
  if (out.numel() == 0) return out;
  cx_axis_job J{};
  J.kind = CX_R2C;
  J.n = J.in_len = n;
  J.out_len = shape[d0];
  J.scale = dims.size() == 1 ? scale : 1.0;
  if (dims.size() == 1) {
    run_axis(J, self, out, d0);
    return out;
  }
  at::Tensor buf = ctype == fft_compute_complex(ctype)
                       ? out
                       : new_output(shape, self.options().dtype(at::kComplexFloat));
  run_axis(J, self, buf, d0);
  dims.pop_back();
  c2c_rest(buf, out, dims, false, scale);
  return out;
}

at::Tensor fft_c2r(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                   int64_t last_dim_size) {
  FftArgs a = check_c2r(self, dim, normalization, last_dim_size);
  const auto& dims = a.dims;
  const auto& shape = a.shape;
  const double scale = a.scale;
  const int64_t d0 = dims.back();
  at::Tensor out = new_output(shape, self.options().dtype(c10::toRealValueType(self.scalar_type())));
  if (out.numel() == 0) return out;
  at::Tensor src = self;
  if (dims.size() > 1) {
    // The inverse c2c over the other dims first, into a buffer of the
    // compute type (the input is never written).
    src = new_output(self.sizes(), self.options().dtype(fft_compute_complex(self.scalar_type())));
    for (size_t i = 0; i + 1 < dims.size(); ++i) {
      const int64_t d = dims[i];
      run_axis(c2c_job(self.size(d), true, 1.0), i == 0 ? self : src, src, d);
    }
  }
  cx_axis_job J{};
  J.kind = CX_C2R;
  J.n = J.out_len = last_dim_size;
  J.in_len = last_dim_size / 2 + 1;
  J.scale = scale;
  run_axis(J, src, out, d0);
  return out;
}

}  // namespace

TORCH_LIBRARY_IMPL(complexext, CPU, m) {
  m.impl("fft_c2c", &fft_c2c);
  m.impl("fft_r2c", &fft_r2c);
  m.impl("fft_c2r", &fft_c2r);
}

}  // namespace complexext
