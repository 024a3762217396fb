// The register FFT kernels (cx_reg_fft.h, which has the overview), part 1:
// the MODEs, the barrier, the plan of elements per thread and radices
// chosen at compile time, the run-time arguments, a complex value as one
// access, the twiddle units and the shared-memory padding.
#pragma once
#include "cx_half.h"
#include "cx_kdft.h"

#if !defined(CX_METAL)

#if defined(CX_CUDA)
#if defined(__CUDA_ARCH__)
#define CX_REG_BARRIER() __syncthreads()
#else
#define CX_REG_BARRIER() ((void)0)  // the host pass of a __host__ __device__ template
#endif
#else
// The CPU emulation runs each thread of a block as a coroutine; a barrier
// hands control back to the scheduler (csrc/emulation/reg_emulation.cpp).
void cx_emu_barrier();
// Every global and shared access of the emulated kernels is reported here
// (kind: 0 global load, 1 global store, 2 shared load, 3 shared store).
void cx_emu_note(int kind, const void* addr, int bytes);
#define CX_REG_BARRIER() cx_emu_barrier()
#endif

// MODE: how a kernel meets global memory (c2c), or a real transform (R2C,
// C2R: rows of 2N real samples on a complex kernel of length N, unit stride
// along the axis, read and written as the direct mode does), or one of the
// two passes of a transform of length L = N1 x N2 above 16384 (below, "Two
// passes"):
//   CX_REG_COLS_TW:   pass 1, a column tile as CX_REG_COLUMNS (rows q of
//                     length N1 with neighbouring q adjacent), each output k
//                     multiplied by exp(-2 pi i q k / L), q = row % inner;
//   CX_REG_FLAT_COLS: pass 2, the block's rows contiguous in the input, read
//                     flat through shared memory as the staged mode does,
//                     then transformed and stored as a column tile (lanes on
//                     neighbouring rows, adjacent in the output, o_axis apart
//                     along the axis): the transposing store of the four-step.
// And Bluestein's algorithm for a length n without a plan (a prime factor
// above 13) in one kernel of N >= 2n - 1 (below, "Bluestein"):
//   CX_REG_BLUESTEIN: rows of n values along a unit-stride axis, read and
//                     written as the direct mode does, both FFTs of N in
//                     registers.
// And the frames of a complex signal (stft, istft: cx_reg_args' pad, win):
//   CX_REG_FRAMES:    a c2c in the direct mode whose rows are frames of a
//                     padded signal (the padding read in place, as the R2C's
//                     frames do) and whose values take a real window as they
//                     load (stft) or as they are stored (istft, win_store).
enum {
  CX_REG_DIRECT = 0,
  CX_REG_STAGED = 1,
  CX_REG_COLUMNS = 2,
  CX_REG_R2C = 3,
  CX_REG_C2R = 4,
  CX_REG_COLS_TW = 5,
  CX_REG_FLAT_COLS = 6,
  CX_REG_BLUESTEIN = 7,
  CX_REG_FRAMES = 8
};

CX_CFN bool cx_reg_is_real(int mode) { return mode == CX_REG_R2C || mode == CX_REG_C2R; }

// The access mode whose shared-memory layout and thread mapping a kernel of
// MODE takes.
CX_CFN int cx_reg_access(int mode) {
  return cx_reg_is_real(mode) || mode == CX_REG_FRAMES ? CX_REG_DIRECT
         : mode == CX_REG_COLS_TW || mode == CX_REG_FLAT_COLS ? CX_REG_COLUMNS
                                                               : mode;
}

// ---- plan: elements per thread and radices, chosen at compile time ---------------
#define CX_REG_MAX_PASSES 16
// t threads a row; pass i: radix r[i], b[i] butterflies a thread (j = t +
// T*b for b < b[i], those with j >= n / r[i] idle), so b[i] * r[i] <= e
// registers in use. An exact plan (t * e == n, every r[i] dividing e) has
// every butterfly busy and b[i] = e / r[i].
struct cx_rplan {
  int n = 0, e = 0, np = 0, t = 0;
  int r[CX_REG_MAX_PASSES] = {};
  int b[CX_REG_MAX_PASSES] = {};
};

CX_CFN int cx_rgcd(int a, int b) {
  while (b != 0) {
    const int t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// Passes of n with e elements per thread: each radix the largest common
// divisor of what is left and e (so every pass divides e); np = 0 if that
// does not reach 1 or a radix has no butterfly.
CX_CFN cx_rplan cx_rplan_with(int n, int e) {
  cx_rplan p;
  p.n = n;
  p.e = e;
  int rest = n;
  while (rest > 1) {
    const int R = cx_rgcd(rest, e);
    if (R <= 1 || !cx_kdft_ok(R) || p.np == CX_REG_MAX_PASSES) {
      p.np = 0;
      return p;
    }
    p.b[p.np] = e / R;
    p.r[p.np++] = R;
    rest /= R;
  }
  if (n == 1) p.np = 0;
  p.t = n / e;
  return p;
}

// Cost of a plan in units of one exact pass over the row: each pass its
// registers' worth (t * b * r / n: idle butterflies cost as busy ones), each
// exchange half a pass (x 1000).
CX_CFN int cx_rplan_cost(const cx_rplan& p) {
  int c = 0;
  for (int i = 0; i < p.np; ++i) c += (int)((long long)p.t * p.b[i] * p.r[i] * 1000 / p.n);
  return c + 500 * (p.np - 1);
}

// The plan of radices r[0..np) with t threads a row (b[i] = ceil(n / (r[i] t))),
// np = 0 if a pass would hold more than 32 values a thread.
CX_CFN cx_rplan cx_rplan_idle_with(int n, const int* r, int np, int t) {
  cx_rplan p;
  p.n = n;
  p.t = t;
  p.np = np;
  for (int i = 0; i < np; ++i) {
    p.r[i] = r[i];
    p.b[i] = (n / r[i] + t - 1) / t;
    if (p.b[i] * r[i] > 32) p.np = 0;
    if (p.b[i] * r[i] > p.e) p.e = p.b[i] * r[i];
  }
  return p;
}

// The cheapest plan of np = 2 or 3 passes over radices that need not divide
// one count of values a thread: for each sequence of radices up to 32 (the
// last one the quotient), the thread counts that make one pass exact.
// np = 0 if there is none.
CX_CFN cx_rplan cx_rplan_idle(int n, int np) {
  cx_rplan best;
  best.n = n;
  int rad[3] = {};
  for (int a = 2; a <= 32; ++a) {
    if (n % a != 0 || !cx_kdft_ok(a)) continue;
    for (int c = 2; c <= 32; ++c) {
      if ((n / a) % c != 0 || !cx_kdft_ok(c)) continue;
      const int last = n / a / c;
      if (np == 2 ? last != 1 : (last < 2 || last > 32 || !cx_kdft_ok(last))) continue;
      rad[0] = a;
      rad[1] = c;
      rad[2] = last;
      for (int i = 0; i < np; ++i) {
        for (int m = 1; m * rad[i] <= 32; ++m) {
          if ((n / rad[i]) % m != 0) continue;
          const int t = n / rad[i] / m;
          if (t > 512) continue;
          const cx_rplan p = cx_rplan_idle_with(n, rad, np, t);
          if (p.np == 0) continue;
          const int de = p.e > 16 ? p.e - 16 : 16 - p.e, db = best.e > 16 ? best.e - 16 : 16 - best.e;
          const int cp = cx_rplan_cost(p), cb = best.np ? cx_rplan_cost(best) : 0;
          if (best.np == 0 || cp < cb || (cp == cb && de < db)) best = p;
        }
      }
    }
  }
  return best;
}

// The exact plan of n: fewest passes, then e nearest 16, over e | n with e <= 32
// (16 up to n = 64, where one pass of 32 in one thread would hold too many
// registers) and at most 512 threads per row. np = 0: no register plan (n has a prime
// factor above 13, or n is 1 or above 16384).
CX_CFN cx_rplan cx_rplan_exact(int n) {
  cx_rplan best;
  best.n = n;
  if (n < 2 || n > 16384) return best;
  const int emax = n <= 64 ? 16 : 32;  // short rows: two passes of 16 rather than one of 32
  for (int e = 2; e <= emax; ++e) {
    if (n % e != 0 || n / e > 512) continue;
    const cx_rplan p = cx_rplan_with(n, e);
    if (p.np == 0) continue;
    const int de = e > 16 ? e - 16 : 16 - e, db = best.e > 16 ? best.e - 16 : 16 - best.e;
    if (best.np == 0 || p.np < best.np || (p.np == best.np && de < db)) best = p;
  }
  return best;
}

// The radices of n: the exact plan, unless one with idle butterflies in a
// pass costs less (cx_rplan_cost): 480 = 15 x 32 on 16 threads (the
// radix-32 pass with 15 of 16 threads busy) rather than 30 x 2^4 in five
// passes. Only fewer passes can cost less, so rows of n <= 1024 are tried in
// two and plans of four passes or more in three. (The order of an exact
// plan's passes: cx_rplan_choose, cx_reg_shape.h.)
CX_CFN cx_rplan cx_rplan_radices(int n) {
  const cx_rplan ex = cx_rplan_exact(n);
  if (n > 16384 || n <= 64) return ex;
  cx_rplan best = ex;
  for (int np = 2; np <= 3; ++np) {
    if (np == 2 && n > 1024) continue;
    if (ex.np != 0 && ex.np <= np) continue;
    const cx_rplan p = cx_rplan_idle(n, np);
    if (p.np != 0 && (best.np == 0 || cx_rplan_cost(p) < cx_rplan_cost(best))) best = p;
  }
  return best;
}

// The plan of n: cx_rplan_radices(n), its passes in the order that
// cx_reg_shape.h's models find best (defined there).
CX_CFN cx_rplan cx_rplan_choose(int n);

// The plan of the kernel of length n in mode `mode`: cx_rplan_choose(n),
// but for Bluestein's kernel of 8192, 16 values a thread on 512 threads
// (radices 16 16 2 16) where the choice is 32 on 256 (32 32 8): the two FFTs
// with the chirp and the filter need more registers than 32 values a thread
// leave at 16 warps an SM (docs/cuda.md, "Bluestein in one kernel"). The 2
// sits before the last 16 so that the first and last passes share their
// layout, and no exchange runs between the two FFTs.
CX_CFN cx_rplan cx_rplan_of(int n, int mode) {
  if (mode == CX_REG_BLUESTEIN && n == 8192) {
    cx_rplan p = cx_rplan_with(n, 16);  // 16 16 16 2
    const int l = p.np - 1, r = p.r[l], b = p.b[l];
    p.r[l] = p.r[l - 1];
    p.b[l] = p.b[l - 1];
    p.r[l - 1] = r;
    p.b[l - 1] = b;
    return p;
  }
  return cx_rplan_choose(n);
}

// ---- run-time arguments ---------------------------------------------------------
// q = n / d for 0 <= n < 2^31 with one multiply-high (Granlund-Montgomery).
struct cx_fastdiv {
  cx_u32 d, m, s;
};
CX_FN cx_fastdiv cx_fastdiv_make(cx_u32 d) {
  cx_fastdiv f;
  f.d = d;
  cx_u32 s = 0;
  while (s < 31 && ((cx_u32)1 << s) < d) ++s;
  f.s = s;
  const unsigned long long two32 = 1ull << 32;
  f.m = (cx_u32)((two32 * (((unsigned long long)1 << s) - d)) / d + 1);
  return f;
}
CX_FN cx_u32 cx_fastdiv_div(cx_u32 n, cx_fastdiv f) {
#if defined(CX_CUDA) && defined(__CUDA_ARCH__)
  const cx_u32 hi = __umulhi(n, f.m);
#else
  const cx_u32 hi = (cx_u32)(((unsigned long long)n * f.m) >> 32);
#endif
  return (hi + n) >> f.s;
}

// One job: rows of a tensor transformed along one axis. Row r (r < nrows
// < 2^31) starts at (r / inner) * stride0 + (r % inner) * stride1 of the
// input (in complex elements; o_stride0/1 for the output).
template <typename S>
struct cx_reg_args {
  const void* in;
  void* out;
  int nrows;
  cx_fastdiv inner;
  cx_i64 i_stride0, i_stride1, o_stride0, o_stride1;
  int i_axis, o_axis;  // element strides along the axis
  int conj_in, conj_out;
  S scale;
  // Optional, for the stft and istft (zero / null otherwise):
  const S* win;  // window of 2N values: R2C on the load, C2R on the store
  // Rows of N + 1 bins laid end to end (R2C out, C2R in) and T < 32: the
  // block's bins move as one flat run through shared memory, whole sectors
  // (a row of N + 1 starts mid-sector; T lanes of it would split sectors).
  int flat;
  // Frames of a padded signal (R2C): element j of row r is
  // sample (r % inner) * i_stride1 - pad + j of signal r / inner, which
  // starts at (r / inner) * i_stride0 and holds sig_len samples; outside
  // them, pad_mode as torch.nn.functional.pad names it (cx_reg_pad_src).
  int pad, pad_mode;
  cx_i64 sig_len;
  // CX_REG_COLS_TW: L, the length of the whole transform (the twiddles'
  // period); zero otherwise. tw_outer: the column q of row r is r / inner
  // (1: rows (q, b), a strided axis whose batch rows b lie adjacent) rather
  // than r % inner (0: rows (b, q), a unit-stride axis).
  int tw_len, tw_outer;
  // CX_REG_BLUESTEIN: rows of blue_n values; blue_2n = 2 blue_n, the chirp's
  // period; filter: the N values of the chirp's spectrum, 1/N included
  // (gpu_plan.h). Zero / null otherwise.
  int blue_n;
  cx_fastdiv blue_nd, blue_2n;  // divisions by n (the flat copy) and by 2n
  S blue_inv_n;  // 1 / blue_n, rounded once on the host
  int blue_step_q, blue_step_m;  // the block's threads BT = q n + m (the flat copy)
  int blue_q;                    // the flat copy's row stride in shared memory
  const S* filter;
  // CX_REG_FRAMES: the window (win, N real values) multiplies the values as
  // they are stored (the istft's frames) rather than as they load.
  int win_store;
};

// The sample of a signal of L samples at position i (-L < i < 2L) of the
// signal padded in `mode` (0 constant, 1 reflect, 2 replicate, 3 circular;
// stft_pad_source in csrc/args/stft_args.h is the host's twin), or -1 for a zero.
CX_FN cx_i64 cx_reg_pad_src(cx_i64 i, cx_i64 L, int mode) {
  if (i >= 0 && i < L) return i;
  if (mode == 1) return i < 0 ? -i : 2 * (L - 1) - i;
  if (mode == 2) return i < 0 ? 0 : L - 1;
  if (mode == 3) return i < 0 ? i + L : i - L;
  return -1;
}

// ---- storage: a complex value as one access (fp16 pairs as 32 bits) -------------
template <typename S>
CX_FN cx<S> cx_reg_ld(const CX_GLOBAL cx_half_t* p, cx_i64 i) {
#if defined(CX_CUDA)
  const float2 f = cx_h2_to_f2(reinterpret_cast<const CX_GLOBAL cx_u32*>(p)[i]);
  return cx_make<S>((S)f.x, (S)f.y);
#else
  cx_emu_note(0, p + 2 * i, 4);
  return cx_make<S>((S)cx_half_to_float(p[2 * i]), (S)cx_half_to_float(p[2 * i + 1]));
#endif
}
template <typename S>
CX_FN cx<S> cx_reg_ld(const CX_GLOBAL float* p, cx_i64 i) {
#if defined(CX_CUDA)
  const float2 f = reinterpret_cast<const float2*>(p)[i];
  return cx_make<S>((S)f.x, (S)f.y);
#else
  cx_emu_note(0, p + 2 * i, 8);
  return cx_make<S>((S)p[2 * i], (S)p[2 * i + 1]);
#endif
}
template <typename S>
CX_FN cx<S> cx_reg_ld(const CX_GLOBAL double* p, cx_i64 i) {
#if defined(CX_CUDA)
  const double2 f = reinterpret_cast<const double2*>(p)[i];
  return cx_make<S>((S)f.x, (S)f.y);
#else
  cx_emu_note(0, p + 2 * i, 16);
  return cx_make<S>((S)p[2 * i], (S)p[2 * i + 1]);
#endif
}
// One real value (a window's).
template <typename S>
CX_FN S cx_reg_ld1(const CX_GLOBAL S* p, cx_i64 i) {
#if !defined(CX_CUDA)
  cx_emu_note(0, p + i, (int)sizeof(S));
#endif
  return p[i];
}
template <typename S>
CX_FN void cx_reg_st(CX_GLOBAL cx_half_t* p, cx_i64 i, cx<S> z) {
#if defined(CX_CUDA)
  reinterpret_cast<CX_GLOBAL cx_u32*>(p)[i] = cx_f2_to_h2((float)z.re, (float)z.im);
#else
  cx_emu_note(1, p + 2 * i, 4);
  p[2 * i] = cx_float_to_half((float)z.re);
  p[2 * i + 1] = cx_float_to_half((float)z.im);
#endif
}
template <typename S>
CX_FN void cx_reg_st(CX_GLOBAL float* p, cx_i64 i, cx<S> z) {
#if defined(CX_CUDA)
  reinterpret_cast<float2*>(p)[i] = make_float2((float)z.re, (float)z.im);
#else
  cx_emu_note(1, p + 2 * i, 8);
  p[2 * i] = (float)z.re;
  p[2 * i + 1] = (float)z.im;
#endif
}
template <typename S>
CX_FN void cx_reg_st(CX_GLOBAL double* p, cx_i64 i, cx<S> z) {
#if defined(CX_CUDA)
  reinterpret_cast<double2*>(p)[i] = make_double2((double)z.re, (double)z.im);
#else
  cx_emu_note(1, p + 2 * i, 16);
  p[2 * i] = (double)z.re;
  p[2 * i + 1] = (double)z.im;
#endif
}
template <typename S>
CX_FN cx<S> cx_reg_lds(const CX_SHARED cx<S>* p, int i) {
#if !defined(CX_CUDA)
  cx_emu_note(2, p + i, (int)sizeof(cx<S>));
#endif
  return p[i];
}
template <typename S>
CX_FN void cx_reg_sts(CX_SHARED cx<S>* p, int i, cx<S> z) {
#if !defined(CX_CUDA)
  cx_emu_note(3, p + i, (int)sizeof(cx<S>));
#endif
  p[i] = z;
}

// exp(-2 pi i k / m), 0 <= k < m.
template <typename S>
CX_FN cx<S> cx_reg_unit(int k, int m);
template <>
CX_FN cx<float> cx_reg_unit<float>(int k, int m) {
  float s, c;
#if defined(CX_CUDA)
  sincospif(-2.0f * (float)k / (float)m, &s, &c);
#else
  const double a = -6.283185307179586476925 * (double)k / (double)m;
  s = (float)__builtin_sin(a);
  c = (float)__builtin_cos(a);
#endif
  return cx_make<float>(c, s);
}
template <>
CX_FN cx<double> cx_reg_unit<double>(int k, int m) {
  double s, c;
#if defined(CX_CUDA)
  sincospi(-2.0 * (double)k / (double)m, &s, &c);
#else
  const double a = -6.283185307179586476925 * (double)k / (double)m;
  s = __builtin_sin(a);
  c = __builtin_cos(a);
#endif
  return cx_make<double>(c, s);
}

// exp(-2 pi i k / M), 0 <= k < M, M a compile-time constant: the angle's
// quotient by one multiply with -2 / M rounded once, rather than a
// division (within an ulp of it). A power of two keeps the division, which
// is exact and compiles to a multiply anyway (and so to the code it had:
// ptxas schedules the staged kernels' loads of 32 and 64 values ahead of
// it, not behind).
template <int M, typename S>
CX_FN cx<S> cx_reg_unit_c(int k) {
#if defined(CX_CUDA)
  if constexpr ((M & (M - 1)) == 0) return cx_reg_unit<S>(k, M);
  constexpr S c = (S)(-2.0 / (double)M);
  S s, co;
  if constexpr (sizeof(S) == 4) {
    sincospif((S)k * c, &s, &co);
  } else {
    sincospi((S)k * c, &s, &co);
  }
  return cx_make<S>(co, s);
#else
  return cx_reg_unit<S>(k, M);
#endif
}

// Padded slot of index a of a row in shared memory: one spare slot after
// every P values, P chosen per exchange (cx_reg_best_pad); the row pitch
// leaves room for P >= 8 and is odd.
CX_CFN int cx_reg_pad(int a, int P) { return a + a / P; }
CX_CFN int cx_reg_pad(int a) { return a + (a >> 4); }
CX_CFN int cx_reg_pitch_base(int n) { return (n + n / 8 + 1) | 1; }

#endif  // !defined(CX_METAL)
