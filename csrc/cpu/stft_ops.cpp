// CPU kernels of the fused stft and istft.
//
// stft: frame t of batch b is x[b, t*hop : t*hop + n_fft] of the padded
// signal, read where it lies in the signal and multiplied by the window as
// it is loaded; no tensor of frames is made, nor a padded signal (the few
// frames that reach into the padding read a small padded copy of the
// ends). The DFT of each frame goes straight to out[b, :, t], whose bins
// are adjacent in memory (torch.stft's strides: (F*T, 1, F)); adjacent
// frames share a vector.
//
// istft: each frame's inverse DFT is multiplied by the window as it is
// stored into an fp32/fp64 frame buffer, then every output sample gathers
// the frames that cover it and divides by the window envelope
// sum_t w[s - t*hop]^2. The gather (rather than a scatter-add) needs no
// atomics, so results do not depend on the thread count.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/library.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "../args/stft_args.h"
#include "axis.h"
#include "isa.h"

namespace complexext {
namespace {

at::ScalarType compute_real(at::ScalarType t) {
  return (t == at::kDouble || t == at::kComplexDouble) ? at::kDouble : at::kFloat;
}

// Frames [t0, t0 + count) of every batch, frame t read from
// x + b*xs0 + (t - t0)*hop*xs1 (elements of the signal's dtype).
void run_frames(cx_axis_job J, const void* x, int64_t xs0, int64_t xs1, int64_t B, int64_t T,
                int64_t F, int64_t hop, int64_t t0, int64_t count, const at::Tensor& out,
                const std::function<void()>& also = nullptr) {
  J.in = x;
  J.in_stride = xs1;
  J.out = (char*)out.mutable_data_ptr() + t0 * F * out.element_size();
  J.nd = 2;
  J.sizes[0] = B;
  J.sizes[1] = count;
  J.in_strides[0] = xs0;
  J.in_strides[1] = hop * xs1;
  J.out_strides[0] = T * F;
  J.out_strides[1] = F;
  J.nrows = B * count;
  run_rows(J, also);
}

// out[b, e, j] = sample (e ? tail : 0) + j of x[b] (strides s0, s1, length L)
// padded by `pad` at both ends, j < E: elements of ES bytes.
template <int ES>
void padded_ends(const char* x, int64_t s0, int64_t s1, int64_t B, int64_t L, int64_t pad,
                 int mode, int64_t tail, int64_t E, void* out) {
  struct El {
    char b[ES];
  };
  const El* src = (const El*)x;
  El* dst = (El*)out;
  for (int64_t b = 0; b < B; ++b) {
    const El* xb = src + b * s0;
    for (int64_t base : {int64_t(0), tail}) {
      // j in [j0, j1): the signal's own samples; the rest padding
      const int64_t j0 = std::min(E, std::max<int64_t>(0, pad - base));
      const int64_t j1 = std::max(j0, std::min(E, pad + L - base));
      for (int64_t j = 0; j < E; ++j) {
        if (j == j0) {
          const El* from = xb + (base + j0 - pad) * s1;
          if (s1 == 1) {  // a contiguous run: one copy
            std::memcpy(dst, from, (size_t)(j1 - j0) * ES);
            dst += j1 - j0;
            j = j1;
          } else {
            for (; j < j1; ++j, from += s1) *dst++ = *from;
          }
          if (j == E) break;
        }
        const int64_t i = stft_pad_source(base + j, L, pad, mode);
        if (i < 0) std::memset(dst, 0, ES);
        else *dst = xb[i * s1];
        ++dst;
      }
    }
  }
}

at::Tensor stft(const at::Tensor& self, const at::Tensor& window, int64_t n_fft, int64_t hop,
                int64_t normalization, bool onesided, int64_t pad, c10::string_view pad_mode) {
  const int mode = stft_pad_mode(pad_mode);
  const StftShape sh = check_stft(self, n_fft, hop, normalization, onesided, pad, mode);
  const int64_t T = sh.T, F = sh.F, B = self.size(0), L = self.size(1);
  const auto t = self.scalar_type();
  const at::Tensor win = stft_window("stft", self, window, n_fft, compute_real(t));
  at::Tensor out = stft_output(self, sh, [](at::IntArrayRef shape, const at::TensorOptions& o) {
    return new_output(shape, o);
  });
  cx_axis_job J{};
  J.kind = self.is_complex() ? CX_C2C : CX_R2C;
  J.n = J.in_len = n_fft;
  J.out_len = F;
  J.scale = normalization ? 1.0 / std::sqrt((double)n_fft) : 1.0;
  J.in_type = storage_of(t);
  J.out_type = storage_of(out.scalar_type());
  J.out_stride = 1;
  J.win_in = win.const_data_ptr();
  // The first `head` frames start in the left padding, the last `tail` end
  // in the right one; the first and last k = max(head, tail) frames are
  // read from a small padded copy of the signal's two ends, the rest in
  // place from the signal: the padded signal is never made.
  const int64_t head = (pad + hop - 1) / hop;
  const int64_t inside = pad + L - n_fft >= 0 ? (pad + L - n_fft) / hop : -1;  // last frame in x
  const int64_t k = std::max(head, T - 1 - std::min(inside, T - 1));
  if (pad == 0 || 2 * k >= T) {  // no padding, or (short signals) no frame clear of it
    const at::Tensor x = stft_pad_signal(self, pad, mode);
    run_frames(J, x.const_data_ptr(), x.stride(0), x.stride(1), B, T, F, hop, 0, T, out);
    return out;
  }
  // ends[b, e, j]: sample ((T - k) * hop if e else 0) + j of the padded signal
  const int64_t E = (k - 1) * hop + n_fft, es = self.element_size();
  at::Tensor ends = at::empty({B, 2, E}, self.options());
  const char* src = (const char*)self.const_data_ptr();
  const auto fill = es == 2 ? padded_ends<2> : es == 4 ? padded_ends<4>
                  : es == 8 ? padded_ends<8> : padded_ends<16>;
  cx_axis_job Je = J;
  Je.in = ends.const_data_ptr();
  Je.in_stride = 1;
  Je.out = out.mutable_data_ptr();
  Je.nd = 3;
  Je.sizes[0] = B;
  Je.sizes[1] = 2;
  Je.sizes[2] = k;
  Je.in_strides[0] = 2 * E;
  Je.in_strides[1] = E;
  Je.in_strides[2] = hop;
  Je.out_strides[0] = T * F;
  Je.out_strides[1] = (T - k) * F;
  Je.out_strides[2] = F;
  Je.nrows = 2 * k * B;
  // the ends' copy and frames as the first item of the middle frames'
  // parallel loop: with two threads or more, the copy is off the path
  run_frames(J, src + (k * hop - pad) * self.stride(1) * es, self.stride(0), self.stride(1), B, T,
             F, hop, k, T - 2 * k, out, [&] {
               fill(src, self.stride(0), self.stride(1), B, L, pad, mode, (T - k) * hop, E,
                    ends.mutable_data_ptr());
               run_rows(Je);
             });
  return out;
}

// y[b, i] = sum_t frames[b, t, s - t*hop] / env[s], s = start + i (0 past
// the end of the signal), for b < B: the ISA kernel's run_ola
// (lanes_impl.h), a hop-long block of samples per item.
void overlap_add(const void* frames, bool is_double, const double* env, void* y, int out_type,
                 int64_t B, int64_t T, int64_t n_fft, int64_t hop, int64_t start,
                 int64_t length) {
  cx_ola_job J{};
  J.is_double = is_double;
  J.out_type = out_type;
  J.frames = frames;
  J.env = env;
  J.y = y;
  J.T = T;
  J.n_fft = n_fft;
  J.hop = hop;
  J.start = start;
  J.length = length;
  J.j0 = start / hop;
  J.nj = (start + length + hop - 1) / hop - J.j0;
  const IsaKernels& k = isa();
  at::parallel_for(0, B * J.nj, std::max<int64_t>(1, 4096 / hop), [&](int64_t q0, int64_t q1) {
    std::vector<double> acc((size_t)hop);  // room for hop scalars of either type
    k.ola(&J, q0, q1, acc.data());
  });
}

at::Tensor istft(const at::Tensor& self, const at::Tensor& window, int64_t n_fft, int64_t hop,
                 int64_t normalization, bool onesided, int64_t start, int64_t length) {
  check_istft(self, n_fft, hop, normalization, onesided, start, length);
  const int64_t B = self.size(0), F = self.size(1), T = self.size(2);
  const auto ct = compute_real(self.scalar_type());
  const at::Tensor win = stft_window("istft", self, window, n_fft, ct);
  // The window envelope, and the NOLA condition over the samples returned.
  const int64_t full = n_fft + hop * (T - 1);
  std::vector<double> env(full, 0.0);
  const at::Tensor wd = win.to(at::kDouble);
  const double* w = wd.const_data_ptr<double>();
  for (int64_t tt = 0; tt < T; ++tt)
    for (int64_t k = 0; k < n_fft; ++k) env[tt * hop + k] += w[k] * w[k];
  for (int64_t s = start; s < std::min(full, start + length); ++s)
    TORCH_CHECK(env[s] > 1e-11, "istft: the window fails the NOLA condition: the sum of squared ",
                "windows overlapping sample ", s, " is ", env[s], " (hop_length ", hop,
                ", n_fft ", n_fft, ")");
  const auto out_type = onesided ? c10::toRealValueType(self.scalar_type()) : self.scalar_type();
  at::Tensor y = new_output({B, length}, self.options().dtype(out_type));
  if (B == 0 || length == 0) return y;
  at::Tensor frames = new_output({B, T, n_fft}, self.options().dtype(
                                                   onesided ? ct : c10::toComplexType(ct)));
  cx_axis_job J{};
  J.kind = onesided ? CX_C2R : CX_C2C;
  J.conj_in = J.conj_out = !onesided;
  J.n = J.out_len = n_fft;
  J.in_len = F;
  J.scale = normalization == 1 ? 1.0 / std::sqrt((double)n_fft) : 1.0 / (double)n_fft;
  J.in = self.const_data_ptr();
  J.out = frames.mutable_data_ptr();
  J.in_type = storage_of(self.scalar_type());
  J.out_type = storage_of(frames.scalar_type());
  J.in_stride = self.stride(1);
  J.out_stride = 1;
  J.nd = 2;
  J.sizes[0] = B;
  J.sizes[1] = T;
  J.in_strides[0] = self.stride(0);
  J.in_strides[1] = self.stride(2);
  J.out_strides[0] = T * n_fft;
  J.out_strides[1] = n_fft;
  J.nrows = B * T;
  J.win_out = win.const_data_ptr();
  run_rows(J);
  const bool dbl = ct == at::kDouble;
  if (onesided) {
    overlap_add(frames.const_data_ptr(), dbl, env.data(), y.mutable_data_ptr(),
                storage_of(out_type), B, T, n_fft, hop, start, length);
  } else {
    // complex output: overlap-add the (re, im) pairs as two real signals
    at::Tensor fr = at::view_as_real(frames).movedim(-1, 1).contiguous();  // (B, 2, T, n)
    at::Tensor yr = new_output({B, 2, length}, self.options().dtype(ct));
    overlap_add(fr.const_data_ptr(), dbl, env.data(), yr.mutable_data_ptr(), dbl ? CX_F64 : CX_F32,
                2 * B, T, n_fft, hop, start, length);
    y.copy_(at::view_as_complex(yr.movedim(1, -1).contiguous()));
  }
  return y;
}

}  // namespace

TORCH_LIBRARY_IMPL(complexext, CPU, m) {
  m.impl("stft", &stft);
  m.impl("istft", &istft);
}

}  // namespace complexext
