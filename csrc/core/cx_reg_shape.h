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
CX_CFN int cx_reg_pitch(int n, int mode) { return cx_reg_pitch_p(cx_rplan_of(n, mode), mode); }

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
  // t % ns for every b): one sincospi for all of them. Taken for radices up
  // to 4, whose R - 1 twiddles stay in registers across the butterflies
  // (Bluestein's 8192: eight butterflies of radix 2 a thread).
  constexpr bool SHARED = NS > 1 && B > 1 && R <= 4 && Sh::T % NS == 0;
  cx<S> q[R];
  if constexpr (SHARED) {
    q[1] = cx_reg_unit<S>(t % NS, NS * R);
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
