// The register FFT kernels (cx_reg_fft.h, which has the overview), part 2:
// the lengths compiled ahead of time and rows per block, a compile-time
// model of the shared-memory banks, and the kernel's compile-time shape.
#pragma once
#include "cx_reg_base.h"

#if !defined(CX_METAL)

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
CX_CFN int cx_reg_rpb(int n, int mode) { return cx_reg_rpb_of(cx_rplan_of(n, mode), mode); }

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
  // two up to 8192 (cx_reg_blue_len; 8192 on its own plan, cx_rplan_of)
  if (mode == CX_REG_BLUESTEIN) return t >= 8 && (p.n & (p.n - 1)) == 0 && p.n <= 8192;
  // a complex signal's frames: whole sectors of a frame's fp16 pairs (8
  // threads), frames up to 4096 (longer ones: the block kernels)
  // (exact plans: 480's, with idle butterflies, took more registers than
  // 16 warps leave)
  if (mode == CX_REG_FRAMES) return t >= 8 && p.n <= 4096 && p.t * p.e == p.n;
  return mode == CX_REG_DIRECT;
}
CX_CFN bool cx_reg_mode_ok(int n, int mode) { return cx_reg_mode_ok_of(cx_rplan_of(n, mode), mode); }

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
// work buffer in the compute type S, pass 2 reads it (fft_driver_reg.h).
template <class A, class B>
struct cx_reg_same_t {
  static constexpr bool value = false;
};
template <class A>
struct cx_reg_same_t<A, A> {
  static constexpr bool value = true;
};
// Bluestein's kernel of 8192 is built for fp32 compute only: in fp64 its 16
// values a thread spill (36 bytes at 128 registers), and gpu_plan.h leaves
// those lengths to the block kernels.
template <int N, int MODE, typename S, typename Ti, typename To>
CX_CFN bool cx_reg_types_ok() {
  if (MODE == CX_REG_BLUESTEIN && N > 4096 && sizeof(S) > 4) return false;
  // (the frames: the stft keeps its type, the istft writes the compute type)
  return MODE == CX_REG_COLS_TW ? cx_reg_same_t<To, S>::value
         : MODE == CX_REG_FLAT_COLS ? cx_reg_same_t<Ti, S>::value
         : MODE == CX_REG_FRAMES ? !(cx_reg_same_t<Ti, S>::value && !cx_reg_same_t<To, S>::value)
                                 : true;
}
// Bluestein's N for a row of n values (2n - 1 <= N): the power of two, at
// least 128 (8 threads a row), up to 8192; 0 above n = 4096. (N = 8192 runs
// 16 values a thread on 512 threads, cx_rplan_of: on the 32 of its c2c plan
// the two FFTs with the chirp and the filter took more registers than 16
// warps an SM leave, 96 bytes spilled at 128 registers. At N = 16384 even
// 32 values on 512 threads spilled 88 bytes, and 16 would need 1024
// threads at 64 registers: n = 4097 .. 8192 take the block kernels.)
CX_CFN int cx_reg_blue_len(int n) {
  int m = 128;
  while (m < 2 * n - 1) m *= 2;
  return m <= 8192 ? m : 0;
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

// The offset of slot a + K from pad(a, P) (K a compile-time constant) where
// it is one value for every thread's base a, else -1: a = t for NS = 0 (the
// reads of a layout, t + at<I, s>), a = (t / NS) NS R + t % NS for NS > 0
// (pass I's Stockham writes, NS dividing T), over t < T. Such a slot is a
// constant offset from one per-thread slot, folded into the access; any
// other costs the padding's division per access. With k = K mod P,
// pad(a + K) - pad(a) = K + K / P + [a mod P + k >= P], one value iff k = 0
// or every a mod P stays below P - k (a = 0 is one of them): K a multiple
// of P, or bases that stay low in their period (1000's pass of 5 at
// P = 250: bases 5t, t < 50, below 250 - 4).
CX_CFN int cx_reg_const_off(int T, int NS, int R, int K, int P) {
  const int k = K % P, off = K + K / P;
  if (k == 0) return off;
  int top = 0;  // the largest a mod P
  if (NS == 0) {
    top = T < P ? T - 1 : P - 1;
  } else {
    // a = q NS R + u, q < T / NS, u < NS: the q NS R mod P repeat with
    // period P / gcd(NS R, P)
    const int step = NS * R;
    int g = step, h = P;
    while (h != 0) {
      const int r = g % h;
      g = h;
      h = r;
    }
    const int nq = T / NS < P / g ? T / NS : P / g;
    for (int q = 0; q < nq && top < P - k; ++q) {
      const int m = (int)(((long long)q * step) % P);
      const int hi = m + NS - 1 >= P ? P - 1 : m + NS - 1;
      top = hi > top ? hi : top;
    }
  }
  return top < P - k ? off : -1;
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

// Accesses of exchange x at period P whose slot is not a constant offset
// from the thread's one (cx_reg_const_off): each costs the padding's
// division. Writes of a pass whose ns does not divide T all do.
CX_CFN int cx_reg_exchange_nonconst(const cx_rplan& p, int x, int P) {
  int ns = 1;
  for (int i = 0; i < x; ++i) ns *= p.r[i];
  const int T = p.t, R = p.r[x], B = p.b[x];
  int c = 0;
  for (int b = 0; b < B; ++b)
    for (int r = 0; r < R; ++r)
      if (T % ns != 0 || cx_reg_const_off(T, ns, R, T * R * b + r * ns, P) < 0) ++c;
  for (int s = 0; s < p.b[x + 1] * p.r[x + 1]; ++s)
    if (cx_reg_const_off(T, 0, 1, cx_reg_at(p, x + 1, s), P) < 0) ++c;
  return c;
}

// The period of exchange x with row pitch `pitch`: the fewest modelled
// wavefronts over a few candidates, then the fewest accesses whose slot
// must be computed (powers of two first: their slots cost a shift);
// *cost receives the wavefront figure.
CX_CFN int cx_reg_best_pad(const cx_rplan& p, int mode, int x, int pitch, int* cost) {
  const int n = p.n, T = p.t;
  int ns = 1;
  for (int i = 0; i < x; ++i) ns *= p.r[i];
  // (the pass's radix and ns * radix: periods at which its Stockham writes,
  // stride R where ns = 1, land one slot apart in the banks; T * radix: one
  // at which the writes of ns = 1 and the reads of t + T*s are constant
  // offsets; n: no padding)
  const int cand[12] = {16, 32, 8, 64, p.e, T, 2 * T, 4 * T, p.r[x], ns * p.r[x], T * p.r[x], n};
  int best = 16, best_nc = 0;
  *cost = -1;
  for (int i = 0; i < 12; ++i) {
    const int P = cand[i];
    if (P < 8 || P > n) continue;
    const int c = cx_reg_exchange_cost(p, mode, x, P, pitch);
    if (*cost >= 0 && c > *cost) continue;
    const int nc = cx_reg_exchange_nonconst(p, x, P);
    if (*cost < 0 || c < *cost || nc < best_nc) {
      *cost = c;
      best = P;
      best_nc = nc;
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
CX_CFN int cx_reg_pitch(int n, int mode) { return cx_reg_pitch_p(cx_rplan_of(n, mode), mode); }

// ---- the order of an exact plan's passes --------------------------------------------
// Whether pass i's B butterflies a thread share their twiddles: where ns
// divides T, k = (t + T b) % ns = t % ns for every b, so one sincospi and
// its powers serve all of them (cx_reg_pass).
CX_CFN bool cx_rplan_shared_tw(const cx_rplan& p, int i) {
  int ns = 1;
  for (int j = 0; j < i; ++j) ns *= p.r[j];
  return ns > 1 && p.b[i] > 1 && p.t % ns == 0;
}
// A thread's twiddle work, in floating-point operations: per sincospi about
// 20, per complex product 4; pass i > 0 takes the powers w^2 .. w^(R-1)
// (R - 2 products) and R - 1 products a butterfly, the sincospi and powers
// once (shared) or per butterfly.
CX_CFN int cx_rplan_twiddle_ops(const cx_rplan& p) {
  int ops = 0;
  for (int i = 1; i < p.np; ++i) {
    const int R = p.r[i], B = p.b[i];
    const int setup = 20 + 4 * (R - 2), apply = 4 * (R - 1);
    ops += cx_rplan_shared_tw(p, i) ? setup + B * apply : B * (setup + apply);
  }
  return ops;
}
// Modelled wavefronts (x1000 per access) summed over a plan's exchanges, in
// the direct mode: a quick form (the base pitch, four of each exchange's
// writes and reads, a few periods), for comparing the orders of one plan
// within what a compiler evaluates at compile time.
CX_CFN int cx_rplan_bank_quick(const cx_rplan& p) {
  const int pitch = cx_reg_pitch_base(p.n);
  int total = 0;
  for (int x = 0; x + 1 < p.np; ++x) {
    int ns = 1;
    for (int i = 0; i < x; ++i) ns *= p.r[i];
    const int cand[5] = {16, p.e, ns * p.r[x], p.t * p.r[x], p.n};
    int best = -1;
    for (int i = 0; i < 5; ++i) {
      if (cand[i] < 8 || cand[i] > p.n) continue;
      const int c = cx_reg_exchange_cost(p, CX_REG_DIRECT, x, cand[i], pitch, 4);
      best = best < 0 || c < best ? c : best;
    }
    total += best;
  }
  return total;
}
// An exact plan's passes in the order with the least twiddle work among
// those whose exchanges model no more wavefronts than the radices' own
// order (largest common divisor first, cx_rplan_with). 1000 = 20 10 5 on 50
// threads computes a twiddle per butterfly in both later passes (ns = 20,
// 200 do not divide 50); 5 10 20 shares them (ns = 5, 50), one sincospi a
// pass, and its exchanges conflict less (docs/cuda.md). 10 5 20 has less
// twiddle work still, but more conflicts.
CX_CFN cx_rplan cx_rplan_order(const cx_rplan& p0) {
  if (p0.np < 3 || p0.np > 4 || p0.t * p0.e != p0.n) return p0;
  const int np = p0.np;
  // the distinct orders of the radices, by index permutations (at most 24)
  cx_rplan cand[24] = {};
  int ops[24] = {}, nc = 0;
  for (int a = 0; a < np; ++a)
    for (int b = 0; b < np; ++b)
      for (int c = 0; c < np; ++c)
        for (int d = 0; d < (np == 4 ? np : 1); ++d) {
          const int idx[4] = {a, b, c, np == 4 ? d : 3};
          bool ok = true;
          for (int i = 0; i < np; ++i)
            for (int j = 0; j < i; ++j) ok = ok && idx[i] != idx[j];
          if (!ok) continue;
          cx_rplan q = p0;
          for (int i = 0; i < np; ++i) {
            q.r[i] = p0.r[idx[i]];
            q.b[i] = p0.b[idx[i]];
          }
          for (int m = 0; m < nc && ok; ++m) {
            bool same = true;
            for (int i = 0; i < np; ++i) same = same && cand[m].r[i] == q.r[i];
            ok = !same;
          }
          if (!ok) continue;
          ops[nc] = cx_rplan_twiddle_ops(q);
          cand[nc++] = q;
        }
  // candidates with less twiddle work than p0's, least first; the first
  // whose exchanges model no worse than p0's
  const int ops0 = cx_rplan_twiddle_ops(p0);
  int bank0 = -1;
  for (int round = 0; round < nc; ++round) {
    int m = -1;
    for (int i = 0; i < nc; ++i)
      if (ops[i] < ops0 && (m < 0 || ops[i] < ops[m])) m = i;
    if (m < 0) break;
    if (bank0 < 0) bank0 = cx_rplan_bank_quick(p0);
    if (cx_rplan_bank_quick(cand[m]) <= bank0) return cand[m];
    ops[m] = ops0;  // tried
  }
  return p0;
}
CX_CFN cx_rplan cx_rplan_choose(int n) { return cx_rplan_order(cx_rplan_radices(n)); }

// Slot of index a + K from a and pa = pad(a, P), OFF = cx_reg_const_off(..).
template <int K, int P, int OFF>
CX_FN int cx_reg_slot(int a, int pa) {
  if constexpr (OFF >= 0) {
    return pa + OFF;
  } else {
    return cx_reg_pad(a + K, P);
  }
}

// The padding period of exchange X of length N in MODE (the staged mode's
// load and store exchanges use 16), on the plan of the kernel's own mode
// KMODE (cx_rplan_of: Bluestein's kernel of 8192 runs its passes as MODE
// CX_REG_DIRECT on a plan of its own).
template <int N, int MODE>
struct cx_reg_pitch_of {
  static constexpr int value = cx_reg_pitch(N, MODE);
};
template <int N, int MODE, int X, int KMODE = MODE>
struct cx_reg_padp {
  static CX_CFN int cost_and_pad(int* c) {
    constexpr cx_rplan p = cx_rplan_of(N, KMODE);
    return cx_reg_best_pad(p, MODE, X, cx_reg_pitch_p(p, MODE), c);
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
  static constexpr cx_rplan P = cx_rplan_of(N, MODE_);
  static_assert(P.np > 0, "cx_reg_shape: no register plan for this length");
  static constexpr int E = P.e, T = P.t, NP = P.np, RPB = RPB_, BT = RPB_ * P.t;
  static constexpr int MODE = MODE_;  // the kernel's mode (its plan: cx_rplan_of)
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
  // Where ns divides T, a thread's B butterflies share their twiddles (k =
  // t % ns for every b, cx_rplan_shared_tw): one sincospi and its powers
  // for all of them, the R - 1 twiddles held across the butterflies
  // (Bluestein's 8192: eight butterflies of radix 2 a thread; 1000's pass
  // of 10, two butterflies at ns = 5).
  constexpr bool SHARED = cx_rplan_shared_tw(Sh::P, I);
  cx<S> q[R];
  if constexpr (SHARED) {
    q[1] = cx_reg_unit_c<NS * R, S>(t % NS);
CX_UNROLL
    for (int r = 2; r < R; ++r) q[r] = cx_mul(q[r / 2], q[r - r / 2]);
  }
CX_UNROLL
  for (int b = 0; b < B; ++b) {
    cx<S> u[R];
CX_UNROLL
    for (int r = 0; r < R; ++r) u[r] = v[b + r * B];
    if constexpr (SHARED) {
CX_UNROLL
      for (int r = 1; r < R; ++r) u[r] = cx_mul(u[r], q[r]);
    } else if constexpr (NS > 1) {
      const int k = (t + Sh::T * b) % NS;
      cx<S> p[R];
      p[1] = cx_reg_unit_c<NS * R, S>(k);
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
template <class Sh, int I, int P, int B, int R_, typename S>
CX_FN void cx_reg_write_r(const CX_PRIVATE cx<S>* v, CX_SHARED cx<S>* row, int ot, int pot) {
  constexpr int R = Sh::template radix<I>(), NS = Sh::template ns<I>(), NB = Sh::template nb<I>();
  if constexpr (R_ < R) {
    constexpr int K = Sh::T * R * B + R_ * NS;
    constexpr int OFF = cx_reg_const_off(Sh::T, NS, R, K, P);
    cx_reg_sts(row, cx_reg_slot<K, P, OFF>(ot, pot), v[B + R_ * NB]);
    cx_reg_write_r<Sh, I, P, B, R_ + 1, S>(v, row, ot, pot);
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
      cx_reg_write_r<Sh, I, P, B, 0, S>(v, row, ot, pot);
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
    constexpr int K = Sh::template at<I, S_>();
    constexpr int OFF = cx_reg_const_off(Sh::T, 0, 1, K, P);
    v[S_] = cx_reg_has_slot<Sh, I, S_>(t) ? cx_reg_lds(row, cx_reg_slot<K, P, OFF>(t, pt))
                                          : cx_make<S>((S)0, (S)0);
    cx_reg_read_s<Sh, I, P, S_ + 1, S>(v, t, pt, row);
  }
}
template <class Sh, int I, int P, int S_, typename S>
CX_FN void cx_reg_write_s(const CX_PRIVATE cx<S>* v, int t, int pt, CX_SHARED cx<S>* row) {
  if constexpr (S_ < Sh::template slots<I>()) {
    constexpr int K = Sh::template at<I, S_>();
    constexpr int OFF = cx_reg_const_off(Sh::T, 0, 1, K, P);
    if (cx_reg_has_slot<Sh, I, S_>(t)) cx_reg_sts(row, cx_reg_slot<K, P, OFF>(t, pt), v[S_]);
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
    constexpr int P = cx_reg_padp<Sh::P.n, MODE, I, Sh::MODE>::value;
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

#endif  // !defined(CX_METAL)
