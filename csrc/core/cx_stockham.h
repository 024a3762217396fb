// Stockham autosort FFT: the index arithmetic and one butterfly step, shared
// by the CPU, CUDA and Metal schedules.
//
// A length-n transform is a sequence of passes of radix R. Before a pass the
// data holds n/ns interleaved transforms of length ns; after it, transforms
// of length ns*R. Step j (0 <= j < n/R) of a pass:
//
//   k = j % ns
//   v[r] = x[j + r*n/R] * exp(-2*pi*i*r*k/(ns*R))   for r < R
//   v = DFT_R(v)
//   y[(j/ns)*ns*R + k + r*ns] = v[r]
//
// Reads are unit-stride in j and writes are unit-stride in k, and no bit
// reversal is needed at the end.
#pragma once
#include "cx_butterfly.h"

// One pass of a plan. Twiddles of the pass live at plan.tw + tw, laid out
// [ns][R-1] so the R-1 factors of one step are adjacent. roots is the offset
// of the R roots of unity used by the generic odd butterfly.
struct cx_pass {
  int radix;
  int ns;
  int tw;
  int roots;
};

CX_FN cx_i64 cx_stockham_out_index(cx_i64 j, int ns, int radix) {
  return (j / ns) * ns * radix + (j % ns);
}

// Multiply v[1..R-1] by the step's twiddles w[0..R-2].
template <typename T, typename S>
CX_FN void cx_apply_twiddles(CX_PRIVATE cx<T>* v, int R, const CX_GLOBAL cx<S>* w) {
  for (int r = 1; r < R; ++r) v[r] = cx_mul(v[r], w[r - 1]);
}

#if !defined(CX_METAL)
// A plan as the kernels see it: plain data owned by the host-side plan
// cache. Bluestein plans (bluestein != 0) compute a length-n transform as a
// cyclic convolution of length m with the inner plan (m is 2,3,5-smooth).
template <typename S>
struct cx_plan_desc {
  cx_i64 n;
  int npasses;
  cx_pass passes[CX_MAX_PASSES];
  const cx<S>* tw;
  const cx<S>* roots;
  int bluestein;
  cx_i64 m;
  const cx<S>* chirp;   // exp(-i*pi*k^2/n), k < n
  const cx<S>* filter;  // DFT_m of conj(chirp) wrapped, scaled by 1/m
  const cx_plan_desc<S>* inner;
  cx_i64 work;          // elements a work buffer must hold (max(n, m))
  // For n = 16*m (m >= 16; CPU row kernels): the Stockham plan of m and
  // exp(-2*pi*i*b*c/n) at [c*16 + b], c < m, b < 16, split re / im.
  const cx_plan_desc<S>* row;
  const S* row_re;
  const S* row_im;
  // The same transform's passes cut with the CPU instruction set's top
  // radix when that cuts them otherwise (AVX2: 8, not 16), for the CPU lane
  // engine; null when the passes above are those.
  const cx_plan_desc<S>* lane;
  // The CPU lane engine's Rader cut of a prime n (bluestein = 4): g^r mod n
  // and g^-r mod n, r < n - 1, for a generator g.
  const int* perm_in;
  const int* perm_out;
  // On the inner plan of a CPU lane-engine Bluestein or Rader cut: the same
  // length with its first and last radices swapped, which the transform back
  // runs after the middle pass (pass_middle_times in lane_bluestein.h: the
  // forward transform's last pass, the filter and the inverse's first pass
  // in one sweep); this plan itself where those radices are equal.
  const cx_plan_desc<S>* back;
};
#endif
