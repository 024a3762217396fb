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

#include "../fft_args.h"
#include "fft_driver.h"

namespace complexext {
namespace gpu {

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
  FftArgs a = check_c2c(self, dim, normalization);
  auto& dims = a.dims;
  const double scale = a.scale;
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
  FftArgs a = check_r2c(self, dim, normalization, onesided);
  auto& dims = a.dims;
  const auto& shape = a.shape;
  const double scale = a.scale;
  const int64_t d0 = dims.back(), n = self.size(d0);
  const auto t = self.scalar_type();
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
  FftArgs a = check_c2r(self, dim, normalization, last_dim_size);
  const auto& dims = a.dims;
  const auto& shape = a.shape;
  const double scale = a.scale;
  const int64_t d0 = dims.back();
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
