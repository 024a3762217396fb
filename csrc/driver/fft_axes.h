// The multi-axis driver of fft_c2c, fft_r2c and fft_c2r, one for every
// backend: the CPU kernels (cpu/fft_ops.cpp) and the GPU driver
// (cuda/ops_driver.h, run on CUDA by cuda/binding.cpp and on the CPU by
// emulation/block_emulation.cpp) give it an executor of one-axis transforms.
//
// A transform over several dims runs one axis at a time, the last listed
// dim first. The first axis reads the input as it lies (any strides,
// fp16/fp32/fp64); the last writes the output with the normalisation
// applied. Between axes a complex32 transform keeps its values in fp32, in
// one complex64 buffer the size of the output (rounding to fp16 between
// axes would add one rounding error per axis); complex64/128 transforms
// work in place in the output. A one-axis transform makes no intermediate.
// (The CPU runs a large batch through here a chunk of dim 0 at a time:
// cpu/fft_ops.cpp.)
//
// The executor A provides:
//   at::Tensor empty(at::IntArrayRef shape, const at::TensorOptions& o)
//   void c2c(const at::Tensor& src, const at::Tensor& dst, int64_t d,
//            bool inverse, double scale)            length src.size(d)
//   void r2c(src, dst, d, int64_t out_len, double scale)
//   void c2r(src, dst, d, int64_t n, double scale)   n: the real length
// each reading src and writing dst along dim d (src == dst: in place).
// Each op takes an optional given output (its out= overload, checked by
// check_fft_out): written directly instead of a new tensor.
#pragma once
#include <ATen/ATen.h>

#include <vector>

#include "../args/fft_args.h"

namespace complexext {
namespace driver {

// c2c along dims (in order) of buf in place, the last of them into out.
template <class A>
void c2c_rest(A& ax, const at::Tensor& buf, const at::Tensor& out,
              const std::vector<int64_t>& dims, bool inverse, double scale) {
  for (size_t i = 0; i < dims.size(); ++i) {
    const bool last = i + 1 == dims.size();
    ax.c2c(buf, last ? out : buf, dims[i], inverse, last ? scale : 1.0);
  }
}

template <class A>
at::Tensor fft_c2c(A& ax, const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                   bool forward, const at::Tensor* given = nullptr) {
  FftArgs a = check_c2c(self, dim, normalization);
  auto& dims = a.dims;
  at::Tensor out =
      given ? check_fft_out("fft_c2c_out", *given, self, self.sizes(), self.scalar_type())
            : ax.empty(self.sizes(), self.options());
  if (out.numel() == 0) return out;
  const int64_t d0 = dims.back();
  if (dims.size() == 1) {
    ax.c2c(self, out, d0, !forward, a.scale);
    return out;
  }
  at::Tensor buf = self.scalar_type() == fft_compute_complex(self.scalar_type())
                       ? out
                       : ax.empty(self.sizes(), self.options().dtype(at::kComplexFloat));
  ax.c2c(self, buf, d0, !forward, 1.0);
  dims.pop_back();
  c2c_rest(ax, buf, out, dims, !forward, a.scale);
  return out;
}

template <class A>
at::Tensor fft_r2c(A& ax, const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                   bool onesided, const at::Tensor* given = nullptr) {
  FftArgs a = check_r2c(self, dim, normalization, onesided);
  auto& dims = a.dims;
  const int64_t d0 = dims.back();
  const auto ctype = c10::toComplexType(self.scalar_type());
  at::Tensor out = given ? check_fft_out("fft_r2c_out", *given, self, a.shape, ctype)
                         : ax.empty(a.shape, self.options().dtype(ctype));
  if (out.numel() == 0) return out;
  if (dims.size() == 1) {
    ax.r2c(self, out, d0, a.shape[d0], a.scale);
    return out;
  }
  at::Tensor buf = ctype == fft_compute_complex(ctype)
                       ? out
                       : ax.empty(a.shape, self.options().dtype(at::kComplexFloat));
  ax.r2c(self, buf, d0, a.shape[d0], 1.0);
  dims.pop_back();
  c2c_rest(ax, buf, out, dims, false, a.scale);
  return out;
}

template <class A>
at::Tensor fft_c2r(A& ax, const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                   int64_t last_dim_size, const at::Tensor* given = nullptr) {
  FftArgs a = check_c2r(self, dim, normalization, last_dim_size);
  const auto& dims = a.dims;
  const int64_t d0 = dims.back();
  const auto rtype = c10::toRealValueType(self.scalar_type());
  at::Tensor out = given ? check_fft_out("fft_c2r_out", *given, self, a.shape, rtype)
                         : ax.empty(a.shape, self.options().dtype(rtype));
  if (out.numel() == 0) return out;
  at::Tensor src = self;
  if (dims.size() > 1) {
    // The inverse c2c over the other dims first, into a buffer of the
    // compute type (the input is never written).
    src = ax.empty(self.sizes(), self.options().dtype(fft_compute_complex(self.scalar_type())));
    for (size_t i = 0; i + 1 < dims.size(); ++i)
      ax.c2c(i == 0 ? self : src, src, dims[i], true, 1.0);
  }
  ax.c2r(src, out, d0, last_dim_size, a.scale);
  return out;
}

}  // namespace driver
}  // namespace complexext
