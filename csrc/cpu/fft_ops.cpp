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

#include "axis.h"

namespace complexext {
namespace {

std::vector<int64_t> check_dims(const char* name, const at::Tensor& x, at::IntArrayRef dim) {
  TORCH_CHECK(!dim.empty(), name, ": dim must not be empty");
  std::vector<int64_t> out;
  for (int64_t d : dim) {
    TORCH_CHECK(d >= -x.dim() && d < x.dim(), name, ": dim ", d, " out of range for a ", x.dim(),
                "-d tensor");
    d = d < 0 ? d + x.dim() : d;
    for (int64_t e : out) TORCH_CHECK(e != d, name, ": dim ", d, " repeated");
    TORCH_CHECK(x.size(d) >= 1, name, ": signal size along dim ", d, " must be >= 1");
    out.push_back(d);
  }
  return out;
}

double scale_of(const char* op, int64_t normalization, double n) {
  switch (normalization) {
    case 0: return 1.0;
    case 1: return 1.0 / std::sqrt(n);
    case 2: return 1.0 / n;
    default: TORCH_CHECK(false, op, ": normalization must be 0, 1 or 2, got ", normalization);
  }
}

at::ScalarType compute_complex(at::ScalarType t) {
  return (t == at::kDouble || t == at::kComplexDouble) ? at::kComplexDouble : at::kComplexFloat;
}

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
  TORCH_CHECK(self.is_complex(), "fft_c2c: expected a complex tensor, got ", self.scalar_type());
  auto dims = check_dims("fft_c2c", self, dim);
  double N = 1;
  for (int64_t d : dims) N *= (double)self.size(d);
  const double scale = scale_of("fft_c2c", normalization, N);
  at::Tensor out = new_output(self.sizes(), self.options());
  if (out.numel() == 0) return out;
  const int64_t d0 = dims.back();
  if (dims.size() == 1) {
    run_axis(c2c_job(self.size(d0), !forward, scale), self, out, d0);
    return out;
  }
  at::Tensor buf = self.scalar_type() == compute_complex(self.scalar_type())
                       ? out
                       : new_output(self.sizes(), self.options().dtype(at::kComplexFloat));
  run_axis(c2c_job(self.size(d0), !forward, 1.0), self, buf, d0);
  dims.pop_back();
  c2c_rest(buf, out, dims, !forward, scale);
  return out;
}

at::Tensor fft_r2c(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                   bool onesided) {
  TORCH_CHECK(self.is_floating_point() &&
                  (self.scalar_type() == at::kHalf || self.scalar_type() == at::kFloat ||
                   self.scalar_type() == at::kDouble),
              "fft_r2c: expected a float16, float32 or float64 tensor, got ", self.scalar_type());
  auto dims = check_dims("fft_r2c", self, dim);
  double N = 1;
  for (int64_t d : dims) N *= (double)self.size(d);
  const double scale = scale_of("fft_r2c", normalization, N);
  const int64_t d0 = dims.back(), n = self.size(d0);
  auto shape = self.sizes().vec();
  shape[d0] = onesided ? n / 2 + 1 : n;
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
  at::Tensor buf = ctype == compute_complex(ctype)
                       ? out
                       : new_output(shape, self.options().dtype(at::kComplexFloat));
  run_axis(J, self, buf, d0);
  dims.pop_back();
  c2c_rest(buf, out, dims, false, scale);
  return out;
}

at::Tensor fft_c2r(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                   int64_t last_dim_size) {
  TORCH_CHECK(self.is_complex(), "fft_c2r: expected a complex tensor, got ", self.scalar_type());
  TORCH_CHECK(last_dim_size >= 1, "fft_c2r: last_dim_size must be >= 1, got ", last_dim_size);
  auto dims = check_dims("fft_c2r", self, dim);
  const int64_t d0 = dims.back();
  TORCH_CHECK(self.size(d0) >= last_dim_size / 2 + 1, "fft_c2r: expected at least ",
              last_dim_size / 2 + 1, " elements along dim ", d0, " for last_dim_size ",
              last_dim_size, ", got ", self.size(d0));
  double N = (double)last_dim_size;
  for (size_t i = 0; i + 1 < dims.size(); ++i) N *= (double)self.size(dims[i]);
  const double scale = scale_of("fft_c2r", normalization, N);
  auto shape = self.sizes().vec();
  shape[d0] = last_dim_size;
  at::Tensor out = new_output(shape, self.options().dtype(c10::toRealValueType(self.scalar_type())));
  if (out.numel() == 0) return out;
  at::Tensor src = self;
  if (dims.size() > 1) {
    // The inverse c2c over the other dims first, into a buffer of the
    // compute type (the input is never written).
    src = new_output(self.sizes(), self.options().dtype(compute_complex(self.scalar_type())));
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
