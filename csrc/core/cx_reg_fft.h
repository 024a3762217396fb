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
//
// The code is in four headers, each including the one before: cx_reg_base.h
// (the modes, the plan, the run-time arguments, storage), cx_reg_shape.h
// (the lengths compiled ahead of time, the bank model, the compile-time
// shape), cx_reg_parts.h (padded frames, the real exchange, two passes,
// Bluestein) and this one (one thread of one block). Include this one.
#pragma once
#include "cx_reg_parts.h"

#if !defined(CX_METAL)

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
    const cx<S> wt = cx_conj(cx_reg_unit_c<2 * N, S>(t));
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
    const cx<S> wt = cx_reg_unit_c<2 * N, S>(t);
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

#endif  // !defined(CX_METAL)
