// One transform per group of threads sharing on-chip memory: the per-block
// code of the CUDA kernels (a block) and the Metal kernels (a threadgroup),
// which the CPU tests also run, thread by thread between barriers.
//
// A row of length n lives in two shared buffers a, b (ping-pong). Each phase
// below is run by every thread t < tpr of the row, then a barrier:
//
//   load:   a[k] = x[k*stride]                  k = t, t+tpr, ...
//   pass:   b[...] = DFT_R(twiddled a[j + r*n/R])  j = t, t+tpr, ...; swap a, b
//   store:  y[k*stride] = a[k] * scale
//
// Bluestein (length n as a cyclic convolution of length m) wraps the passes
// of its inner plan: load_chirp (a[k] = x[k]*c[k], zero up to m), passes,
// pointwise (a[k] = conj(a[k]*filter[k])), passes, store_chirp
// (y[k] = conj(a[k])*c[k]).
//
// A thread writes only the elements its own loop produces and reads the
// other buffer, so a phase has no races by construction; the barriers
// separate the phases.
#pragma once
#include "cx_stockham.h"
#include "cx_half.h"

// ---- storage types: a complex value at element index i ---------------------
template <typename S>
CX_FN cx<S> cx_load(const CX_GLOBAL cx_half_t* p, cx_i64 i) {
  return cx_make<S>((S)cx_half_to_float(p[2 * i]), (S)cx_half_to_float(p[2 * i + 1]));
}
template <typename S>
CX_FN cx<S> cx_load(const CX_GLOBAL float* p, cx_i64 i) {
  return cx_make<S>((S)p[2 * i], (S)p[2 * i + 1]);
}
template <typename S>
CX_FN void cx_store(CX_GLOBAL cx_half_t* p, cx_i64 i, cx<S> z) {
  p[2 * i] = cx_float_to_half((float)z.re);
  p[2 * i + 1] = cx_float_to_half((float)z.im);
}
template <typename S>
CX_FN void cx_store(CX_GLOBAL float* p, cx_i64 i, cx<S> z) {
  p[2 * i] = (float)z.re;
  p[2 * i + 1] = (float)z.im;
}
#if !defined(CX_METAL)  // Metal has no double
template <typename S>
CX_FN cx<S> cx_load(const CX_GLOBAL double* p, cx_i64 i) {
  return cx_make<S>((S)p[2 * i], (S)p[2 * i + 1]);
}
template <typename S>
CX_FN void cx_store(CX_GLOBAL double* p, cx_i64 i, cx<S> z) {
  p[2 * i] = (double)z.re;
  p[2 * i + 1] = (double)z.im;
}
#endif

// ---- rows: offsets of row r over the batch dims (last dim fastest) -------
#define CX_BLOCK_MAX_DIMS 8
struct cx_rows {
  int nd;
  cx_i64 sizes[CX_BLOCK_MAX_DIMS];
  cx_i64 in_strides[CX_BLOCK_MAX_DIMS];   // in complex elements
  cx_i64 out_strides[CX_BLOCK_MAX_DIMS];
};

CX_FN cx_i64 cx_row_offset(cx_rows R, cx_i64 row, int out) {
  cx_i64 off = 0;
  for (int d = R.nd - 1; d >= 0; --d) {
    off += (row % R.sizes[d]) * (out ? R.out_strides[d] : R.in_strides[d]);
    row /= R.sizes[d];
  }
  return off;
}
CX_FN cx_i64 cx_row_in_offset(cx_rows R, cx_i64 row) { return cx_row_offset(R, row, 0); }
CX_FN cx_i64 cx_row_out_offset(cx_rows R, cx_i64 row) { return cx_row_offset(R, row, 1); }

// ---- phases ------------------------------------------------------------------
template <typename S, typename Ti>
CX_FN void cx_block_load(int t, int tpr, cx_i64 n, const CX_GLOBAL Ti* x, cx_i64 stride,
                         int conj, CX_SHARED cx<S>* a) {
  for (cx_i64 k = t; k < n; k += tpr) {
    cx<S> z = cx_load<S>(x, k * stride);
    a[k] = conj ? cx_conj(z) : z;
  }
}

// RT > 0: the radix as a compile-time constant (it must equal ps.radix):
// every index into v is then a constant once the loops unroll, so on a GPU
// v stays in registers (with a run-time radix it is an indexed array in
// local memory: ptxas reports a 768 byte stack frame for the fp64 kernel
// with RT = 0, 200 without). RT = 0: the radix read from ps at run time.
template <typename S, int RT = 0>
CX_FN void cx_block_pass(int t, int tpr, cx_i64 n, cx_pass ps, const CX_GLOBAL cx<S>* tw,
                         const CX_GLOBAL cx<S>* roots, const CX_SHARED cx<S>* a,
                         CX_SHARED cx<S>* b) {
  const int R = RT > 0 ? RT : ps.radix;
  const cx_i64 q = n / R;
  for (cx_i64 j = t; j < q; j += tpr) {
    cx<S> v[CX_MAX_RADIX];
    for (int r = 0; r < R; ++r) v[r] = a[j + r * q];
    const cx_i64 k = j % ps.ns;
    if (ps.ns > 1) cx_apply_twiddles<S, S>(v, R, tw + ps.tw + k * (R - 1));
    cx_dft<S, S>(v, R, roots + ps.roots);
    const cx_i64 o = cx_stockham_out_index(j, ps.ns, R);
    for (int r = 0; r < R; ++r) b[o + r * ps.ns] = v[r];
  }
}

template <typename S, typename To>
CX_FN void cx_block_store(int t, int tpr, cx_i64 n, const CX_SHARED cx<S>* a, CX_GLOBAL To* y,
                          cx_i64 stride, int conj, S scale) {
  for (cx_i64 k = t; k < n; k += tpr) {
    cx<S> z = cx_scale(a[k], scale);
    cx_store<S>(y, k * stride, conj ? cx_conj(z) : z);
  }
}

// Bluestein phases (chirp and filter from the plan, m the inner length).
template <typename S, typename Ti>
CX_FN void cx_block_load_chirp(int t, int tpr, cx_i64 n, cx_i64 m, const CX_GLOBAL Ti* x,
                               cx_i64 stride, int conj, const CX_GLOBAL cx<S>* chirp,
                               CX_SHARED cx<S>* a) {
  for (cx_i64 k = t; k < m; k += tpr) {
    if (k < n) {
      cx<S> z = cx_load<S>(x, k * stride);
      a[k] = cx_mul(conj ? cx_conj(z) : z, chirp[k]);
    } else {
      a[k] = cx_make<S>((S)0, (S)0);
    }
  }
}

template <typename S>
CX_FN void cx_block_pointwise(int t, int tpr, cx_i64 m, const CX_GLOBAL cx<S>* filter,
                              CX_SHARED cx<S>* a) {
  for (cx_i64 k = t; k < m; k += tpr) a[k] = cx_conj(cx_mul(a[k], filter[k]));
}

template <typename S, typename To>
CX_FN void cx_block_store_chirp(int t, int tpr, cx_i64 n, const CX_SHARED cx<S>* a,
                                CX_GLOBAL To* y, cx_i64 stride, int conj,
                                const CX_GLOBAL cx<S>* chirp, S scale) {
  for (cx_i64 k = t; k < n; k += tpr) {
    cx<S> z = cx_scale(cx_mul(cx_conj(a[k]), chirp[k]), scale);
    cx_store<S>(y, k * stride, conj ? cx_conj(z) : z);
  }
}
