// Register-resident FFT of a compile-time length N: the block code of the
// CUDA kernels of csrc/cuda/fft_reg*.cu, which the CPU tests run thread by
// thread (csrc/emulation/reg_emulation.cpp) with every memory access counted.
//
// A row of N complex values is held by T threads, at most E values each in
// registers. The passes of radices R_0 .. R_{P-1} (product N) are Stockham
// passes; in pass i thread t owns butterflies j = t + T*b, b < B_i, and
// holds their inputs j + (N/R_i)*r in slots b + r*B_i: the layout of pass i.
// A butterfly with j >= N/R_i is idle (when T*B_i > N/R_i: 480 = 15 x 32 on
// 16 threads, 15 of them busy in the radix-32 pass), and B_i * R_i <= E.
// Where every R_i divides E and T = N/E (an exact plan), B_i = E/R_i and
// every pass's layout is the "natural" one, element t + T*s in slot s.
//
//   v = load(pass 0's layout)                  all loads before any arithmetic
//   for pass i (radix R, ns = R_0 ... R_{i-1}):
//     for b < B_i:  j = t + T*b, k = j % ns
//       u[r] = v[b + r*B_i] * w^(r*k),  w = exp(-2 pi i k / (ns*R))
//       u = DFT_R(u)                       (constants as immediates)
//       element (j/ns)*ns*R + k + r*ns  <-  u[r]
//     exchange through shared memory (unless last): write those elements,
//     barrier, read pass i+1's layout, barrier
//   y = scale * v                              the last pass's outputs j + r*N/R are
//                                              its own layout: stored from there
//
// Three ways to meet global memory (MODE):
//   CX_REG_DIRECT:  rows along a unit-stride axis, T * element size >= 32 bytes:
//                   lane-consecutive threads read consecutive elements;
//   CX_REG_STAGED:  rows whose T is too small for whole sectors: the block's
//                   rows are read flat (thread g takes elements g + BT*i of the
//                   block's RPB*N) into shared memory, then read in pass 0's
//                   layout; the store mirrors it;
//   CX_REG_COLUMNS: a strided axis whose neighbouring rows are adjacent in
//                   memory: lanes take neighbouring rows (a tile of RPB
//                   columns), so a warp reads whole sectors across rows.
//
// Shared memory holds one padded row per row of the block; index a of a row
// sits at a + (a >> 4) (one spare slot per 16 values), and the row pitch is
// odd, which keeps the Stockham writes and the column tiles free of bank
// conflicts (counted by the emulation, benchmarks/cuda_emulation.py).
//
// Twiddles are computed, not read: one sincospi per butterfly, its powers
// by complex products in a tree (depth log2 R). Index arithmetic is 32-bit;
// a row's offset comes from at most two batch dims with the division by
// the inner size precomputed on the host (cx_fastdiv).
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

// The plan of n: the exact plan, unless one with idle butterflies in a pass
// costs less (cx_rplan_cost): 480 = 15 x 32 on 16 threads (the radix-32 pass
// with 15 of 16 threads busy) rather than 30 x 2^4 in five passes. Only
// fewer passes can cost less, so rows of n <= 1024 are tried in two and
// plans of four passes or more in three.
CX_CFN cx_rplan cx_rplan_choose(int n) {
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

// Padded slot of index a of a row in shared memory: one spare slot after
// every P values, P chosen per exchange (cx_reg_best_pad); the row pitch
// leaves room for P >= 8 and is odd.
CX_CFN int cx_reg_pad(int a, int P) { return a + a / P; }
CX_CFN int cx_reg_pad(int a) { return a + (a >> 4); }
CX_CFN int cx_reg_pitch_base(int n) { return (n + n / 8 + 1) | 1; }

// ---- the lengths compiled ahead of time, and rows per block ------------------------
// X(N) for every length with a register kernel (the CUDA files and the
// emulation instantiate the same list).
#define CX_REG_LENGTHS(X)                                                                        \
  X(16) X(32) X(64) X(128) X(256) X(512) X(1024) X(2048) X(4096) X(8192) X(16384) X(160)         \
  X(200) X(320) X(400) X(480) X(640) X(800) X(960) X(1000) X(1200) X(1600) X(2000)

CX_CFN bool cx_reg_has(int n) {
#define CX_REG_HAS(N) \
  if (n == N) return true;
  CX_REG_LENGTHS(CX_REG_HAS)
#undef CX_REG_HAS
  return false;
}

// Any other length with a register plan (cx_rplan_choose(n).np > 0; on the
// host, cx_reg_plan_host in cx_reg_plans.h) has a kernel the CUDA binding
// compiles at first use (NVRTC).

// Rows per block: a power of two giving about 256 threads while the rows
// fit 32 KiB of fp32 values; a column tile takes up to 16 rows (whole
// sectors across neighbouring rows) while the block stays within 512
// threads, so that 128 registers a thread still fit 16 warps per SM.
CX_CFN int cx_reg_rpb_of(const cx_rplan& p, int mode) {
  const int n = p.n, t = p.t;
  int want = 256 / t;
  const int by_smem = 32768 / (8 * (cx_reg_pitch_base(n) + 16));
  if (want > by_smem) want = by_smem;
  if (cx_reg_access(mode) == CX_REG_COLUMNS && want < 16) want = 512 / t < 16 ? 512 / t : 16;
  int r = 1;
  while (2 * r <= want) r *= 2;
  // staged: a whole number of 32-byte sectors of fp16 pairs per flat step
  while (mode == CX_REG_STAGED && (r * t) % 8 != 0 && r * t < 512) r *= 2;
  return r;
}
CX_CFN int cx_reg_rpb(int n, int mode) { return cx_reg_rpb_of(cx_rplan_choose(n), mode); }

// Which access modes are compiled for n: the staged mode only where a row's
// threads cannot cover one 32-byte sector of fp16 pairs (T < 8; a row of
// T = 20 or 50 reads runs of 80 or 200 bytes directly, a few part-sectors
// rather than a second exchange), the column tile where it holds 2 rows.
CX_CFN bool cx_reg_mode_ok_of(const cx_rplan& p, int mode) {
  const int t = p.t;
  if (mode == CX_REG_STAGED) return t < 8;
  if (mode == CX_REG_COLUMNS) return cx_reg_rpb_of(p, mode) >= 2;
  if (cx_reg_is_real(mode)) return t >= 8;  // whole sectors of fp16 pairs; shorter rows: block kernels
  // the two passes: a tile of at least 8 rows (32 bytes of fp16 pairs across it)
  if (mode == CX_REG_COLS_TW || mode == CX_REG_FLAT_COLS) return cx_reg_rpb_of(p, mode) >= 8;
  // Bluestein: whole sectors of a row's fp16 pairs (8 threads), N a power of
  // two up to 4096 (cx_reg_blue_len)
  if (mode == CX_REG_BLUESTEIN) return t >= 8 && (p.n & (p.n - 1)) == 0 && p.n <= 4096;
  // a complex signal's frames: whole sectors of a frame's fp16 pairs (8
  // threads), frames up to 4096 (longer ones: the block kernels)
  // (exact plans: 480's, with idle butterflies, took more registers than
  // 16 warps leave)
  if (mode == CX_REG_FRAMES) return t >= 8 && p.n <= 4096 && p.t * p.e == p.n;
  return mode == CX_REG_DIRECT;
}
CX_CFN bool cx_reg_mode_ok(int n, int mode) { return cx_reg_mode_ok_of(cx_rplan_choose(n), mode); }

// The lengths whose two-pass kernels (CX_REG_COLS_TW, CX_REG_FLAT_COLS) are
// compiled ahead of time: the factors of the powers of two 2^15 .. 2^20 in
// two passes of whole 16-row tiles. Other factors are compiled at first use.
#define CX_REG_SPLIT_LENGTHS(X) X(128) X(256) X(512) X(1024)
CX_CFN bool cx_reg_split_has(int n) {
#define CX_REG_SPLIT_HAS(N) \
  if (n == N) return true;
  CX_REG_SPLIT_LENGTHS(CX_REG_SPLIT_HAS)
#undef CX_REG_SPLIT_HAS
  return false;
}
// Whether storage types Ti -> To occur in MODE: pass 1 of two writes the
// work buffer in the compute type S, pass 2 reads it (fft_driver.h).
template <class A, class B>
struct cx_reg_same_t {
  static constexpr bool value = false;
};
template <class A>
struct cx_reg_same_t<A, A> {
  static constexpr bool value = true;
};
template <int MODE, typename S, typename Ti, typename To>
CX_CFN bool cx_reg_types_ok() {
  // (the frames: the stft keeps its type, the istft writes the compute type)
  return MODE == CX_REG_COLS_TW ? cx_reg_same_t<To, S>::value
         : MODE == CX_REG_FLAT_COLS ? cx_reg_same_t<Ti, S>::value
         : MODE == CX_REG_FRAMES ? !(cx_reg_same_t<Ti, S>::value && !cx_reg_same_t<To, S>::value)
                                 : true;
}
// Bluestein's N for a row of n values (2n - 1 <= N): the power of two, at
// least 128 (8 threads a row), up to 4096; 0 above n = 2048. (At N = 8192,
// 32 values a thread on 256 threads, the two FFTs with the chirp and the
// filter take more registers than 16 warps an SM leave: ptxas spills 96
// bytes at 128 registers, or takes 206 without the bound. n = 2049 .. 8192
// take the block kernels.)
CX_CFN int cx_reg_blue_len(int n) {
  int m = 128;
  while (m < 2 * n - 1) m *= 2;
  return m <= 4096 ? m : 0;
}
// Whether kernel (N, MODE) is compiled ahead of time (the CUDA files and the
// emulation instantiate exactly these; cx_reg_blue_len gives powers of two
// only, all of them in CX_REG_LENGTHS).
CX_CFN bool cx_reg_aot(int n, int mode) {
  return cx_reg_mode_ok(n, mode) &&
         (mode == CX_REG_COLS_TW || mode == CX_REG_FLAT_COLS ? cx_reg_split_has(n) : true);
}

// Where slot s of pass i's registers sits in the row: butterfly s % b[i],
// input s / b[i] of it, element t + cx_reg_at(p, i, s) (for an exact plan,
// t + T*s in every pass: the natural layout); whether thread t has it.
CX_CFN int cx_reg_at(const cx_rplan& p, int i, int s) {
  return p.t * (s % p.b[i]) + (p.n / p.r[i]) * (s / p.b[i]);
}
CX_CFN bool cx_reg_busy(const cx_rplan& p, int i, int s, int t) {
  return t + p.t * (s % p.b[i]) < p.n / p.r[i];
}

// ---- a compile-time model of the shared-memory banks -------------------------------
// Wavefronts of one 8-byte access by up to 16 lanes (a half warp: 32 banks
// of 4 bytes): the most distinct slots that share a bank pair.
CX_CFN int cx_reg_wavefronts(const int* slot, int count) {
  int per_bank[16] = {};
  int most = 0;
  for (int j = 0; j < count; ++j) {
    bool seen = false;  // a slot read twice is one broadcast
    for (int m = 0; m < j; ++m) seen = seen || slot[m] == slot[j];
    if (seen) continue;
    const int c = ++per_bank[slot[j] % 16];
    most = c > most ? c : most;
  }
  return most;
}

// Wavefronts per half-warp access (x1000) of exchange x (after pass x) of
// the plan of n with period P: the Stockham writes and the natural reads of
// the block's first warp (the pattern repeats past it).
CX_CFN int cx_reg_exchange_cost(const cx_rplan& p, int mode, int x, int P, int pitch,
                                 int sample = 32) {
  const int T = p.t, rpb = cx_reg_rpb_of(p, mode), bt = rpb * T;
  const int lanes = bt < 32 ? bt : 32;
  int ns = 1;
  for (int i = 0; i < x; ++i) ns *= p.r[i];
  const int R = p.r[x], B = p.b[x];
  int total = 0, groups = 0;
  // k < kw: write slot k of pass x; else read slot k - kw of pass x + 1;
  // `sample` of each (all: 32); lanes without the slot make no access
  const int nw = B * R, nr = p.b[x + 1] * p.r[x + 1];
  const int kw = sample < nw ? sample : nw, kr = sample < nr ? sample : nr;
  for (int k = 0; k < kw + kr; ++k) {
    for (int g0 = 0; g0 < lanes; g0 += 16) {
      int slot[16] = {};
      int c = 0;
      for (int l = g0; l < g0 + 16 && l < lanes; ++l) {
        const int rl = mode == CX_REG_COLUMNS ? l % rpb : l / T;
        const int t = mode == CX_REG_COLUMNS ? l / rpb : l % T;
        int a = 0;
        if (k < kw) {
          if (!cx_reg_busy(p, x, k, t)) continue;
          const int b = k % B, r = k / B, j = t + T * b;
          a = (j / ns) * ns * R + j % ns + r * ns;
        } else {
          if (!cx_reg_busy(p, x + 1, k - kw, t)) continue;
          a = t + cx_reg_at(p, x + 1, k - kw);
        }
        slot[c++] = rl * pitch + cx_reg_pad(a, P);
      }
      if (c == 0) continue;
      total += cx_reg_wavefronts(slot, c);
      ++groups;
    }
  }
  return groups ? total * 1000 / groups : 1000;
}

// The period of exchange x with row pitch `pitch`: the fewest modelled
// wavefronts over a few candidates (powers of two first: their slots cost
// a shift); *cost receives that figure.
CX_CFN int cx_reg_best_pad(const cx_rplan& p, int mode, int x, int pitch, int* cost) {
  const int n = p.n, T = p.t;
  int ns = 1;
  for (int i = 0; i < x; ++i) ns *= p.r[i];
  // (the pass's radix and ns * radix: periods at which its Stockham writes,
  // stride R where ns = 1, land one slot apart in the banks)
  const int cand[10] = {16, 32, 8, 64, p.e, T, 2 * T, 4 * T, p.r[x], ns * p.r[x]};
  int best = 16;
  *cost = -1;
  for (int i = 0; i < 10; ++i) {
    const int P = cand[i];
    if (P < 8 || P > n) continue;
    const int c = cx_reg_exchange_cost(p, mode, x, P, pitch);
    if (*cost < 0 || c < *cost) {
      *cost = c;
      best = P;
    }
  }
  return best;
}

// The row pitch: where a warp spans several rows (T < 32, not the column
// tile, whose lanes need an odd pitch), the base pitch plus the offset
// below 16 that the bank model finds best over all exchanges.
CX_CFN int cx_reg_pitch_p(const cx_rplan& p, int mode) {
  const int n = p.n;
  const int base = cx_reg_pitch_base(n);
  if (p.t >= 32 || mode == CX_REG_COLUMNS || p.np < 2) return base;
  int best = base, best_cost = -1;
  for (int d = 0; d < 16; ++d) {
    int total = 0;  // periods 16 and E, the first 4 writes and reads of each exchange
    for (int x = 0; x + 1 < p.np; ++x) {
      const int a = cx_reg_exchange_cost(p, mode, x, 16, base + d, 4);
      const int b = cx_reg_exchange_cost(p, mode, x, p.e, base + d, 4);
      total += a < b ? a : b;
    }
    if (best_cost < 0 || total < best_cost) {
      best_cost = total;
      best = base + d;
    }
  }
  return best;
}
CX_CFN int cx_reg_pitch(int n, int mode) { return cx_reg_pitch_p(cx_rplan_choose(n), mode); }

// Slot of index a + K (K a compile-time constant) from a and pad(a, P): a
// constant offset from pad(a, P) when K is a multiple of P, or when a is
// known to be one (AP), so that the compiler folds it into the access.
template <int K, int P, bool AP>
CX_FN int cx_reg_slot(int a, int pa) {
  if constexpr (K % P == 0 || AP) {
    return pa + K + K / P;
  } else {
    return cx_reg_pad(a + K, P);
  }
}

// The padding period of exchange X of length N in MODE (the staged mode's
// load and store exchanges use 16).
template <int N, int MODE>
struct cx_reg_pitch_of {
  static constexpr int value = cx_reg_pitch(N, MODE);
};
template <int N, int MODE, int X>
struct cx_reg_padp {
  static CX_CFN int cost_and_pad(int* c) {
    return cx_reg_best_pad(cx_rplan_choose(N), MODE, X, cx_reg_pitch_of<N, MODE>::value, c);
  }
  static CX_CFN int pad() {
    int c = 0;
    return cost_and_pad(&c);
  }
  static constexpr int value = pad();
};

// ---- the kernel's compile-time shape ---------------------------------------------
template <int N, int RPB_, int MODE_>
struct cx_reg_shape {
  static constexpr cx_rplan P = cx_rplan_choose(N);
  static_assert(P.np > 0, "cx_reg_shape: no register plan for this length");
  static constexpr int E = P.e, T = P.t, NP = P.np, RPB = RPB_, BT = RPB_ * P.t;
  static constexpr int PITCH = cx_reg_pitch_of<N, cx_reg_access(MODE_)>::value;

  // radix and ns of pass I
  template <int I>
  static CX_CFN int radix() { return P.r[I]; }
  template <int I>
  static CX_CFN int ns() {
    int s = 1;
    for (int i = 0; i < I; ++i) s *= P.r[i];
    return s;
  }
  // butterflies a thread in pass I, and its registers in use
  template <int I>
  static CX_CFN int nb() { return P.b[I]; }
  template <int I>
  static CX_CFN int slots() { return P.b[I] * P.r[I]; }
  // slot S of pass I: element t + at<I, S>() (cx_reg_at); every thread has
  // it (always) or only those with t < bound (idle butterflies)
  template <int I, int S>
  static CX_CFN int at() { return cx_reg_at(P, I, S); }
  template <int I, int S>
  static CX_CFN bool always() { return T * (S % P.b[I] + 1) <= N / P.r[I]; }
  template <int I, int S>
  static CX_CFN int bound() { return N / P.r[I] - T * (S % P.b[I]); }
  static constexpr int LAST = P.np - 1;
};

// Whether thread t holds slot S of pass I's registers.
template <class Sh, int I, int S>
CX_FN bool cx_reg_has_slot(int t) {
  if constexpr (Sh::template always<I, S>()) {
    return true;
  } else {
    return t < Sh::template bound<I, S>();
  }
}

// Butterflies of pass I on v (natural layout in, Stockham order out: slot
// b + r*E/R holds output r of butterfly b).
template <class Sh, int I, typename S>
CX_FN void cx_reg_pass(CX_PRIVATE cx<S>* v, int t) {
  constexpr int R = Sh::template radix<I>(), NS = Sh::template ns<I>(), B = Sh::template nb<I>();
CX_UNROLL
  for (int b = 0; b < B; ++b) {
    cx<S> u[R];
CX_UNROLL
    for (int r = 0; r < R; ++r) u[r] = v[b + r * B];
    if constexpr (NS > 1) {
      const int k = (t + Sh::T * b) % NS;
      cx<S> p[R];
      p[1] = cx_reg_unit<S>(k, NS * R);
CX_UNROLL
      for (int r = 2; r < R; ++r) p[r] = cx_mul(p[r / 2], p[r - r / 2]);
CX_UNROLL
      for (int r = 1; r < R; ++r) u[r] = cx_mul(u[r], p[r]);
    }
    cx_kdft<R, S>(u);
CX_UNROLL
    for (int r = 0; r < R; ++r) v[b + r * B] = u[r];
  }
}

// The R outputs of butterfly B at o_t + T*R*B + r*ns.
template <class Sh, int I, int P, int B, int R_, bool AP, typename S>
CX_FN void cx_reg_write_r(const CX_PRIVATE cx<S>* v, CX_SHARED cx<S>* row, int ot, int pot) {
  constexpr int R = Sh::template radix<I>(), NS = Sh::template ns<I>(), NB = Sh::template nb<I>();
  if constexpr (R_ < R) {
    cx_reg_sts(row, cx_reg_slot<Sh::T * R * B + R_ * NS, P, AP>(ot, pot), v[B + R_ * NB]);
    cx_reg_write_r<Sh, I, P, B, R_ + 1, AP, S>(v, row, ot, pot);
  }
}

// Pass I's outputs into the row's shared buffer at their Stockham positions
// (j/ns)*ns*R + j%ns + r*ns, j = t + T*b. Where ns divides T this is
// o_t + T*R*b + r*ns with o_t the thread's own, so most slots are constant
// offsets from one per-thread base.
template <class Sh, int I, int P, int B, typename S>
CX_FN void cx_reg_write_b(const CX_PRIVATE cx<S>* v, int t, CX_SHARED cx<S>* row, int ot, int pot) {
  constexpr int R = Sh::template radix<I>(), NS = Sh::template ns<I>(), NB = Sh::template nb<I>();
  if constexpr (B < NB) {
    if (!cx_reg_has_slot<Sh, I, B>(t)) {
      // an idle butterfly (the last b of a pass that does not fill T * b)
    } else if constexpr (Sh::T % NS == 0) {
      constexpr bool ap = NS == 1 && R % P == 0;  // o_t = t*R
      cx_reg_write_r<Sh, I, P, B, 0, ap, S>(v, row, ot, pot);
    } else {
      const int j = t + Sh::T * B;
      const int o = (j / NS) * NS * R + j % NS;
CX_UNROLL
      for (int r = 0; r < R; ++r) cx_reg_sts(row, cx_reg_pad(o + r * NS, P), v[B + r * NB]);
    }
    cx_reg_write_b<Sh, I, P, B + 1, S>(v, t, row, ot, pot);
  }
}

template <class Sh, int I, int P, typename S>
CX_FN void cx_reg_write_pass(const CX_PRIVATE cx<S>* v, int t, CX_SHARED cx<S>* row) {
  constexpr int R = Sh::template radix<I>(), NS = Sh::template ns<I>();
  const int ot = (t / NS) * NS * R + t % NS;
  cx_reg_write_b<Sh, I, P, 0, S>(v, t, row, ot, cx_reg_pad(ot, P));
}

// The registers of pass I's layout from the row (slots a thread lacks: zero),
// or into it.
template <class Sh, int I, int P, int S_, typename S>
CX_FN void cx_reg_read_s(CX_PRIVATE cx<S>* v, int t, int pt, const CX_SHARED cx<S>* row) {
  if constexpr (S_ < Sh::template slots<I>()) {
    v[S_] = cx_reg_has_slot<Sh, I, S_>(t)
                ? cx_reg_lds(row, cx_reg_slot<Sh::template at<I, S_>(), P, false>(t, pt))
                : cx_make<S>((S)0, (S)0);
    cx_reg_read_s<Sh, I, P, S_ + 1, S>(v, t, pt, row);
  }
}
template <class Sh, int I, int P, int S_, typename S>
CX_FN void cx_reg_write_s(const CX_PRIVATE cx<S>* v, int t, int pt, CX_SHARED cx<S>* row) {
  if constexpr (S_ < Sh::template slots<I>()) {
    if (cx_reg_has_slot<Sh, I, S_>(t))
      cx_reg_sts(row, cx_reg_slot<Sh::template at<I, S_>(), P, false>(t, pt), v[S_]);
    cx_reg_write_s<Sh, I, P, S_ + 1, S>(v, t, pt, row);
  }
}
template <class Sh, int I, int P, typename S>
CX_FN void cx_reg_read_layout(CX_PRIVATE cx<S>* v, int t, const CX_SHARED cx<S>* row) {
  cx_reg_read_s<Sh, I, P, 0, S>(v, t, cx_reg_pad(t, P), row);
}
template <class Sh, int I, int P, typename S>
CX_FN void cx_reg_write_layout(const CX_PRIVATE cx<S>* v, int t, CX_SHARED cx<S>* row) {
  cx_reg_write_s<Sh, I, P, 0, S>(v, t, cx_reg_pad(t, P), row);
}

// Passes I .. NP-1, the exchanges between them; v ends in the natural layout.
template <class Sh, int MODE, int I, typename S>
CX_FN void cx_reg_passes(CX_PRIVATE cx<S>* v, int t, CX_SHARED cx<S>* row, bool read_before) {
  cx_reg_pass<Sh, I, S>(v, t);
  if constexpr (I + 1 < Sh::NP) {
    constexpr int P = cx_reg_padp<Sh::P.n, MODE, I>::value;
    if (I > 0 || read_before) CX_REG_BARRIER();  // every read of the buffer done
    cx_reg_write_pass<Sh, I, P, S>(v, t, row);
    CX_REG_BARRIER();
    cx_reg_read_layout<Sh, I + 1, P, S>(v, t, row);
    cx_reg_passes<Sh, MODE, I + 1, S>(v, t, row, true);
  }
}

template <typename S>
CX_FN cx_i64 cx_reg_row_offset(const cx_reg_args<S>& A, int row, int out) {
  const cx_u32 q = cx_fastdiv_div((cx_u32)row, A.inner);
  const cx_u32 rem = (cx_u32)row - q * A.inner.d;
  return out ? (cx_i64)q * A.o_stride0 + (cx_i64)rem * A.o_stride1
             : (cx_i64)q * A.i_stride0 + (cx_i64)rem * A.i_stride1;
}

// ---- frames of a padded signal (A.pad > 0) ------------------------------------------
// A frame that lies inside its signal is read as any row, at offset - pad;
// one that reaches past either end (a few per signal) reads each element
// from its source sample (cx_reg_pad_src), still as whole fp16 pairs: the
// pair holding the sample, one half kept.
template <typename S>
CX_FN bool cx_reg_frame_edge(const cx_reg_args<S>& A, int row, int len, CX_PRIVATE cx_i64* base,
                             CX_PRIVATE cx_i64* pos) {
  const cx_u32 q = cx_fastdiv_div((cx_u32)row, A.inner);
  const cx_u32 rem = (cx_u32)row - q * A.inner.d;
  *base = (cx_i64)q * A.i_stride0;
  *pos = (cx_i64)rem * A.i_stride1 - A.pad;
  return *pos < 0 || *pos + len > A.sig_len;
}
// Real sample i of the padded signal at xb (its first sample).
template <typename S, typename Ti>
CX_FN S cx_reg_ld_sample(const CX_GLOBAL Ti* xb, const cx_reg_args<S>& A, cx_i64 i) {
  const cx_i64 src = cx_reg_pad_src(i, A.sig_len, A.pad_mode);
  if (src < 0) return (S)0;
  const cx<S> p = cx_reg_ld<S>(xb, src >> 1);
  return (src & 1) ? p.im : p.re;
}

// ---- the real transforms' extra exchange --------------------------------------------
template <int V>
struct cx_reg_int {
  static constexpr int value = V;
};
// f(cx_reg_int<s>) for s = I .. E-1: the element index as a constant.
template <int I, int E, class F>
CX_FN void cx_reg_each(F&& f) {
  if constexpr (I < E) {
    f(cx_reg_int<I>{});
    cx_reg_each<I + 1, E>(f);
  }
}

// The real transforms' exchange leaves the row unpadded: the natural
// writes and the backward reads are both runs of consecutive slots, which a
// padding slot would only break (two wavefronts where a run straddles it).
// Element N - k of the row in shared memory, k = t + at<I, s> the element of
// slot s of pass I's layout (slot N holds element 0 again).
template <class Sh, int I, int s, typename S>
CX_FN cx<S> cx_reg_mirror(int t, const CX_SHARED cx<S>* row) {
  return cx_reg_lds(row, Sh::P.n - Sh::template at<I, s>() - t);
}
// v (pass I's layout) into the row's slots, unpadded, and `extra` (element
// 0, or X[N] for the C2R) at slot N, by thread 0.
template <class Sh, int I, typename S>
CX_FN void cx_reg_write_with_end(const CX_PRIVATE cx<S>* v, int t, cx<S> extra,
                                 CX_SHARED cx<S>* row) {
  cx_reg_each<0, Sh::template slots<I>()>([&](auto sc) {
    constexpr int s = decltype(sc)::value;
    if (cx_reg_has_slot<Sh, I, s>(t)) cx_reg_sts(row, t + Sh::template at<I, s>(), v[s]);
  });
  if (t == 0) cx_reg_sts(row, Sh::P.n, extra);
}

// ---- two passes (L = N1 x N2 above 16384) ------------------------------------------
// Four-step, x[N2*a + q] -> X[k + N1*m] (a, k < N1; q, m < N2), along a
// unit-stride axis:
//   pass 1 (CX_REG_COLS_TW, N = N1): for each column q, Y[k, q] = w^(q k)
//          sum_a x[N2 a + q] W_N1^(a k), w = exp(-2 pi i / L), stored in place
//          ([k][q], fp32 or fp64) by a tile of neighbouring columns;
//   pass 2 (CX_REG_FLAT_COLS, N = N2): for each row k of Y (contiguous),
//          X[k + N1 m] = sum_q Y[k, q] W_N2^(q m): the block's rows read flat,
//          stored as a tile of neighbouring k (adjacent in X, N1 apart along m).
// Along a strided axis whose batch rows b lie adjacent, the tiles run across
// b instead: pass 1 on rows (q, b) (tw_outer) stores Y[k][q][b], and pass 2
// is a plain column tile (CX_REG_COLUMNS) over rows (k, b) (fft_driver.h).
// The twiddle of element k = t + T*b + (N/R)*r of the last pass's slot
// b + r*B: w^(q t) * (w^(q T))^b * (w^(q N/R))^r, three sincospi a thread and
// the powers by products in trees (depth log2 of B and of R), every angle
// reduced exactly (q k mod L in 32 bits).
template <class Sh, typename S>
CX_FN void cx_reg_twiddle(CX_PRIVATE cx<S>* v, int t, const cx_reg_args<S>& A, int row) {
  constexpr int LP = Sh::LAST, B = Sh::template nb<LP>(), R = Sh::template radix<LP>();
  constexpr int STEP = Sh::P.n / R;  // element step between a butterfly's outputs
  const cx_u32 qo = cx_fastdiv_div((cx_u32)row, A.inner);
  const cx_u32 q = A.tw_outer ? qo : (cx_u32)row - qo * A.inner.d;
  const cx_u32 L = (cx_u32)A.tw_len;
  // wb[b] = w^(q T b), pr[r] = w^(q t) w^(q STEP r)
  cx<S> wb[B], c[R], pr[R];
  wb[0] = cx_make<S>((S)1, (S)0);
  if constexpr (B > 1) {
    wb[1] = cx_reg_unit<S>((int)((q * (cx_u32)Sh::T) % L), (int)L);
CX_UNROLL
    for (int b = 2; b < B; ++b) wb[b] = cx_mul(wb[b / 2], wb[b - b / 2]);
  }
  pr[0] = cx_reg_unit<S>((int)((q * (cx_u32)t) % L), (int)L);
  if constexpr (R > 1) {
    c[1] = cx_reg_unit<S>((int)((q * (cx_u32)STEP) % L), (int)L);
CX_UNROLL
    for (int r = 2; r < R; ++r) c[r] = cx_mul(c[r / 2], c[r - r / 2]);
CX_UNROLL
    for (int r = 1; r < R; ++r) pr[r] = cx_mul(pr[0], c[r]);
  }
CX_UNROLL
  for (int s = 0; s < Sh::template slots<LP>(); ++s)
    v[s] = cx_mul(v[s], s % B == 0 ? pr[s / B] : cx_mul(wb[s % B], pr[s / B]));
}

// ---- Bluestein (a length n without a plan, 2n - 1 <= N) ------------------------------
// x, as a value the compiler cannot see through (nor move out of a loop).
CX_FN int cx_reg_opaque(int x) {
#if defined(CX_CUDA) && defined(__CUDA_ARCH__)
  asm volatile("mov.b32 %0, %0;" : "+r"(x));
#elif !defined(CX_CUDA)
  asm volatile("" : "+r"(x));
#endif
  return x;
}

// X[k] = c[k] sum_j (x[j] c[j]) conj(c[k - j]), c[j] = exp(-pi i j^2 / n): a
// cyclic convolution of length N, in one kernel:
//   a[j] = x[j] c[j] (j < n; zero up to N)   loads first, then the chirp
//   A = DFT_N(a)                               the passes, in registers
//   b[k] = conj(A[k] F[k])                     F = DFT_N(conj c, wrapped) / N, a table
//   B = DFT_N(b)                               the same passes again
//   X[k] = conj(B[k]) c[k] scale,  k < n
// The chirp is computed, its angle reduced exactly: j^2 mod 2n (j^2 < 2^26)
// by a host-computed divisor. Where pass 0's layout is not the last pass's
// (a plan with idle butterflies) one more exchange sits between the FFTs.
// exp(-pi i r / n), r = j^2 mod 2n: sincospi of -r * (1/n), the product
// within 1.5 units in the last place of r / n.
template <typename S>
CX_FN cx<S> cx_reg_chirp(const cx_reg_args<S>& A, int j) {
  const cx_u32 j2 = (cx_u32)j * (cx_u32)j;
  const cx_u32 r = j2 - cx_fastdiv_div(j2, A.blue_2n) * A.blue_2n.d;
  const S a = -(S)(int)r * A.blue_inv_n;
  S sn, cs;
#if defined(CX_CUDA)
  if constexpr (sizeof(S) == 4) {
    sincospif(a, &sn, &cs);
  } else {
    sincospi(a, &sn, &cs);
  }
#else
  sn = (S)__builtin_sin(3.14159265358979323846 * (double)a);
  cs = (S)__builtin_cos(3.14159265358979323846 * (double)a);
#endif
  return cx_make<S>(cs, sn);
}
// Row and value (r, j) of flat value f = tid of a block's run of rows of n,
// and the step to f + BT (BT = q n + m, taken once a thread).
template <typename S>
CX_FN void cx_reg_flat_start(const cx_reg_args<S>& A, int tid, int n, int* r, int* j) {
  *r = (int)cx_fastdiv_div((cx_u32)tid, A.blue_nd);
  *j = tid - *r * n;
}
template <typename S>
CX_FN void cx_reg_flat_step(const cx_reg_args<S>& A, int n, int* r, int* j) {
  // (A.blue_step: BT / n and BT % n, from the host)
  *r += A.blue_step_q;
  *j += A.blue_step_m;
  if (*j >= n) {
    *j -= n;
    *r += 1;
  }
}
template <class Sh>
CX_CFN bool cx_reg_same_layout() {
  if (Sh::template slots<0>() != Sh::template slots<Sh::LAST>()) return false;
  for (int s = 0; s < Sh::template slots<0>(); ++s)
    if (cx_reg_at(Sh::P, 0, s) != cx_reg_at(Sh::P, Sh::LAST, s) ||
        Sh::P.b[0] != Sh::P.b[Sh::LAST])
      return false;
  return Sh::T * Sh::E == Sh::P.n;  // no idle butterflies
}
// Rows of the kernels of N <= 256 (n <= 128, 8 or 16 threads a row) move flat
// through shared memory, as the staged mode's do, so that a warp reads and
// writes whole sectors rather than parts of several short rows that start
// mid-sector: value f of the block's run of rows is value j = f % n of row
// r = f / n, at slot r Q + j, r and j carried from step to step (one
// division a thread, by host-computed divisors). Q (A.blue_q, from the
// host): n where a half warp's 16 lanes read one row (16 threads a row),
// so that the flat run is one unbroken run of slots; n rounded up to 8
// mod 16 where they read two rows of 8 lanes (8 threads a row), so that
// the two rows' lanes fall on the two halves of the banks. Those kernels
// take rows that lie end to end only (A.flat; the binding's rule).
template <class Sh, typename S, typename Ti, typename To>
CX_FN void cx_reg_bluestein(const cx_reg_args<S>& A, int tid, int block, int t, int row,
                            bool live, CX_SHARED cx<S>* smem, CX_SHARED cx<S>* buf,
                            CX_PRIVATE cx<S>* v) {
  constexpr int LP = Sh::LAST, RPB = Sh::RPB, BT = Sh::BT;
  // 2n - 1 <= N: a block's RPB rows of n values take at most
  // ceil(RPB (N + 1) / 2 / BT) = E / 2 + 1 flat steps of BT
  constexpr int FLN = Sh::E / 2 + 1;
  const int n = A.blue_n;
  const int row0 = block * RPB;
  const int lim = (A.nrows - row0 < RPB ? A.nrows - row0 : RPB) * n;  // the block's values
  const int rq = (row - row0) * A.blue_q;  // the row's first slot in the flat layout
  constexpr bool flat = Sh::P.n <= 256;
  if constexpr (flat) {
    {
      const Ti* xb = (const Ti*)A.in + 2 * (cx_reg_row_offset(A, row0, 0) + tid);
CX_UNROLL
      for (int i = 0; i < FLN; ++i)
        v[i] = tid + BT * i < lim ? cx_reg_ld<S>(xb, BT * i) : cx_make<S>((S)0, (S)0);
      int r = 0, j = 0;
      cx_reg_flat_start(A, tid, n, &r, &j);
CX_UNROLL
      for (int i = 0; i < FLN; ++i) {
        if (tid + BT * i < lim) cx_reg_sts(smem, r * A.blue_q + j, v[i]);
        cx_reg_flat_step(A, n, &r, &j);
      }
      CX_REG_BARRIER();
      cx_reg_each<0, Sh::template slots<0>()>([&](auto sc) {
        constexpr int s = decltype(sc)::value;
        const int k = t + Sh::template at<0, s>();
        v[s] = cx_reg_has_slot<Sh, 0, s>(t) && k < n ? cx_reg_lds(smem, rq + k)
                                                     : cx_make<S>((S)0, (S)0);
      });
    }
  } else {
    const Ti* x = (const Ti*)A.in + (live ? 2 * cx_reg_row_offset(A, row, 0) : 0);
    cx_reg_each<0, Sh::template slots<0>()>([&](auto sc) {
      constexpr int s = decltype(sc)::value;
      const int j = t + Sh::template at<0, s>();
      v[s] = live && cx_reg_has_slot<Sh, 0, s>(t) && j < n ? cx_reg_ld<S>(x, j)
                                                           : cx_make<S>((S)0, (S)0);
    });
  }
  const S sin_ = A.conj_in ? (S)-1 : (S)1;
  cx_reg_each<0, Sh::template slots<0>()>([&](auto sc) {
    constexpr int s = decltype(sc)::value;
    const int j = t + Sh::template at<0, s>();
    if (j < n) {
      v[s].im *= sin_;
      v[s] = cx_mul(v[s], cx_reg_chirp(A, j));
    }
  });
  // the two FFTs: one copy of the passes' code, run twice. The thread index
  // goes through an opaque copy each time, so that the compiler cannot hoist
  // the passes' twiddles (functions of t alone) out of the loop and hold all
  // of them, for every pass, in registers across it.
CX_NO_UNROLL
  for (int rep = 0; rep < 2; ++rep) {
    cx_reg_passes<Sh, CX_REG_DIRECT, 0, S>(v, cx_reg_opaque(t), buf, rep > 0 || flat);
    if (rep > 0) break;
    cx_reg_each<0, Sh::template slots<LP>()>([&](auto sc) {
      constexpr int s = decltype(sc)::value;
      if (cx_reg_has_slot<Sh, LP, s>(t))
        v[s] = cx_conj(cx_mul(v[s], cx_reg_ld<S>(A.filter, t + Sh::template at<LP, s>())));
    });
    if constexpr (!cx_reg_same_layout<Sh>()) {
      CX_REG_BARRIER();  // the last exchange's reads done
      cx_reg_write_layout<Sh, LP, 16, S>(v, t, buf);
      CX_REG_BARRIER();
      cx_reg_read_layout<Sh, 0, 16, S>(v, t, buf);
    }
  }
  const S sre = A.scale, sim = A.conj_out ? A.scale : -A.scale;  // conj(B) c, then conj_out
  if constexpr (flat) {
    {
      CX_REG_BARRIER();  // the last exchange's reads done
      cx_reg_each<0, Sh::template slots<LP>()>([&](auto sc) {
        constexpr int s = decltype(sc)::value;
        const int k = t + Sh::template at<LP, s>();
        if (cx_reg_has_slot<Sh, LP, s>(t) && k < n) {
          const cx<S> z = cx_mul(cx_make<S>(v[s].re, -v[s].im), cx_reg_chirp(A, k));
          cx_reg_sts(smem, rq + k, cx_make<S>(z.re * sre, -z.im * sim));
        }
      });
      CX_REG_BARRIER();
      To* yb = (To*)A.out + 2 * (cx_reg_row_offset(A, row0, 1) + tid);
      int r = 0, j = 0;
      cx_reg_flat_start(A, tid, n, &r, &j);
CX_UNROLL
      for (int i = 0; i < FLN; ++i) {
        if (tid + BT * i < lim)
          cx_reg_st<S>(yb, BT * i, cx_reg_lds(smem, r * A.blue_q + j));
        cx_reg_flat_step(A, n, &r, &j);
      }
    }
    return;
  }
  if (!live) return;
  To* y = (To*)A.out + 2 * cx_reg_row_offset(A, row, 1);
  cx_reg_each<0, Sh::template slots<LP>()>([&](auto sc) {
    constexpr int s = decltype(sc)::value;
    const int k = t + Sh::template at<LP, s>();
    if (cx_reg_has_slot<Sh, LP, s>(t) && k < n) {
      const cx<S> z = cx_mul(cx_make<S>(v[s].re, -v[s].im), cx_reg_chirp(A, k));
      cx_reg_st<S>(y, k, cx_make<S>(z.re * sre, -z.im * sim));
    }
  });
}

// ---- one thread of one block ------------------------------------------------------
// tid < Sh::BT; smem holds RPB rows of PITCH values.
//
// R2C (rows of 2N real samples x, read as N pairs z[m] = (x[2m], x[2m+1])):
//   Z = DFT_N(z), then with w = exp(-2 pi i / 2N), for k <= N
//   X[k] = ((Z[k] + Z*[N-k]) - i w^k (Z[k] - Z*[N-k])) / 2      (Z[N] = Z[0])
// C2R (N + 1 values X in, 2N real samples out), its inverse:
//   a[k] = conj((X[k] + X*[N-k]) + i w^-k (X[k] - X*[N-k])), k < N
//   (imaginary parts of X[0] and X[N] dropped), (y[2m], y[2m+1]) = conj(DFT_N(a))[m]
// Z[N-k] sits in thread T-t's registers: one more exchange, read backwards;
// w^k = w^t exp(-pi i s / E) for k = t + T*s, the second factor a constant.
template <class Sh, int MODE, typename S, typename Ti, typename To>
CX_FN void cx_reg_fft_thread(const cx_reg_args<S>& A, int tid, int block, CX_SHARED cx<S>* smem) {
  constexpr int E = Sh::E, T = Sh::T, N = Sh::P.n;
  constexpr int ACC = cx_reg_access(MODE);
  constexpr bool REAL = cx_reg_is_real(MODE);
  const int rl = ACC == CX_REG_COLUMNS ? tid % Sh::RPB : tid / T;
  const int t = ACC == CX_REG_COLUMNS ? tid / Sh::RPB : tid % T;
  const int row0 = block * Sh::RPB;
  const int row = row0 + rl;
  const bool live = row < A.nrows;
  CX_SHARED cx<S>* buf = smem + rl * Sh::PITCH;
  if constexpr (MODE == CX_REG_BLUESTEIN) {
    cx<S> w[E];
    cx_reg_bluestein<Sh, S, Ti, To>(A, tid, block, t, row, live, smem, buf, w);
    return;
  }
  const Ti* x = (const Ti*)A.in;
  To* y = (To*)A.out;
  cx<S> v[E];
  cx<S> top = cx_make<S>((S)0, (S)0);  // C2R: X[N], thread 0
  if constexpr (MODE == CX_REG_STAGED || MODE == CX_REG_FLAT_COLS) {
    // flat: element f = tid + BT*i of the block's rows (contiguous rows: the
    // binding uses these modes only then), row f / N, index f % N, through
    // shared memory into pass 0's layout (FLAT_COLS: a column tile's)
    const int nl = A.nrows - row0 < Sh::RPB ? A.nrows - row0 : Sh::RPB;
    const int lim = nl * N;
    const cx_i64 first =
        MODE == CX_REG_STAGED ? (cx_i64)row0 * N : cx_reg_row_offset(A, row0, 0);
    const Ti* xb = x + 2 * (first + tid);
    constexpr int FL = (Sh::RPB * N + Sh::BT - 1) / Sh::BT;  // flat steps (E, for an exact plan)
CX_UNROLL
    for (int i = 0; i < FL; ++i)
      v[i] = tid + Sh::BT * i < lim ? cx_reg_ld<S>(xb, Sh::BT * i) : cx_make<S>((S)0, (S)0);
CX_UNROLL
    for (int i = 0; i < FL; ++i) {
      const int f = tid + Sh::BT * i;
      if (Sh::BT * FL == Sh::RPB * N || f < Sh::RPB * N)
        cx_reg_sts(smem + (f / N) * Sh::PITCH, cx_reg_pad(f % N), v[i]);
    }
    CX_REG_BARRIER();
    cx_reg_read_layout<Sh, 0, 16, S>(v, t, buf);
  } else if constexpr (ACC == CX_REG_COLUMNS) {
    const cx_i64 off = live ? cx_reg_row_offset(A, row, 0) : 0;
    cx_reg_each<0, Sh::template slots<0>()>([&](auto sc) {
      constexpr int s = decltype(sc)::value;
      v[s] = live && cx_reg_has_slot<Sh, 0, s>(t)
                 ? cx_reg_ld<S>(x, off + (cx_i64)(t + Sh::template at<0, s>()) * A.i_axis)
                 : cx_make<S>((S)0, (S)0);
    });
  } else {
    // unit stride along the axis (the binding's rule): compile-time offsets.
    // Complex values (c2c, C2R) or real pairs (R2C) of the row.
    constexpr int LEN = MODE == CX_REG_R2C ? 2 * N : N;  // samples of a frame
    constexpr int SC = MODE == CX_REG_R2C ? 1 : 2;       // scalars a sample
    // (frames of a padded signal: R2C and FRAMES only; the c2c kernels stay lean)
    constexpr bool PADDED = MODE == CX_REG_R2C || MODE == CX_REG_FRAMES;
    bool edge = false;
    cx_i64 base = 0, pos = 0;
    if constexpr (PADDED) {
      if (live && A.pad) edge = cx_reg_frame_edge(A, row, LEN, &base, &pos);
    }
    bool flat_in = false;
    if constexpr (MODE == CX_REG_C2R && T < 32) flat_in = A.flat != 0;
    if (flat_in) {
      if constexpr (MODE == CX_REG_C2R && T < 32) {
        // bins f = tid + BT*i of the block's rows, row f / (N+1), bin f % (N+1)
        constexpr int W = N + 1;
        const int nl = A.nrows - row0 < Sh::RPB ? A.nrows - row0 : Sh::RPB;
        const int lim = nl * W;
        const Ti* xb = x + 2 * (cx_reg_row_offset(A, row0, 0) + tid);
        cx<S> f[E + 1];
CX_UNROLL
        for (int i = 0; i <= E; ++i)
          f[i] = tid + Sh::BT * i < lim ? cx_reg_ld<S>(xb, Sh::BT * i) : cx_make<S>((S)0, (S)0);
CX_UNROLL
        for (int i = 0; i <= E; ++i) {
          const int g = tid + Sh::BT * i;
          if (g < Sh::RPB * W) cx_reg_sts(smem + (g / W) * Sh::PITCH, g % W, f[i]);
        }
      }
    } else if (!edge) {
      const cx_i64 pad = PADDED ? A.pad : 0;
      const Ti* xr = x + (live ? SC * (cx_reg_row_offset(A, row, 0) - pad) + 2 * t : 0);
      cx_reg_each<0, Sh::template slots<0>()>([&](auto sc) {
        constexpr int s = decltype(sc)::value;
        v[s] = live && cx_reg_has_slot<Sh, 0, s>(t) ? cx_reg_ld<S>(xr, Sh::template at<0, s>())
                                                    : cx_make<S>((S)0, (S)0);
      });
      if constexpr (MODE == CX_REG_C2R) {
        if (live && t == 0) top = cx_reg_ld<S>(xr, N);
      }
    } else if constexpr (MODE == CX_REG_R2C) {
      const Ti* xb = x + base;
      cx_reg_each<0, Sh::template slots<0>()>([&](auto sc) {
        constexpr int s = decltype(sc)::value;
        const cx_i64 i = pos + 2 * (t + Sh::template at<0, s>());
        v[s] = cx_reg_has_slot<Sh, 0, s>(t)
                   ? cx_make<S>(cx_reg_ld_sample<S, Ti>(xb, A, i),
                                cx_reg_ld_sample<S, Ti>(xb, A, i + 1))
                   : cx_make<S>((S)0, (S)0);
      });
    } else if constexpr (MODE == CX_REG_FRAMES) {
      // complex samples from where the padding mode says
      const Ti* xb = x + 2 * base;
      cx_reg_each<0, Sh::template slots<0>()>([&](auto sc) {
        constexpr int s = decltype(sc)::value;
        const cx_i64 src = cx_reg_pad_src(pos + t + Sh::template at<0, s>(), A.sig_len, A.pad_mode);
        v[s] = cx_reg_has_slot<Sh, 0, s>(t) && src >= 0 ? cx_reg_ld<S>(xb, src)
                                                        : cx_make<S>((S)0, (S)0);
      });
    }
    if constexpr (MODE == CX_REG_FRAMES) {
      if (A.win && !A.win_store) {
        cx_reg_each<0, Sh::template slots<0>()>([&](auto sc) {
          constexpr int s = decltype(sc)::value;
          if (cx_reg_has_slot<Sh, 0, s>(t)) {
            const S w = cx_reg_ld1<S>(A.win, t + Sh::template at<0, s>());
            v[s] = cx_make<S>(v[s].re * w, v[s].im * w);
          }
        });
      }
    }
    // the window, as the values load (R2C: pairs of samples)
    if constexpr (MODE == CX_REG_R2C) {
      if (A.win) {
        cx_reg_each<0, Sh::template slots<0>()>([&](auto sc) {
          constexpr int s = decltype(sc)::value;
          if (cx_reg_has_slot<Sh, 0, s>(t)) {
            const cx<S> w = cx_reg_ld<S>(A.win, t + Sh::template at<0, s>());
            v[s] = cx_make<S>(v[s].re * w.re, v[s].im * w.im);
          }
        });
      }
    }
  }
  if constexpr (MODE == CX_REG_C2R) {
    // a[k] from X[k] and X[N-k] (the row through shared memory, read backwards)
    bool flat_in = false;
    if constexpr (T < 32) flat_in = A.flat != 0;
    if (flat_in) {
      CX_REG_BARRIER();  // the flat copy in
      cx_reg_each<0, Sh::template slots<0>()>([&](auto sc) {
        constexpr int s = decltype(sc)::value;
        v[s] = cx_reg_has_slot<Sh, 0, s>(t) ? cx_reg_lds(buf, t + Sh::template at<0, s>())
                                            : cx_make<S>((S)0, (S)0);
      });
    } else {
      cx_reg_write_with_end<Sh, 0, S>(v, t, top, buf);
      CX_REG_BARRIER();
    }
    const cx<S> wt = cx_conj(cx_reg_unit<S>(t, 2 * N));
    cx_reg_each<0, Sh::template slots<0>()>([&](auto sc) {
      constexpr int s = decltype(sc)::value;
      if (cx_reg_has_slot<Sh, 0, s>(t)) {
        cx<S> u = v[s], c = cx_conj(cx_reg_mirror<Sh, 0, s, S>(t, buf));
        if constexpr (s == 0) {
          if (t == 0) {
            u.im = (S)0;
            c.im = (S)0;
          }
        }
        const cx<S> w = cx_ktwiddle<-Sh::template at<0, s>(), 2 * N, S>(wt);
        v[s] = cx_conj((u + c) + cx_mul_i(cx_mul(u - c, w)));
      }
    });
  } else if constexpr (!REAL) {
    // the inverse transform: conjugate in and out, as a sign
    const S sin_ = A.conj_in ? (S)-1 : (S)1;
CX_UNROLL
    for (int s = 0; s < Sh::template slots<0>(); ++s) v[s].im *= sin_;
  }
  cx_reg_passes<Sh, ACC, 0, S>(v, t, buf,
                               MODE == CX_REG_STAGED || MODE == CX_REG_C2R ||
                                   MODE == CX_REG_FLAT_COLS);
  if constexpr (MODE == CX_REG_R2C) {
    const cx<S> z0 = v[0];
    CX_REG_BARRIER();  // the last exchange's reads done
    cx_reg_write_with_end<Sh, Sh::LAST, S>(v, t, z0, buf);
    CX_REG_BARRIER();
    const cx<S> wt = cx_reg_unit<S>(t, 2 * N);
    const S half = (S)0.5 * A.scale;
    cx_reg_each<0, Sh::template slots<Sh::LAST>()>([&](auto sc) {
      constexpr int s = decltype(sc)::value;
      if (cx_reg_has_slot<Sh, Sh::LAST, s>(t)) {
        const cx<S> u = v[s], c = cx_conj(cx_reg_mirror<Sh, Sh::LAST, s, S>(t, buf));
        const cx<S> w = cx_ktwiddle<Sh::template at<Sh::LAST, s>(), 2 * N, S>(wt);
        v[s] = cx_scale((u + c) + cx_mul_neg_i(cx_mul(u - c, w)), half);
      }
    });
    const cx<S> xtop = cx_make<S>((z0.re - z0.im) * A.scale, (S)0);  // X[N]
    if constexpr (T < 32) {
      if (A.flat) {
        // the block's bins as one flat run: row f / (N+1), bin f % (N+1)
        constexpr int W = N + 1;
        CX_REG_BARRIER();  // every backward read done
        cx_reg_write_with_end<Sh, Sh::LAST, S>(v, t, xtop, buf);
        CX_REG_BARRIER();
        const int nl = A.nrows - row0 < Sh::RPB ? A.nrows - row0 : Sh::RPB;
        const int lim = nl * W;
        To* yb = y + 2 * (cx_reg_row_offset(A, row0, 1) + tid);
CX_UNROLL
        for (int i = 0; i <= E; ++i) {
          const int g = tid + Sh::BT * i;
          if (g < lim) cx_reg_st<S>(yb, Sh::BT * i, cx_reg_lds(smem + (g / W) * Sh::PITCH, g % W));
        }
        return;
      }
    }
    if (!live) return;
    To* yr = y + 2 * (cx_reg_row_offset(A, row, 1) + t);
    cx_reg_each<0, Sh::template slots<Sh::LAST>()>([&](auto sc) {
      constexpr int s = decltype(sc)::value;
      if (cx_reg_has_slot<Sh, Sh::LAST, s>(t)) cx_reg_st<S>(yr, Sh::template at<Sh::LAST, s>(), v[s]);
    });
    if (t == 0) cx_reg_st<S>(yr, N, xtop);
    return;
  } else if constexpr (MODE == CX_REG_C2R) {
    if (!live) return;
    const S sc = A.scale;
    To* yr = y + cx_reg_row_offset(A, row, 1) + 2 * t;  // real pairs
    cx_reg_each<0, Sh::template slots<Sh::LAST>()>([&](auto scc) {
      constexpr int s = decltype(scc)::value;
      if (cx_reg_has_slot<Sh, Sh::LAST, s>(t)) {
        constexpr int at = Sh::template at<Sh::LAST, s>();
        cx<S> z = cx_make<S>(v[s].re * sc, -v[s].im * sc);
        if (A.win) {
          const cx<S> w = cx_reg_ld<S>(A.win, t + at);
          z = cx_make<S>(z.re * w.re, z.im * w.im);
        }
        cx_reg_st<S>(yr, at, z);
      }
    });
    return;
  } else {
  if constexpr (MODE == CX_REG_COLS_TW) {
    if (live) cx_reg_twiddle<Sh, S>(v, t, A, row);
  }
  const S sre = A.scale, sim = A.conj_out ? -A.scale : A.scale;
CX_UNROLL
  for (int s = 0; s < Sh::template slots<Sh::LAST>(); ++s)
    v[s] = cx_make<S>(v[s].re * sre, v[s].im * sim);
  if constexpr (MODE == CX_REG_STAGED) {
    CX_REG_BARRIER();
    cx_reg_write_layout<Sh, Sh::LAST, 16, S>(v, t, buf);
    CX_REG_BARRIER();
    const int nl = A.nrows - row0 < Sh::RPB ? A.nrows - row0 : Sh::RPB;
    const int lim = nl * N;
    To* yb = y + 2 * ((cx_i64)row0 * N + tid);
    constexpr int FL = (Sh::RPB * N + Sh::BT - 1) / Sh::BT;
CX_UNROLL
    for (int i = 0; i < FL; ++i) {
      const int f = tid + Sh::BT * i;
      if (Sh::BT * FL == Sh::RPB * N || f < Sh::RPB * N) {
        const cx<S> z = cx_reg_lds(smem + (f / N) * Sh::PITCH, cx_reg_pad(f % N));
        if (f < lim) cx_reg_st<S>(yb, Sh::BT * i, z);
      }
    }
  } else if constexpr (MODE == CX_REG_DIRECT || MODE == CX_REG_FRAMES) {
    if (!live) return;
    if constexpr (MODE == CX_REG_FRAMES) {
      if (A.win && A.win_store) {
        cx_reg_each<0, Sh::template slots<Sh::LAST>()>([&](auto sc) {
          constexpr int s = decltype(sc)::value;
          if (cx_reg_has_slot<Sh, Sh::LAST, s>(t)) {
            const S w = cx_reg_ld1<S>(A.win, t + Sh::template at<Sh::LAST, s>());
            v[s] = cx_make<S>(v[s].re * w, v[s].im * w);
          }
        });
      }
    }
    To* yr = y + 2 * (cx_reg_row_offset(A, row, 1) + t);
    cx_reg_each<0, Sh::template slots<Sh::LAST>()>([&](auto sc) {
      constexpr int s = decltype(sc)::value;
      if (cx_reg_has_slot<Sh, Sh::LAST, s>(t)) cx_reg_st<S>(yr, Sh::template at<Sh::LAST, s>(), v[s]);
    });
  } else {
    if (!live) return;
    const cx_i64 off = cx_reg_row_offset(A, row, 1);
    cx_reg_each<0, Sh::template slots<Sh::LAST>()>([&](auto sc) {
      constexpr int s = decltype(sc)::value;
      if (cx_reg_has_slot<Sh, Sh::LAST, s>(t))
        cx_reg_st<S>(y, off + (cx_i64)(t + Sh::template at<Sh::LAST, s>()) * A.o_axis, v[s]);
    });
  }
  }
}

#endif
