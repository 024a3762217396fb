// Metal FFT kernels over the portable core (csrc/core/cx_block.h).
//
// cx_fft_*: each threadgroup transforms MX_RPG rows of length n <= 2048 (or
// Bluestein length m <= 2048) held in threadgroup memory, MX_TPR threads per
// row, one read and one write of the data, a barrier after every phase:
//
//   a[k]  = chirp?(conj?(window?(x[k])))      k < len, 0 past n
//   for each pass:  b = stockham_pass(a); swap(a, b)
//   (Bluestein: a = conj(a * filter), then the passes again)
//   y[k] = window?(twiddle?(conj?(scale * unchirp?(a[k]))))    k < nout
//
// x is complex, real (r2c, STFT) or the stored half of a Hermitian row
// (c2r: a[k] = conj(x[n - k]) past the stored bins); y is complex or the
// real part (c2r, ISTFT frames). Rows lie anywhere: offsets from the batch
// geometry in meta (any strides). Names: cx_fft_<in><out>_<s|l>, h = fp16
// storage, f = fp32; l holds 4096 complex values (32 KB), s 1024 (8 KB).
//
// cx_map_*: one thread per element, the same load and store without the
// passes; a step of the multi-pass plans (Bluestein's chirp and filter
// products, four-step twiddles when a row is too long for one block).
//
// Pointers in helper signatures carry the core's address-space macros;
// `threadgroup` is written only where kernels declare their memory.
#include "../core/cx_block.h"
#include "meta.h"
#include "storage.h"

typedef const CX_CONST cx_i64* mtl_meta;

CX_FN cx_rows mtl_rows(mtl_meta M) {
  cx_rows R;
  R.nd = (int)M[MX_ND];
  for (int d = 0; d < CX_BLOCK_MAX_DIMS; ++d) {
    R.sizes[d] = M[MX_SIZES + d];
    R.in_strides[d] = M[MX_IN_STRIDES + d];
    R.out_strides[d] = M[MX_OUT_STRIDES + d];
  }
  return R;
}

// Element k < n of the logical input row starting at off.
template <typename Ti>
CX_FN cx<float> mtl_fetch(const CX_GLOBAL Ti* x, cx_i64 off, cx_i64 k, mtl_meta M) {
  const cx_i64 s = M[MX_IN_STRIDE];
  if (M[MX_IN_KIND] == MX_REAL) return cx_make<float>(mtl_real(x, off + k * s), 0.0f);
  if (M[MX_IN_KIND] == MX_HERMITIAN && k >= M[MX_NIN])
    return cx_conj(cx_load<float>(x, off + (M[MX_N] - k) * s));
  return cx_load<float>(x, off + k * s);
}

// The store side shared by both kernels: twiddle, window, then the write.
template <typename To>
CX_FN void mtl_put(CX_GLOBAL To* y, cx_i64 off, cx_i64 row, cx_i64 k, cx<float> z,
                   const CX_GLOBAL float* win, const CX_GLOBAL cx<float>* tw4, mtl_meta M) {
  if (M[MX_TW4_N] > 0) {
    const cx_i64 j = (row / M[MX_TW4_DIV]) % M[MX_TW4_MOD];
    z = cx_mul(z, tw4[(j * k) % M[MX_TW4_N]]);
  }
  if (M[MX_WIN] == MX_WIN_STORE) z = cx_scale(z, win[k]);
  const cx_i64 i = off + k * M[MX_OUT_STRIDE];
  if (M[MX_OUT_KIND] == MX_REAL)
    mtl_put_real(y, i, z.re);
  else
    cx_store<float>(y, i, z);
}

CX_FN cx_pass mtl_pass(mtl_meta M, int i) {
  cx_pass ps;
  ps.radix = (int)M[MX_PASSES + 4 * i];
  ps.ns = (int)M[MX_PASSES + 4 * i + 1];
  ps.tw = (int)M[MX_PASSES + 4 * i + 2];
  ps.roots = (int)M[MX_PASSES + 4 * i + 3];
  return ps;
}

template <typename Ti, typename To>
CX_FN void mtl_fft_group(const CX_GLOBAL Ti* x, CX_GLOBAL To* y, const CX_GLOBAL cx<float>* tab,
                         const CX_GLOBAL float* win, const CX_GLOBAL cx<float>* tw4, mtl_meta M,
                         float scale, CX_SHARED cx<float>* buf, uint tid, uint grp) {
  const int tpr = (int)M[MX_TPR];
  const int rpg = (int)M[MX_RPG];
  const cx_i64 n = M[MX_N], len = M[MX_LEN];
  const int blue = (int)M[MX_BLUESTEIN];
  const int slot = (int)tid / tpr;
  const int t = (int)tid % tpr;
  const cx_i64 row = (cx_i64)grp * rpg + slot;
  // Threads past the last row still reach every barrier.
  const bool active = slot < rpg && row < M[MX_NROWS];
  const cx_rows R = mtl_rows(M);
  const cx_i64 in_off = active ? cx_row_in_offset(R, row) : 0;
  const cx_i64 out_off = active ? cx_row_out_offset(R, row) : 0;
  CX_SHARED cx<float>* a = buf + (active ? (cx_i64)slot * 2 * len : 0);
  CX_SHARED cx<float>* b = a + len;

  if (active) {
    for (cx_i64 k = t; k < len; k += tpr) {
      cx<float> z = cx_make<float>(0.0f, 0.0f);
      if (k < n) {
        z = mtl_fetch<Ti>(x, in_off, k, M);
        if (M[MX_WIN] == MX_WIN_LOAD) z = cx_scale(z, win[k]);
        if (M[MX_CONJ_IN]) z = cx_conj(z);
        if (blue) z = cx_mul(z, tab[M[MX_CHIRP] + k]);
      }
      a[k] = z;
    }
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  const int npasses = (int)M[MX_NPASSES];
  for (int sweep = 0; sweep < 1 + blue; ++sweep) {
    for (int i = 0; i < npasses; ++i) {
      if (active) cx_block_pass<float>(t, tpr, len, mtl_pass(M, i), tab + M[MX_TW],
                                       tab + M[MX_ROOTS], a, b);
      threadgroup_barrier(mem_flags::mem_threadgroup);
      CX_SHARED cx<float>* tmp = a;
      a = b;
      b = tmp;
    }
    if (blue && sweep == 0) {
      if (active) cx_block_pointwise<float>(t, tpr, len, tab + M[MX_FILTER], a);
      threadgroup_barrier(mem_flags::mem_threadgroup);
    }
  }
  if (!active) return;
  for (cx_i64 k = t; k < M[MX_NOUT]; k += tpr) {
    cx<float> z = a[k];
    if (blue) z = cx_mul(cx_conj(z), tab[M[MX_CHIRP] + k]);
    z = cx_scale(z, scale);
    if (M[MX_CONJ_OUT]) z = cx_conj(z);
    mtl_put<To>(y, out_off, row, k, z, win, tw4, M);
  }
}

template <typename Ti, typename To>
CX_FN void mtl_map(const CX_GLOBAL Ti* x, CX_GLOBAL To* y, const CX_GLOBAL cx<float>* tab,
                   const CX_GLOBAL float* win, const CX_GLOBAL cx<float>* tw4, mtl_meta M,
                   float scale, uint gid) {
  const cx_i64 nout = M[MX_NOUT];
  const cx_i64 row = (cx_i64)gid / nout, k = (cx_i64)gid % nout;
  if (row >= M[MX_NROWS]) return;
  const cx_rows R = mtl_rows(M);
  // Elements past the stored ones (k >= MX_NIN) are zeros: padding.
  const bool stored = k < M[MX_NIN] || M[MX_IN_KIND] == MX_HERMITIAN;
  cx<float> z = cx_make<float>(0.0f, 0.0f);
  if (stored) {
    z = mtl_fetch<Ti>(x, cx_row_in_offset(R, row), k, M);
    if (M[MX_WIN] == MX_WIN_LOAD) z = cx_scale(z, win[k]);
  }
  if (M[MX_CONJ_IN]) z = cx_conj(z);
  if (stored && M[MX_MUL] >= 0) z = cx_mul(z, tab[M[MX_MUL] + k]);
  if (M[MX_CONJ_OUT]) z = cx_conj(z);
  mtl_put<To>(y, cx_row_out_offset(R, row), row, k, cx_scale(z, scale), win, tw4, M);
}

#define MTL_ARGS(TI, TO)                                                                     \
  device const TI* x [[buffer(0)]], device TO* y [[buffer(1)]],                              \
      device const cx<float>* tab [[buffer(2)]], device const float* win [[buffer(3)]],      \
      device const cx<float>* tw4 [[buffer(4)]], constant long* meta [[buffer(5)]],          \
      constant float& scale [[buffer(6)]]

#define MTL_FFT_KERNEL(NAME, TI, TO, ELEMS)                                                  \
  kernel void NAME(MTL_ARGS(TI, TO), uint tid [[thread_index_in_threadgroup]],               \
                   uint grp [[threadgroup_position_in_grid]]) {                              \
    threadgroup cx<float> buf[ELEMS];                                                        \
    mtl_fft_group<TI, TO>(x, y, tab, win, tw4, meta, scale, buf, tid, grp);                  \
  }

#define MTL_MAP_KERNEL(NAME, TI, TO)                                                         \
  kernel void NAME(MTL_ARGS(TI, TO), uint gid [[thread_position_in_grid]]) {                 \
    mtl_map<TI, TO>(x, y, tab, win, tw4, meta, scale, gid);                                  \
  }

MTL_FFT_KERNEL(cx_fft_hh_l, cx_half_t, cx_half_t, 4096)
MTL_FFT_KERNEL(cx_fft_hf_l, cx_half_t, float, 4096)
MTL_FFT_KERNEL(cx_fft_fh_l, float, cx_half_t, 4096)
MTL_FFT_KERNEL(cx_fft_ff_l, float, float, 4096)
MTL_FFT_KERNEL(cx_fft_hh_s, cx_half_t, cx_half_t, 1024)
MTL_FFT_KERNEL(cx_fft_hf_s, cx_half_t, float, 1024)
MTL_FFT_KERNEL(cx_fft_fh_s, float, cx_half_t, 1024)
MTL_FFT_KERNEL(cx_fft_ff_s, float, float, 1024)
MTL_MAP_KERNEL(cx_map_hf, cx_half_t, float)
MTL_MAP_KERNEL(cx_map_fh, float, cx_half_t)
MTL_MAP_KERNEL(cx_map_ff, float, float)
