// The fused stft and istft over an executor E (see fft_driver.h and
// ops_driver.h), with the CPU kernels' semantics (csrc/cpu/stft_ops.cpp).
//
// stft: one job whose rows are the frames, row (b, t) at b*stride0 + t*hop
// of the signal, windowed as it loads, stored to out[b, :, t]. The centre
// padding is read in place by the register kernels (frames past either end
// take their samples from where the padding mode says); where none takes
// the job, the signal is padded first by one gather for the block kernels.
// istft: one job that writes each frame's inverse DFT, windowed as it is
// stored, into a compute-type frame buffer; the window envelope computed on
// the device in double; then every output sample gathers the frames that
// cover it (no atomics: the result does not depend on the launch shape).
#pragma once
#include <ATen/ATen.h>

#include "../args/stft_args.h"
#include "fft_driver.h"

namespace complexext {
namespace gpu {

template <class S, class E>
at::Tensor stft(E& ex, const at::Tensor& self, const at::Tensor& window, int64_t n_fft,
                int64_t hop, int64_t normalization, bool onesided, int64_t pad, int mode) {
  const StftShape sh = check_stft(self, n_fft, hop, normalization, onesided, pad, mode);
  const int64_t T = sh.T, F = sh.F;
  const auto t = self.scalar_type();
  const at::Tensor win = stft_window("stft", self, window, n_fft, is_double(t) ? at::kDouble
                                                                               : at::kFloat);
  at::Tensor out = stft_output(self, sh, [](at::IntArrayRef shape, const at::TensorOptions& o) {
    return at::empty(shape, o);
  });
  cx_block_job<S> J{};
  J.kind = self.is_complex() ? CX_JOB_C2C : CX_JOB_R2C;
  J.n = n_fft;
  J.out_len = F;
  J.scale = (S)(normalization ? 1.0 / std::sqrt((double)n_fft) : 1.0);
  J.out = out.mutable_data_ptr();
  J.out_stride = 1;
  J.rows.nd = 2;
  J.rows.sizes[0] = self.size(0);
  J.rows.sizes[1] = T;
  J.rows.out_strides[0] = T * F;
  J.rows.out_strides[1] = F;
  J.nrows = self.size(0) * T;
  J.win_in = win.const_data_ptr<S>();
  const int ti = storage_code(t), to = storage_code(out.scalar_type());
  auto frames_of = [&](const at::Tensor& x) {
    J.in = x.const_data_ptr();
    J.in_stride = x.stride(1);
    J.rows.in_strides[0] = x.stride(0);
    J.rows.in_strides[1] = hop * x.stride(1);
  };
  if (J.nrows == 0) return out;
  if (pad > 0) {
    frames_of(self);
    if (pad < (int64_t(1) << 30) && run_reg_job<S>(ex, J, ti, to, (int)pad, mode, self.size(1)))
      return out;
  }
  // one gather on the device; rows on whole pairs of samples for the
  // register kernels of a real signal
  const at::Tensor x = stft_pad_signal(self, pad, mode, !self.is_complex());
  frames_of(x);
  run_gpu_job<S>(ex, J, ti, to, out.options());
  return out;
}

template <class S, class E>
at::Tensor istft(E& ex, const at::Tensor& self, const at::Tensor& window, int64_t n_fft,
                 int64_t hop, int64_t normalization, bool onesided, int64_t start,
                 int64_t length) {
  check_istft(self, n_fft, hop, normalization, onesided, start, length);
  const int64_t B = self.size(0), T = self.size(2);
  const at::ScalarType ct = is_double(self.scalar_type()) ? at::kDouble : at::kFloat;
  const at::Tensor win = stft_window("istft", self, window, n_fft, ct);
  const int64_t full = n_fft + hop * (T - 1);
  at::Tensor env = at::empty({full}, self.options().dtype(at::kDouble));
  ex.envelope(win.const_data_ptr<S>(), n_fft, hop, T, env.mutable_data_ptr<double>(), full);
  const int64_t stop = std::min(full, start + length);
  if (stop > start && !ex.capturing()) {
    // The NOLA check reads one number back (a host sync, as in
    // torch.istft); it is skipped while a CUDA graph is being captured.
    at::Tensor part = env.slice(0, start, stop);
    const int64_t s = start + part.argmin().item<int64_t>();
    const double lo = env[s].item<double>();
    TORCH_CHECK(lo > 1e-11, "istft: the window fails the NOLA condition: the sum of squared ",
                "windows overlapping sample ", s, " is ", lo, " (hop_length ", hop, ", n_fft ",
                n_fft, ")");
  }
  const auto out_type = onesided ? c10::toRealValueType(self.scalar_type()) : self.scalar_type();
  at::Tensor y = at::empty({B, length}, self.options().dtype(out_type));
  if (B == 0 || length == 0) return y;
  at::Tensor frames =
      at::empty({B, T, n_fft}, self.options().dtype(onesided ? ct : c10::toComplexType(ct)));
  cx_block_job<S> J{};
  J.kind = onesided ? CX_JOB_C2R : CX_JOB_C2C;
  J.conj_in = J.conj_out = onesided ? 0 : 1;
  J.n = J.out_len = n_fft;
  J.scale = (S)(normalization == 1 ? 1.0 / std::sqrt((double)n_fft) : 1.0 / (double)n_fft);
  J.in = self.const_data_ptr();
  J.out = frames.mutable_data_ptr();
  J.in_stride = self.stride(1);
  J.out_stride = 1;
  J.rows.nd = 2;
  J.rows.sizes[0] = B;
  J.rows.sizes[1] = T;
  J.rows.in_strides[0] = self.stride(0);
  J.rows.in_strides[1] = self.stride(2);
  J.rows.out_strides[0] = T * n_fft;
  J.rows.out_strides[1] = n_fft;
  J.nrows = B * T;
  J.win_out = win.const_data_ptr<S>();
  run_gpu_job<S>(ex, J, storage_code(self.scalar_type()), storage_code(ct), frames.options());
  ex.ola((const S*)frames.const_data_ptr(), env.const_data_ptr<double>(), y.mutable_data_ptr(),
         storage_code(out_type), B, T, n_fft, hop, start, length, onesided ? 1 : 2);
  return y;
}

}  // namespace gpu
}  // namespace complexext
