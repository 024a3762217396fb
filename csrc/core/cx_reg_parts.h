// The register FFT kernels (cx_reg_fft.h, which has the overview), part 3:
// what some modes add to the block code: the frames of a padded signal, the
// real transforms' extra exchange, the two passes above 16384 and
// Bluestein in one kernel.
#pragma once
#include "cx_reg_shape.h"

#if !defined(CX_METAL)

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
// is a plain column tile (CX_REG_COLUMNS) over rows (k, b) (fft_driver_reg.h).
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

#endif  // !defined(CX_METAL)
