// The argument checks, normalisation and output shape of the fft_c2c,
// fft_r2c and fft_c2r ops, shared by the CPU kernels (csrc/cpu/fft_ops.cpp)
// and the GPU driver (csrc/cuda/ops_driver.h) so that both refuse the same
// inputs with the same words. Host code: torch headers allowed.
#pragma once
#include <ATen/ATen.h>
#include <ATen/MemoryOverlap.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace complexext {

// dim wrapped to [0, x.dim()), in the order given; each non-empty.
inline std::vector<int64_t> check_fft_dims(const char* name, const at::Tensor& x,
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

// normalization 0: none, 1: 1/sqrt(n), 2: 1/n (n: the logical size).
inline double fft_scale(const char* name, int64_t normalization, double n) {
  TORCH_CHECK(normalization >= 0 && normalization <= 2, name,
              ": normalization must be 0, 1 or 2, got ", normalization);
  return normalization == 0 ? 1.0 : normalization == 1 ? 1.0 / std::sqrt(n) : 1.0 / n;
}

// The complex type a transform computes in: complex128 for double data,
// complex64 otherwise (complex32 computes in fp32).
inline at::ScalarType fft_compute_complex(at::ScalarType t) {
  return (t == at::kDouble || t == at::kComplexDouble) ? at::kComplexDouble : at::kComplexFloat;
}

struct FftArgs {
  std::vector<int64_t> dims;   // wrapped, in order; the last is transformed first
  double scale;                // applied once, by the last axis written
  std::vector<int64_t> shape;  // of the output
};

// The given output of an op's out= overload (name: the op): the shape and
// dtype the op would allocate, on self's device, contiguous, and sharing no
// memory with self or with itself. The kernels then write it directly.
inline const at::Tensor& check_fft_out(const char* name, const at::Tensor& out,
                                       const at::Tensor& self, at::IntArrayRef shape,
                                       at::ScalarType dtype) {
  TORCH_CHECK(out.sizes() == shape, name, ": out must have shape ", shape, ", got ", out.sizes());
  TORCH_CHECK(out.scalar_type() == dtype, name, ": out must be ", dtype, ", got ",
              out.scalar_type());
  TORCH_CHECK(out.device() == self.device(), name, ": out must be on ", self.device(), ", got ",
              out.device());
  TORCH_CHECK(out.is_contiguous(), name, ": out must be contiguous");
  TORCH_CHECK(!out.is_conj() && !out.is_neg(), name, ": out must not be a conj or neg view");
  TORCH_CHECK(at::has_internal_overlap(out) != at::MemOverlap::Yes, name,
              ": out must not overlap itself");
  const auto shared = at::get_overlap_status(out, self);
  TORCH_CHECK(shared != at::MemOverlapStatus::Full && shared != at::MemOverlapStatus::Partial,
              name, ": out must not share memory with the input");
  return out;
}

inline FftArgs check_c2c(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization) {
  TORCH_CHECK(self.is_complex(), "fft_c2c: expected a complex tensor, got ", self.scalar_type());
  FftArgs a;
  a.dims = check_fft_dims("fft_c2c", self, dim);
  double N = 1;
  for (int64_t d : a.dims) N *= (double)self.size(d);
  a.scale = fft_scale("fft_c2c", normalization, N);
  a.shape = self.sizes().vec();
  return a;
}

inline FftArgs check_r2c(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                         bool onesided) {
  const auto t = self.scalar_type();
  TORCH_CHECK(t == at::kHalf || t == at::kFloat || t == at::kDouble,
              "fft_r2c: expected a float16, float32 or float64 tensor, got ", t);
  FftArgs a;
  a.dims = check_fft_dims("fft_r2c", self, dim);
  double N = 1;
  for (int64_t d : a.dims) N *= (double)self.size(d);
  a.scale = fft_scale("fft_r2c", normalization, N);
  const int64_t d0 = a.dims.back(), n = self.size(d0);
  a.shape = self.sizes().vec();
  a.shape[d0] = onesided ? n / 2 + 1 : n;
  return a;
}

inline FftArgs check_c2r(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                         int64_t last_dim_size) {
  TORCH_CHECK(self.is_complex(), "fft_c2r: expected a complex tensor, got ", self.scalar_type());
  TORCH_CHECK(last_dim_size >= 1, "fft_c2r: last_dim_size must be >= 1, got ", last_dim_size);
  FftArgs a;
  a.dims = check_fft_dims("fft_c2r", self, dim);
  const int64_t d0 = a.dims.back();
  TORCH_CHECK(self.size(d0) >= last_dim_size / 2 + 1, "fft_c2r: expected at least ",
              last_dim_size / 2 + 1, " elements along dim ", d0, " for last_dim_size ",
              last_dim_size, ", got ", self.size(d0));
  double N = (double)last_dim_size;
  for (size_t i = 0; i + 1 < a.dims.size(); ++i) N *= (double)self.size(a.dims[i]);
  a.scale = fft_scale("fft_c2r", normalization, N);
  a.shape = self.sizes().vec();
  a.shape[d0] = last_dim_size;
  return a;
}

}  // namespace complexext
