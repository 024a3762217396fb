// The two-sided spectrum of real rows from their onesided half: after the
// register r2c kernel has written bins 0 .. h (h = n / 2, n even) of each
// output row, bins h + 1 .. n - 1 follow from X[k] = conj(X[n - k]).
//
// Element e < nrows * (h - 1): row e / (h - 1) (the divisor precomputed
// on the host), bin k = h + 1 + e % (h - 1), read from bin n - k. Lanes on neighbouring bins read neighbouring bins downwards, so
// a warp's loads and stores cover whole sectors as far as its run allows;
// values move as one access each (fp16 pairs as 32 bits). The conjugate
// is exact in every storage type (a sign), so the upper half is the exact
// mirror of the lower one, as the CPU kernels give it.
//
// Rows lie as the r2c kernel's output (cx_reg_args: out, inner,
// o_stride0/1; unit stride along the axis). 32-bit element index: the
// driver keeps nrows * (h - 1) below 2^31.
#pragma once
#include "cx_reg_fft.h"

#if !defined(CX_METAL)

template <typename S, typename To>
CX_FN void cx_mirror_element(const cx_reg_args<S>& A, int n, cx_fastdiv m, cx_u32 e) {
  const cx_u32 row = cx_fastdiv_div(e, m);
  const int k = n / 2 + 1 + (int)(e - row * m.d);
  const cx_i64 base = cx_reg_row_offset(A, (int)row, 1);
  CX_GLOBAL To* y = (CX_GLOBAL To*)A.out;
  cx<S> z = cx_reg_ld<S>(y, base + (n - k));
  z.im = -z.im;
  cx_reg_st<S>(y, base + k, z);
}

// CX_MIRROR_V elements a thread, e0 + j * stride (j < V, e < count): every
// load issued before the first store, so that a thread keeps V loads in
// flight (the launch: stride = the block's threads, a block covering V
// strides of consecutive elements).
#define CX_MIRROR_V 4
template <typename S, typename To>
CX_FN void cx_mirror_thread(const cx_reg_args<S>& A, int n, cx_fastdiv m, cx_u32 e0, cx_u32 stride,
                            cx_u32 count) {
  CX_GLOBAL To* y = (CX_GLOBAL To*)A.out;
  cx<S> z[CX_MIRROR_V];
  cx_i64 dst[CX_MIRROR_V];
  for (int j = 0; j < CX_MIRROR_V; ++j) {
    const cx_u32 e = e0 + (cx_u32)j * stride;
    dst[j] = -1;
    if (e >= count) continue;
    const cx_u32 row = cx_fastdiv_div(e, m);
    const int k = n / 2 + 1 + (int)(e - row * m.d);
    const cx_i64 base = cx_reg_row_offset(A, (int)row, 1);
    z[j] = cx_reg_ld<S>(y, base + (n - k));
    dst[j] = base + k;
  }
  for (int j = 0; j < CX_MIRROR_V; ++j) {
    if (dst[j] < 0) continue;
    z[j].im = -z[j].im;
    cx_reg_st<S>(y, dst[j], z[j]);
  }
}

// Elements of the mirror of nrows rows of n (n even; 0 for n <= 2).
CX_CFN cx_i64 cx_mirror_count(cx_i64 nrows, int n) { return n > 2 ? nrows * (n / 2 - 1) : 0; }

#endif  // !CX_METAL
