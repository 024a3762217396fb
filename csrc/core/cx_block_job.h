// One transform job of the CUDA kernels as plain data, and the phases that
// run it: the per-block program of the shared-memory kernel and the row
// phases of the multi-pass path. The CPU tests run the same functions
// thread by thread (csrc/emulation/block_emulation.cpp).
//
// A job turns each row (strided, any batch geometry) into a complex sequence
// a of length len, transforms it, and stores it:
//
//   load:  c2c      a[k] = conj?(x[k]) * win_in[k]                 len = n
//          r2c even a[k] = (x[2k] w[2k], x[2k+1] w[2k+1])          len = n/2
//          r2c odd  a[k] = x[k] w[k]                               len = n
//          c2r even a[k] = conj((X[k] + X*[h-k]) + i w*_k (X[k] - X*[h-k]))   (h = n/2)
//          c2r odd  a[k] = conj(X[k]), a[n-k] = X[k]               (the Hermitian whole)
//   fft:   Stockham passes over two buffers, or Bluestein around them:
//          chirp_in (a[k] *= c[k], zero to m), passes, pointwise (a = conj(a F)),
//          passes, chirp_out (a[k] = conj(a[k]) c[k])
//   store: c2c      y[k] = conj?(a[k]) * scale * win_out[k] (* four-step twiddle)
//          r2c even y[k] = ((Z[k] + Z*[h-k]) - i w_k (Z[k] - Z*[h-k])) * scale/2
//          r2c odd  y[k] = a[k] * scale
//          c2r even y[2k], y[2k+1] = conj(a[k]) * scale * (win_out pairs)
//          c2r odd  y[k] = re(a[k]) * scale * win_out[k]
//
// Every phase is run by threads t < tpr of a row, each taking k = t, t+tpr,
// ...; a thread writes only its own elements and a barrier follows each
// phase (block program) or each phase is its own launch (row phases).
#pragma once
#include "cx_block.h"

#if !defined(CX_METAL)  // CUDA and the CPU emulation (doubles, 64-bit tables)

enum { CX_JOB_C2C = 0, CX_JOB_R2C = 1, CX_JOB_C2R = 2 };
enum {
  CX_PH_LOAD = 0,
  CX_PH_CHIRP_IN = 1,
  CX_PH_PASS = 2,
  CX_PH_POINTWISE = 3,
  CX_PH_CHIRP_OUT = 4,
  CX_PH_STORE = 5
};

template <typename S>
struct cx_block_job {
  int kind;            // CX_JOB_*
  cx_i64 n;            // logical transform length
  cx_i64 len;          // complex sequence length (n, or n/2 for even real)
  cx_i64 out_len;      // elements stored along the axis (c2c, r2c)
  int npasses;         // Stockham passes of len (of m for Bluestein)
  cx_pass passes[CX_MAX_PASSES];
  const cx<S>* tw;
  const cx<S>* roots;
  int bluestein;
  cx_i64 m;            // Bluestein's convolution length
  const cx<S>* chirp;  // exp(-i pi k^2 / len), k < len
  const cx<S>* filter; // m values
  const cx<S>* rtw;    // even real: exp(-2 pi i k / n), k <= n/2
  // Four-step: element k of row r is multiplied by row_tw[(k * (r % tw_cols)) % tw_len].
  const cx<S>* row_tw;
  cx_i64 tw_cols, tw_len;
  const S* win_in;     // optional windows (STFT), length n
  const S* win_out;
  const void* in;      // fp16, fp32 or fp64 scalars (pairs for complex)
  void* out;
  cx_i64 in_stride, out_stride;  // along the axis, in (complex or real) elements
  cx_rows rows;
  cx_i64 nrows;
  int conj_in, conj_out;         // c2c inverse: conjugate on load and store
  S scale;
};

// ---- real scalars at element index i -----------------------------------------
template <typename S>
CX_FN S cx_load_re(const CX_GLOBAL cx_half_t* p, cx_i64 i) { return (S)cx_half_to_float(p[i]); }
template <typename S>
CX_FN S cx_load_re(const CX_GLOBAL float* p, cx_i64 i) { return (S)p[i]; }
template <typename S>
CX_FN S cx_load_re(const CX_GLOBAL double* p, cx_i64 i) { return (S)p[i]; }
template <typename S>
CX_FN void cx_store_re(CX_GLOBAL cx_half_t* p, cx_i64 i, S v) { p[i] = cx_float_to_half((float)v); }
template <typename S>
CX_FN void cx_store_re(CX_GLOBAL float* p, cx_i64 i, S v) { p[i] = (float)v; }
template <typename S>
CX_FN void cx_store_re(CX_GLOBAL double* p, cx_i64 i, S v) { p[i] = (double)v; }

// Scalars per element of the input / output of a job.
template <typename S>
CX_FN int cx_job_in_comps(const cx_block_job<S>& J) { return J.kind == CX_JOB_R2C ? 1 : 2; }
template <typename S>
CX_FN int cx_job_out_comps(const cx_block_job<S>& J) { return J.kind == CX_JOB_C2R ? 1 : 2; }

// ---- load: row x (already offset) -> a[0, len) -------------------------------------
template <typename S, typename Ti>
CX_FN void cx_job_load(const cx_block_job<S>& J, int t, int tpr, const CX_GLOBAL Ti* x,
                       CX_SHARED cx<S>* a) {
  const cx_i64 n = J.n, h = n / 2, s = J.in_stride;
  const S* wi = J.win_in;
  if (J.kind == CX_JOB_C2C) {
    for (cx_i64 k = t; k < n; k += tpr) {
      cx<S> z = cx_load<S>(x, k * s);
      z = J.conj_in ? cx_conj(z) : z;
      a[k] = wi ? cx_scale(z, wi[k]) : z;
    }
  } else if (J.kind == CX_JOB_R2C && n % 2 == 0) {
    for (cx_i64 k = t; k < h; k += tpr) {
      S re = cx_load_re<S>(x, 2 * k * s), im = cx_load_re<S>(x, (2 * k + 1) * s);
      a[k] = wi ? cx_make<S>(re * wi[2 * k], im * wi[2 * k + 1]) : cx_make<S>(re, im);
    }
  } else if (J.kind == CX_JOB_R2C) {
    for (cx_i64 k = t; k < n; k += tpr) {
      S re = cx_load_re<S>(x, k * s);
      a[k] = cx_make<S>(wi ? re * wi[k] : re, (S)0);
    }
  } else if (n % 2 == 0) {
    // The imaginary parts of X[0] and X[h] do not exist in a real signal's
    // spectrum: dropped.
    for (cx_i64 k = t; k < h; k += tpr) {
      cx<S> u = cx_load<S>(x, k * s), v = cx_conj(cx_load<S>(x, (h - k) * s));
      if (k == 0) {
        u.im = (S)0;
        v.im = (S)0;
      }
      a[k] = cx_conj((u + v) + cx_mul_i(cx_mul_conj(u - v, J.rtw[k])));
    }
  } else {
    for (cx_i64 k = t; k <= h; k += tpr) {
      cx<S> u = cx_load<S>(x, k * s);
      if (k == 0) {
        a[0] = cx_make<S>(u.re, (S)0);
      } else {
        a[k] = cx_conj(u);
        a[n - k] = u;
      }
    }
  }
}

// ---- store: a[0, len) -> row y (already offset) -------------------------------------
template <typename S, typename To>
CX_FN void cx_job_store(const cx_block_job<S>& J, int t, int tpr, cx_i64 row,
                        const CX_SHARED cx<S>* a, CX_GLOBAL To* y) {
  const cx_i64 n = J.n, h = n / 2, s = J.out_stride;
  const S sc = J.scale;
  const S* wo = J.win_out;
  if (J.kind == CX_JOB_C2C) {
    const cx_i64 col = J.row_tw ? row % J.tw_cols : 0;
    for (cx_i64 k = t; k < J.out_len; k += tpr) {
      cx<S> z = cx_scale(J.conj_out ? cx_conj(a[k]) : a[k], wo ? sc * wo[k] : sc);
      if (J.row_tw) z = cx_mul(z, J.row_tw[(k * col) % J.tw_len]);
      cx_store<S>(y, k * s, z);
    }
  } else if (J.kind == CX_JOB_R2C && n % 2 == 0) {
    const S half = (S)0.5 * sc;
    const cx_i64 top = J.out_len < h + 1 ? J.out_len : h + 1;
    for (cx_i64 k = t; k < top; k += tpr) {
      cx<S> u = a[k == h ? 0 : k], v = cx_conj(a[k == 0 ? 0 : h - k]);
      cx<S> X = cx_scale((u + v) + cx_mul_neg_i(cx_mul(u - v, J.rtw[k])), half);
      cx_store<S>(y, k * s, X);
      if (J.out_len == n && k > 0 && k < h) cx_store<S>(y, (n - k) * s, cx_conj(X));
    }
  } else if (J.kind == CX_JOB_R2C) {
    for (cx_i64 k = t; k < J.out_len; k += tpr) cx_store<S>(y, k * s, cx_scale(a[k], sc));
  } else if (n % 2 == 0) {
    for (cx_i64 k = t; k < h; k += tpr) {
      cx<S> z = cx_scale(cx_conj(a[k]), sc);
      if (wo) z = cx_make<S>(z.re * wo[2 * k], z.im * wo[2 * k + 1]);
      cx_store_re<S>(y, 2 * k * s, z.re);
      cx_store_re<S>(y, (2 * k + 1) * s, z.im);
    }
  } else {
    for (cx_i64 k = t; k < n; k += tpr) cx_store_re<S>(y, k * s, a[k].re * (wo ? sc * wo[k] : sc));
  }
}

// ---- Bluestein around the passes, in place ------------------------------------
template <typename S>
CX_FN void cx_job_chirp_in(const cx_block_job<S>& J, int t, int tpr, CX_SHARED cx<S>* a) {
  for (cx_i64 k = t; k < J.m; k += tpr)
    a[k] = k < J.len ? cx_mul(a[k], J.chirp[k]) : cx_make<S>((S)0, (S)0);
}
template <typename S>
CX_FN void cx_job_chirp_out(const cx_block_job<S>& J, int t, int tpr, CX_SHARED cx<S>* a) {
  for (cx_i64 k = t; k < J.len; k += tpr) a[k] = cx_mul(cx_conj(a[k]), J.chirp[k]);
}

// ---- a Stockham pass with the radix known at compile time -----------------------
template <typename S>
CX_FN void cx_job_pass(int t, int tpr, cx_i64 n, cx_pass ps, const CX_GLOBAL cx<S>* tw,
                       const CX_GLOBAL cx<S>* roots, const CX_SHARED cx<S>* a,
                       CX_SHARED cx<S>* b) {
  switch (ps.radix) {
    case 2: cx_block_pass<S, 2>(t, tpr, n, ps, tw, roots, a, b); break;
    case 3: cx_block_pass<S, 3>(t, tpr, n, ps, tw, roots, a, b); break;
    case 4: cx_block_pass<S, 4>(t, tpr, n, ps, tw, roots, a, b); break;
    case 5: cx_block_pass<S, 5>(t, tpr, n, ps, tw, roots, a, b); break;
    case 7: cx_block_pass<S, 7>(t, tpr, n, ps, tw, roots, a, b); break;
    case 8: cx_block_pass<S, 8>(t, tpr, n, ps, tw, roots, a, b); break;
    case 11: cx_block_pass<S, 11>(t, tpr, n, ps, tw, roots, a, b); break;
    case 13: cx_block_pass<S, 13>(t, tpr, n, ps, tw, roots, a, b); break;
    case 16: cx_block_pass<S, 16>(t, tpr, n, ps, tw, roots, a, b); break;
    default: break;  // no plan has another radix (gpu_plan.h checks)
  }
}

// ---- one phase of one row ---------------------------------------------------------
// Load, store and the Bluestein steps act on the row's buffer a (shared
// memory in the block kernel, a work row in the multi-pass path).
template <typename S, typename Ti, typename To>
CX_FN void cx_job_row_phase(const cx_block_job<S>& J, int phase, int t, int tpr, cx_i64 row,
                            CX_SHARED cx<S>* a) {
  if (phase == CX_PH_LOAD) {
    const Ti* x = (const Ti*)J.in + cx_job_in_comps(J) * cx_row_in_offset(J.rows, row);
    cx_job_load<S, Ti>(J, t, tpr, x, a);
  } else if (phase == CX_PH_CHIRP_IN) {
    cx_job_chirp_in<S>(J, t, tpr, a);
  } else if (phase == CX_PH_POINTWISE) {
    cx_block_pointwise<S>(t, tpr, J.m, J.filter, a);
  } else if (phase == CX_PH_CHIRP_OUT) {
    cx_job_chirp_out<S>(J, t, tpr, a);
  } else if (phase == CX_PH_STORE) {
    To* y = (To*)J.out + cx_job_out_comps(J) * cx_row_out_offset(J.rows, row);
    cx_job_store<S, To>(J, t, tpr, row, a, y);
  }
}

// ---- the block program: phases p = 0 .. cx_block_nphases(J)-1 --------------------
//   plain:     load, pass 0..np-1, store
//   Bluestein: load, chirp_in, pass 0..np-1, pointwise, pass 0..np-1, chirp_out, store
// Pass i reads buffer (passes done so far) % 2 and writes the other.
template <typename S>
CX_FN int cx_block_nphases(const cx_block_job<S>& J) {
  return J.bluestein ? 2 * J.npasses + 5 : J.npasses + 2;
}

// The phase kind of step p, its pass index, and which buffer (0: s0, 1: s1) holds the data.
template <typename S>
CX_FN int cx_block_step(const cx_block_job<S>& J, int p, CX_PRIVATE int* pass,
                        CX_PRIVATE int* buf) {
  const int np = J.npasses;
  *pass = 0;
  *buf = 0;
  if (p == 0) return CX_PH_LOAD;
  if (!J.bluestein) {
    if (p <= np) {
      *pass = p - 1;
      *buf = (p - 1) % 2;
      return CX_PH_PASS;
    }
    *buf = np % 2;
    return CX_PH_STORE;
  }
  if (p == 1) return CX_PH_CHIRP_IN;
  if (p <= np + 1) {
    *pass = p - 2;
    *buf = (p - 2) % 2;
    return CX_PH_PASS;
  }
  if (p == np + 2) {
    *buf = np % 2;
    return CX_PH_POINTWISE;
  }
  if (p <= 2 * np + 2) {
    *pass = p - np - 3;
    *buf = (np + *pass) % 2;
    return CX_PH_PASS;
  }
  *buf = 0;  // 2 * np passes: back in s0
  return p == 2 * np + 3 ? CX_PH_CHIRP_OUT : CX_PH_STORE;
}

template <typename S, typename Ti, typename To>
CX_FN void cx_block_phase(const cx_block_job<S>& J, int p, int t, int tpr, cx_i64 row,
                          CX_SHARED cx<S>* s0, CX_SHARED cx<S>* s1) {
  int pass, buf;
  const int ph = cx_block_step(J, p, &pass, &buf);
  CX_SHARED cx<S>* cur = buf ? s1 : s0;
  if (ph == CX_PH_PASS) {
    const cx_i64 len = J.bluestein ? J.m : J.len;
    cx_job_pass<S>(t, tpr, len, J.passes[pass], J.tw, J.roots, cur, buf ? s0 : s1);
  } else {
    cx_job_row_phase<S, Ti, To>(J, ph, t, tpr, row, cur);
  }
}

// ---- the block kernel: launch shape and one thread's part of a phase ---------------
// Row buffers hold the inner length (Bluestein's m) and the sequence (len).
template <typename S>
CX_FN cx_i64 cx_block_buflen(const cx_block_job<S>& J) {
  const cx_i64 inner = J.bluestein ? J.m : J.len;
  return inner > J.len ? inner : J.len;
}

// Threads per row: about one per 8 elements of the inner length, at most
// max_threads (whole warps above 32); short rows share a block (rows_per_block)
// while their buffers stay under 48 KiB.
CX_FN void cx_block_shape(cx_i64 inner, cx_i64 nrows, cx_i64 row_bytes, int max_threads,
                          CX_PRIVATE int* tpr, CX_PRIVATE int* rows_per_block) {
  cx_i64 t = (inner + 7) / 8;
  if (t > max_threads) t = max_threads;
  if (t > 32) t = (t + 31) / 32 * 32;
  if (t > max_threads) t = max_threads;
  if (t < 1) t = 1;
  cx_i64 r = max_threads / t;
  const cx_i64 by_smem = (48 * 1024) / row_bytes;
  if (r > by_smem) r = by_smem;
  if (r > nrows) r = nrows;
  if (r < 1) r = 1;
  *tpr = (int)t;
  *rows_per_block = (int)r;
}

// Thread `thread` (0 <= thread < tpr * rows_per_block) of block `block` in
// phase p: row block*rows_per_block + thread/tpr, whose two buffers follow
// each other in the block's shared memory. Threads past the last row do
// nothing (but still reach every barrier).
template <typename S, typename Ti, typename To>
CX_FN void cx_block_thread_phase(const cx_block_job<S>& J, int p, int thread, int tpr,
                                 int rows_per_block, cx_i64 block, CX_SHARED cx<S>* smem) {
  const int local = thread / tpr;
  const cx_i64 row = block * rows_per_block + local;
  if (row >= J.nrows) return;
  const cx_i64 buflen = cx_block_buflen(J);
  CX_SHARED cx<S>* s0 = smem + (cx_i64)local * 2 * buflen;
  cx_block_phase<S, Ti, To>(J, p, thread % tpr, tpr, row, s0, s0 + buflen);
}

// ---- ISTFT: window envelope and overlap-add ------------------------------------
// env[s] = sum over frames t covering s of w[s - t*hop]^2, in double.
template <typename S>
CX_FN double cx_envelope_at(cx_i64 s, const CX_GLOBAL S* w, cx_i64 n_fft, cx_i64 hop, cx_i64 T) {
  cx_i64 t_hi = s / hop;
  if (t_hi > T - 1) t_hi = T - 1;
  const cx_i64 t_lo = s >= n_fft ? (s - n_fft) / hop + 1 : 0;
  double e = 0.0;
  for (cx_i64 tt = t_lo; tt <= t_hi; ++tt) {
    const double v = (double)w[s - tt * hop];
    e += v * v;
  }
  return e;
}

// Element e of the ISTFT output (comps scalars per sample: 1 real, 2 complex):
// y[b, i] = sum_t frames[b, t, s - t*hop] / env[s], s = start + i, 0 past the
// end of the signal. frames: [B][T][n_fft][comps] in the compute type.
template <typename S, typename To>
CX_FN void cx_ola_element(cx_i64 e, const CX_GLOBAL S* frames, const CX_GLOBAL double* env,
                          CX_GLOBAL To* y, cx_i64 T, cx_i64 n_fft, cx_i64 hop, cx_i64 start,
                          cx_i64 length, int comps) {
  const int c = (int)(e % comps);
  const cx_i64 i = e / comps, b = i / length, s = start + i % length;
  const cx_i64 full = n_fft + hop * (T - 1);
  S acc = (S)0;
  if (s < full) {
    cx_i64 t_hi = s / hop;
    if (t_hi > T - 1) t_hi = T - 1;
    const cx_i64 t_lo = s >= n_fft ? (s - n_fft) / hop + 1 : 0;
    const CX_GLOBAL S* f = frames + b * T * n_fft * comps;
    for (cx_i64 tt = t_lo; tt <= t_hi; ++tt) acc += f[(tt * n_fft + s - tt * hop) * comps + c];
    acc /= (S)env[s];
  }
  cx_store_re<S>(y, e, acc);
}

#endif
