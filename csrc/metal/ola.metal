// ISTFT overlap-add by gathering: one thread per output value, which sums
// the frames covering its sample and divides by the window envelope. No
// atomics, so the result does not depend on scheduling (the CPU kernel's
// order of summation, frame by frame upwards).
//
//   s = start + i
//   y[b, i, c] = sum_{t: 0 <= s - t*hop < n_fft} frames[b, t, s - t*hop, c] / env[s]
//              (0 where s is past the end of the overlap-added signal)
//
// frames: fp32, (B, T, n_fft, C) contiguous, already windowed (the FFT
// kernel multiplies by the window as it stores them); C = 2 for complex.
#include "meta.h"
#include "storage.h"

template <typename To>
CX_FN void mtl_ola(const CX_GLOBAL float* frames, const CX_GLOBAL float* env, CX_GLOBAL To* y,
                   const CX_CONST cx_i64* M, uint gid) {
  const cx_i64 T = M[OLA_T], n = M[OLA_NFFT], hop = M[OLA_HOP], C = M[OLA_C];
  const cx_i64 length = M[OLA_LENGTH];
  const cx_i64 idx = (cx_i64)gid;
  if (idx >= M[OLA_B] * length * C) return;
  const cx_i64 c = idx % C, i = (idx / C) % length, b = idx / (C * length);
  const cx_i64 s = M[OLA_START] + i;
  float acc = 0.0f;
  if (s < n + hop * (T - 1)) {
    const cx_i64 t_hi = s / hop < T - 1 ? s / hop : T - 1;
    const cx_i64 t_lo = s >= n ? (s - n) / hop + 1 : 0;
    const CX_GLOBAL float* f = frames + b * T * n * C + c;
    for (cx_i64 t = t_lo; t <= t_hi; ++t) acc += f[(t * n + s - t * hop) * C];
    acc /= env[s];
  }
  mtl_put_real(y, idx, acc);
}

#define MTL_OLA_KERNEL(NAME, TO)                                                               \
  kernel void NAME(device const float* frames [[buffer(0)]], device const float* env [[buffer(1)]], \
                   device TO* y [[buffer(2)]], constant long* meta [[buffer(3)]],                \
                   uint gid [[thread_position_in_grid]]) {                                       \
    mtl_ola<TO>(frames, env, y, meta, gid);                                                      \
  }

MTL_OLA_KERNEL(cx_ola_h, cx_half_t)
MTL_OLA_KERNEL(cx_ola_f, float)
