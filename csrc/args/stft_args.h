// The argument checks and output geometry of the stft and istft ops, shared
// by the CPU kernels (csrc/cpu/stft_ops.cpp) and the GPU driver
// (csrc/cuda/stft_driver.h) so that both refuse the same inputs with the
// same words. Host code: torch headers allowed.
#pragma once
#include <ATen/ATen.h>

#include <cstdint>
#include <string>
#include <vector>

namespace complexext {

struct StftShape {
  int64_t T;  // frames
  int64_t F;  // bins
};

// Centre padding, as torch.nn.functional.pad names its modes.
enum StftPad { kPadConstant = 0, kPadReflect, kPadReplicate, kPadCircular };

inline int stft_pad_mode(c10::string_view mode) {
  if (mode == "constant") return kPadConstant;
  if (mode == "reflect") return kPadReflect;
  if (mode == "replicate") return kPadReplicate;
  if (mode == "circular") return kPadCircular;
  TORCH_CHECK(false, "stft: pad_mode must be one of reflect, constant, replicate, circular, got '",
              std::string(mode.data(), mode.size()), "'");
}

// The sample of a length-L signal at position s of the signal padded by
// `pad` at both ends (0 <= s < L + 2*pad), or -1 for a zero (constant).
// Valid for the pads check_stft accepts.
inline int64_t stft_pad_source(int64_t s, int64_t L, int64_t pad, int mode) {
  const int64_t i = s - pad;
  if (i >= 0 && i < L) return i;
  switch (mode) {
    case kPadReflect: return i < 0 ? -i : 2 * (L - 1) - i;
    case kPadReplicate: return i < 0 ? 0 : L - 1;
    case kPadCircular: return i < 0 ? i + L : i - L;
    default: return -1;
  }
}

// The signal padded by `pad` samples at both ends (torch's F.pad values),
// in the signal's dtype: one cat of the signal and its two edge pieces.
// even_pitch: rows an even number of samples apart (one spare zero after
// an odd padded length), so that frames at even offsets start on whole
// pairs of samples (the CUDA register kernels read real samples in pairs).
inline at::Tensor stft_pad_signal(const at::Tensor& self, int64_t pad, int mode,
                                  bool even_pitch = false) {
  const int64_t L = self.size(1), Lp = L + 2 * pad;
  const int64_t spare = even_pitch && Lp % 2 != 0 ? 1 : 0;
  if (pad == 0 && spare == 0) return self;
  if (mode == kPadConstant) return at::constant_pad_nd(self, {pad, pad + spare}).narrow(1, 0, Lp);
  at::Tensor idx = at::empty({2 * pad}, at::TensorOptions().dtype(at::kLong));
  int64_t* p = idx.mutable_data_ptr<int64_t>();
  for (int64_t j = 0; j < pad; ++j) {
    p[j] = stft_pad_source(j, L, pad, mode);
    p[pad + j] = stft_pad_source(pad + L + j, L, pad, mode);
  }
  const at::Tensor edges = self.index_select(1, idx.to(self.device()));
  std::vector<at::Tensor> parts = {edges.narrow(1, 0, pad), self, edges.narrow(1, pad, pad)};
  if (spare) parts.push_back(at::zeros({self.size(0), 1}, self.options()));
  return at::cat(parts, 1).narrow(1, 0, Lp);
}

// The checks of an stft of self padded by `pad` at both ends in `mode`
// (stft_pad_mode), and the output geometry.
inline StftShape check_stft(const at::Tensor& self, int64_t n_fft, int64_t hop,
                            int64_t normalization, bool onesided, int64_t pad, int mode) {
  TORCH_CHECK(self.dim() == 2, "stft: expected a (batch, time) signal, got shape ", self.sizes());
  const auto t = self.scalar_type();
  TORCH_CHECK(t == at::kHalf || t == at::kFloat || t == at::kDouble || self.is_complex(),
              "stft: expected a float16/32/64 or complex signal, got ", t);
  TORCH_CHECK(n_fft >= 1, "stft: n_fft must be >= 1, got ", n_fft);
  TORCH_CHECK(hop >= 1, "stft: hop_length must be >= 1, got ", hop);
  TORCH_CHECK(normalization == 0 || normalization == 1, "stft: normalization must be 0 or 1");
  TORCH_CHECK(!(onesided && self.is_complex()), "stft: onesided needs a real signal");
  TORCH_CHECK(pad >= 0, "stft: pad must be >= 0, got ", pad);
  const int64_t L = self.size(1);
  if (pad > 0) {
    TORCH_CHECK(mode != kPadReflect || pad < L, "stft: reflect padding of ", pad,
                " samples needs a signal longer than that, got ", L, " samples");
    TORCH_CHECK(mode != kPadCircular || pad <= L, "stft: circular padding of ", pad,
                " samples needs at least that many samples, got ", L);
    TORCH_CHECK(mode != kPadReplicate || L > 0, "stft: cannot replicate-pad an empty signal");
  }
  TORCH_CHECK(L + 2 * pad >= n_fft, "stft: the signal (", L + 2 * pad,
              " samples after padding) is shorter than n_fft = ", n_fft);
  return {1 + (L + 2 * pad - n_fft) / hop, onesided ? n_fft / 2 + 1 : n_fft};
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
