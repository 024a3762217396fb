// The argument checks and output geometry of the stft and istft ops, shared
// by the CPU kernels (csrc/cpu/stft_ops.cpp) and the GPU driver
// (csrc/cuda/stft_driver.h) so that both refuse the same inputs with the
// same words. Host code: torch headers allowed.
#pragma once
#include <ATen/ATen.h>

#include <cstdint>
#include <string>

namespace complexext {

struct StftShape {
  int64_t T;  // frames
  int64_t F;  // bins
};

inline StftShape check_stft(const at::Tensor& self, int64_t n_fft, int64_t hop,
                            int64_t normalization, bool onesided) {
  TORCH_CHECK(self.dim() == 2, "stft: expected a (batch, time) signal, got shape ", self.sizes());
  const auto t = self.scalar_type();
  TORCH_CHECK(t == at::kHalf || t == at::kFloat || t == at::kDouble || self.is_complex(),
              "stft: expected a float16/32/64 or complex signal, got ", t);
  TORCH_CHECK(n_fft >= 1, "stft: n_fft must be >= 1, got ", n_fft);
  TORCH_CHECK(hop >= 1, "stft: hop_length must be >= 1, got ", hop);
  TORCH_CHECK(normalization == 0 || normalization == 1, "stft: normalization must be 0 or 1");
  TORCH_CHECK(!(onesided && self.is_complex()), "stft: onesided needs a real signal");
  const int64_t L = self.size(1);
  TORCH_CHECK(L >= n_fft, "stft: the signal (", L, " samples after padding) is shorter than ",
              "n_fft = ", n_fft);
  return {1 + (L - n_fft) / hop, onesided ? n_fft / 2 + 1 : n_fft};
}

// The stft output: (B, F, T) with torch.stft's strides (F*T, 1, F), the
// bins of a frame adjacent. alloc(shape, options) makes the memory.
template <class Alloc>
at::Tensor stft_output(const at::Tensor& self, const StftShape& s, Alloc alloc) {
  const auto t = self.scalar_type();
  return alloc(at::IntArrayRef({self.size(0), s.T, s.F}),
               self.options().dtype(self.is_complex() ? t : c10::toComplexType(t)))
      .transpose(1, 2);
}

inline void check_istft(const at::Tensor& self, int64_t n_fft, int64_t hop, int64_t normalization,
                        bool onesided, int64_t start, int64_t length) {
  TORCH_CHECK(self.dim() == 3 && self.is_complex(),
              "istft: expected a complex (batch, freq, frames) spectrum, got ", self.scalar_type(),
              " of shape ", self.sizes());
  TORCH_CHECK(n_fft >= 1, "istft: n_fft must be >= 1, got ", n_fft);
  TORCH_CHECK(hop >= 1, "istft: hop_length must be >= 1, got ", hop);
  TORCH_CHECK(normalization == 1 || normalization == 2, "istft: normalization must be 1 or 2");
  TORCH_CHECK(start >= 0 && length >= 0, "istft: start and length must be >= 0");
  const int64_t F = self.size(1), T = self.size(2);
  TORCH_CHECK(F == (onesided ? n_fft / 2 + 1 : n_fft), "istft: expected ",
              onesided ? n_fft / 2 + 1 : n_fft, " frequency bins for n_fft = ", n_fft,
              onesided ? " (onesided)" : "", ", got ", F);
  TORCH_CHECK(T >= 1, "istft: expected at least one frame");
}

// The window in the compute type `real`, contiguous, on the input's device.
inline at::Tensor stft_window(const char* name, const at::Tensor& self, const at::Tensor& window,
                              int64_t n_fft, at::ScalarType real) {
  TORCH_CHECK(window.dim() == 1 && window.size(0) == n_fft, name,
              ": expected a 1-d window of length n_fft = ", n_fft, ", got shape ",
              window.sizes());
  TORCH_CHECK(window.is_floating_point(), name, ": expected a real floating point window, got ",
              window.scalar_type());
  TORCH_CHECK(window.device() == self.device(), name, ": window must be on ",
              self.device().is_cpu() ? std::string("the CPU") : self.device().str(),
              " like the input, got ", window.device());
  return window.to(real).contiguous();
}

}  // namespace complexext
