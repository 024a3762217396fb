// fft_c2c, fft_r2c, fft_c2r, stft and istft over an executor E (see
// fft_driver.h), with the CPU kernels' semantics (csrc/cpu/fft_ops.cpp,
// stft_ops.cpp): one axis at a time, the last listed dim first; between
// axes a complex32 transform keeps fp32 values in a complex64 buffer.
//
// istft also needs from E:
//   void envelope(const S* w, n_fft, hop, T, double* env, count)
//   void ola(const S* frames, const double* env, void* y, out_type, B, T, n_fft,
//            hop, start, length, comps)
//   bool capturing()      the current stream is being captured (CUDA graphs)
#pragma once
#include <ATen/ATen.h>

#include "fft_driver.h"

namespace complexext {
namespace gpu {

inline std::vector<int64_t> check_dims(const char* name, const at::Tensor& x,
                                       at::IntArrayRef dim) {
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

inline double scale_of(const char* name, int64_t normalization, double n) {
  TORCH_CHECK(normalization >= 0 && normalization <= 2, name,
              ": normalization must be 0, 1 or 2, got ", normalization);
  return normalization == 0 ? 1.0 : normalization == 1 ? 1.0 / std::sqrt(n) : 1.0 / n;
}

// c2c along dims (in order) of buf in place, the last of them into out.
template <class S, class E>
void c2c_rest(E& ex, const at::Tensor& buf, const at::Tensor& out,
              const std::vector<int64_t>& dims, bool inverse, double scale) {
  for (size_t i = 0; i < dims.size(); ++i) {
    const bool last = i + 1 == dims.size();
    run_axis<S>(ex, c2c_job<S>(buf.size(dims[i]), inverse, last ? scale : 1.0), buf,
                last ? out : buf, dims[i]);
  }
}

template <class S, class E>
at::Tensor fft_c2c(E& ex, const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                   bool forward) {
  TORCH_CHECK(self.is_complex(), "fft_c2c: expected a complex tensor, got ", self.scalar_type());
  auto dims = check_dims("fft_c2c", self, dim);
  double N = 1;
  for (int64_t d : dims) N *= (double)self.size(d);
  const double scale = scale_of("fft_c2c", normalization, N);
  at::Tensor out = at::empty(self.sizes(), self.options());
  if (out.numel() == 0) return out;
  const int64_t d0 = dims.back();
  if (dims.size() == 1) {
    run_axis<S>(ex, c2c_job<S>(self.size(d0), !forward, scale), self, out, d0);
    return out;
  }
  at::Tensor buf = self.scalar_type() == compute_complex(self.scalar_type())
                       ? out
                       : at::empty(self.sizes(), self.options().dtype(at::kComplexFloat));
  run_axis<S>(ex, c2c_job<S>(self.size(d0), !forward, 1.0), self, buf, d0);
  dims.pop_back();
  c2c_rest<S>(ex, buf, out, dims, !forward, scale);
  return out;
}

template <class S, class E>
at::Tensor fft_r2c(E& ex, const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                   bool onesided) {
  const auto t = self.scalar_type();
  TORCH_CHECK(t == at::kHalf || t == at::kFloat || t == at::kDouble,
              "fft_r2c: expected a float16, float32 or float64 tensor, got ", t);
  auto dims = check_dims("fft_r2c", self, dim);
  double N = 1;
  for (int64_t d : dims) N *= (double)self.size(d);
  const double scale = scale_of("fft_r2c", normalization, N);
  const int64_t d0 = dims.back(), n = self.size(d0);
  auto shape = self.sizes().vec();
  shape[d0] = onesided ? n / 2 + 1 : n;
  const auto ctype = c10::toComplexType(t);
  at::Tensor out = at::empty(shape, self.options().dtype(ctype));
  if (out.numel() == 0) return out;
  cx_block_job<S> J{};
  J.kind = CX_JOB_R2C;
  J.n = n;
  J.out_len = shape[d0];
  J.scale = (S)(dims.size() == 1 ? scale : 1.0);
  if (dims.size() == 1) {
    run_axis<S>(ex, J, self, out, d0);
    return out;
  }
  at::Tensor buf = ctype == compute_complex(ctype)
                       ? out
                       : at::empty(shape, self.options().dtype(at::kComplexFloat));
  run_axis<S>(ex, J, self, buf, d0);
  dims.pop_back();
  c2c_rest<S>(ex, buf, out, dims, false, scale);
  return out;
}

template <class S, class E>
at::Tensor fft_c2r(E& ex, const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
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
  at::Tensor out = at::empty(shape, self.options().dtype(c10::toRealValueType(self.scalar_type())));
  if (out.numel() == 0) return out;
  at::Tensor src = self;
  if (dims.size() > 1) {
    // The inverse c2c over the other dims first, into a buffer of the
    // compute type (the input is never written).
    src = at::empty(self.sizes(), self.options().dtype(compute_complex(self.scalar_type())));
    for (size_t i = 0; i + 1 < dims.size(); ++i)
      run_axis<S>(ex, c2c_job<S>(self.size(dims[i]), true, 1.0), i == 0 ? self : src, src,
                  dims[i]);
  }
  cx_block_job<S> J{};
  J.kind = CX_JOB_C2R;
  J.n = J.out_len = last_dim_size;
  J.scale = (S)scale;
  run_axis<S>(ex, J, src, out, d0);
  return out;
}

}  // namespace gpu
}  // namespace complexext
