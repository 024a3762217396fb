// The register kernels' side of the CUDA FFT driver (fft_driver.h): which
// job a register kernel takes and in which mode (reg_job), one axis on it
// (run_reg_job, with the two-sided r2c's mirror), a c2c above 16384 in two
// register passes (run_reg_split) and Bluestein in one register kernel
// (run_reg_bluestein). Each returns false, with nothing launched, where it
// does not apply; fft_driver.h's run_gpu_job then takes the block kernels.
// E: the executor of fft_driver.h (smem, reg, mirror).
#pragma once
#include <ATen/ATen.h>

#include <cstdint>
#include <type_traits>

#include "../core/cx_mirror.h"
#include "../core/cx_reg_fft.h"
#include "../core/cx_reg_plans.h"
#include "gpu_plan.h"

namespace complexext {
namespace gpu {


// Bytes of one complex value of storage code c.
inline int storage_bytes(int c) { return c == 0 ? 4 : c == 1 ? 8 : 16; }

// The register kernel's arguments, length and mode for job J, if a kernel
// takes it: a plain c2c of a length it has, or an even real transform (R2C, C2R) whose half length it
// has, along a unit-stride axis with rows on whole pairs of samples. Its
// rows fit two batch dims and 32-bit indices, and the block's shared memory
// fits smem. The c2c mode: a unit-stride axis reads lane-consecutive
// elements (DIRECT) unless a row's threads cannot fill one 32-byte sector
// (STAGED, for contiguous rows); a strided axis whose innermost batch dim
// has unit stride takes a tile of neighbouring rows (COLUMNS); any other
// strided axis is left to the block kernels (the direct mode's offsets are
// compile-time, for unit stride). pad > 0 (frames of a padded signal, see
// cx_reg_args) and a window on the load: R2C only.
template <class S>
bool reg_job(const cx_block_job<S>& J, int ti, int to, int64_t smem, cx_reg_args<S>& A,
             int& n_out, int& mode, int pad = 0, int pad_mode = 0, int64_t sig_len = 0) {
  if (J.row_tw || J.bluestein || J.nrows <= 0 || J.nrows >= (int64_t(1) << 31)) return false;
  const cx_rows& R = J.rows;
  if (R.nd > 2) return false;
  const int64_t lim = int64_t(1) << 31;
  if (std::abs(J.in_stride) >= lim || std::abs(J.out_stride) >= lim) return false;
  const int64_t inner_in = R.nd ? R.in_strides[R.nd - 1] : 0;
  const int64_t inner_out = R.nd ? R.out_strides[R.nd - 1] : 0;
  const bool unit = J.in_stride == 1 && J.out_stride == 1;
  int n = 0;
  cx_rplan p;
  if (J.kind == CX_JOB_C2C) {
    if (J.out_len != J.n || J.n > 16384) return false;
    n = (int)J.n;
    p = cx_reg_plan_host(n);
    if (p.np == 0) return false;
    const int T = p.t;
    const int bytes = std::min(storage_bytes(ti), storage_bytes(to));
    if (J.win_in || J.win_out || pad) {
      // a complex signal's frames (stft: window on the load, padding read in
      // place; istft: window on the store)
      if (!unit || (J.win_in && J.win_out) || !cx_reg_mode_ok_of(p, CX_REG_FRAMES)) return false;
      mode = CX_REG_FRAMES;
    } else if (unit) {
      mode = CX_REG_DIRECT;
      const bool contiguous = R.nd == 0 || (R.nd == 1 && inner_in == n && inner_out == n);
      if (T * bytes < 32 && contiguous && cx_reg_mode_ok_of(p, CX_REG_STAGED))
        mode = CX_REG_STAGED;
    } else if (R.nd >= 1 && inner_in == 1 && inner_out == 1 &&
               cx_reg_mode_ok_of(p, CX_REG_COLUMNS)) {
      mode = CX_REG_COLUMNS;
    } else {
      return false;  // a strided axis without a column tile: the block kernels
    }
  } else {
    // even real rows as pairs of samples: whole, aligned pairs on the real side
    if (J.n % 2 != 0 || J.n / 2 > 16384 || !unit || J.conj_in || J.conj_out) return false;
    n = (int)(J.n / 2);
    p = cx_reg_plan_host(n);
    const bool r2c = J.kind == CX_JOB_R2C;
    mode = r2c ? CX_REG_R2C : CX_REG_C2R;
    if (p.np == 0 || !cx_reg_mode_ok_of(p, mode)) return false;
    // r2c: the onesided n + 1 bins, or all 2n of them (the kernel writes the
    // lower n + 1 and the mirror the rest: run_reg_job)
    if (r2c ? (J.win_out || (J.out_len != n + 1 && J.out_len != J.n))
            : (J.win_in || J.out_len != J.n || pad))
      return false;
    if (r2c && J.out_len == J.n && cx_mirror_count(J.nrows, (int)J.n) >= (int64_t(1) << 31))
      return false;
    const int pair = storage_bytes(r2c ? ti : to);  // bytes of a pair of samples
    const void* real = r2c ? J.in : J.out;
    for (int d = 0; d < R.nd; ++d)
      if ((r2c ? R.in_strides[d] : R.out_strides[d]) % 2 != 0) return false;
    if ((reinterpret_cast<uintptr_t>(real) % pair) != 0 || pad % 2 != 0 ||
        (pad && sig_len % 2 != 0))
      return false;
    const S* w = r2c ? J.win_in : J.win_out;
    if (w && reinterpret_cast<uintptr_t>(w) % (2 * sizeof(S)) != 0) return false;
  }
  // (the pitch is the base plus at most 15: cx_reg_pitch searches at compile time)
  const int64_t need =
      (int64_t)cx_reg_rpb_of(p, mode) * (cx_reg_pitch_base(n) + 15) * (int64_t)sizeof(cx<S>);
  if (need > smem) return false;
  A = cx_reg_args<S>{};
  A.in = J.in;
  A.out = J.out;
  A.nrows = (int)J.nrows;
  A.inner = cx_fastdiv_make(R.nd == 2 ? (cx_u32)R.sizes[1] : (cx_u32)J.nrows);
  A.i_stride0 = R.nd == 2 ? R.in_strides[0] : 0;
  A.o_stride0 = R.nd == 2 ? R.out_strides[0] : 0;
  A.i_stride1 = inner_in;
  A.o_stride1 = inner_out;
  A.i_axis = (int)J.in_stride;
  A.o_axis = (int)J.out_stride;
  A.conj_in = J.conj_in;
  A.conj_out = J.conj_out;
  A.scale = J.scale;
  A.win = J.kind == CX_JOB_C2R ? J.win_out : J.win_in;
  if (J.kind == CX_JOB_C2C) {
    A.win = J.win_in ? J.win_in : J.win_out;
    A.win_store = J.win_out != nullptr;
  }
  if (J.kind != CX_JOB_C2C && p.t < 32) {
    // rows of n + 1 bins end to end on the complex side: the flat copy
    const int64_t w = n + 1;
    const int64_t inner = J.kind == CX_JOB_R2C ? inner_out : inner_in;
    const int64_t outer = J.kind == CX_JOB_R2C ? R.out_strides[0] : R.in_strides[0];
    A.flat = R.nd == 0 || (R.nd == 1 && inner == w) || (R.nd == 2 && inner == w &&
                                                         outer == R.sizes[1] * w);
  }
  A.pad = pad;
  A.pad_mode = pad_mode;
  A.sig_len = sig_len;
  n_out = n;
  return true;
}

// Job J on a register kernel, if one takes it (reg_job); false otherwise,
// with nothing launched. A two-sided r2c (fft of a real signal, the stft's
// onesided=False) is the onesided kernel into the lower n/2 + 1 bins of
// each row, then the mirror (cx_mirror.h) for the rest: the kernel could
// not hold the upper half's registers, and the mirror moves only the bins
// it writes (complex32: 4 + 4 bytes each, on top of the r2c's).
template <class S, class E>
bool run_reg_job(E& ex, const cx_block_job<S>& J, int ti, int to, int pad = 0, int pad_mode = 0,
                 int64_t sig_len = 0) {
  cx_reg_args<S> A;
  int n = 0, mode = 0;
  if (!reg_job<S>(J, ti, to, ex.smem, A, n, mode, pad, pad_mode, sig_len) ||
      !ex.reg(A, n, mode, ti, to))
    return false;
  if (J.kind == CX_JOB_R2C && J.out_len == J.n) ex.mirror(A, (int)J.n, to);
  return true;
}

// A c2c of a length L above 16384 in two register passes (cx_reg_parts.h,
// "two passes"; the split from cx_reg_split_host): pass 1 reads the input
// once as tiles of neighbouring columns and writes the twiddled columns
// in place into a work buffer of the compute type (fp32 or fp64, so the
// rounding to fp16 happens once, at the end); pass 2 reads the work rows
// flat and writes the output once, transposed through shared memory. For
// complex32 that is 4 + 8 + 8 + 4 = 24 bytes an element against the
// four-step's 56 (load, column pass, row pass, store). Taken for a
// unit-stride axis with at most one batch dim (after merging) on both
// sides, or a strided axis with one batch dim of at least 8 rows adjacent
// on both sides (the tiles then run across the batch); false, with nothing
// launched, where it does not apply or pass 1 has no kernel. Where pass 2 has none (a factor compiled at first use
// that failed to compile), the work rows take the generic path.
template <class S, class E>
void run_gpu_job(E& ex, cx_block_job<S> J, int ti, int to, const at::TensorOptions& opts);

template <class S, class E>
bool run_reg_split(E& ex, const cx_block_job<S>& J, int ti, int to,
                   const at::TensorOptions& opts) {
  if (J.kind != CX_JOB_C2C || J.row_tw || J.bluestein || J.win_in || J.win_out ||
      J.out_len != J.n || J.rows.nd > 1)
    return false;
  const cx_rows& R = J.rows;
  // A strided axis (both sides) whose one batch dim lies adjacent (stride 1)
  // on both sides, at least 8 rows of it: the tiles run across the batch.
  const bool unit = J.in_stride == 1 && J.out_stride == 1;
  const bool across = !unit && J.in_stride > 1 && J.out_stride > 1 && R.nd == 1 &&
                      R.in_strides[0] == 1 && R.out_strides[0] == 1 && R.sizes[0] >= 8;
  if (!unit && !across) return false;
  const cx_reg_split sp = cx_reg_split_host(J.n);
  if (sp.n1 == 0) return false;
  const int n1 = sp.n1, n2 = sp.n2;
  const int64_t L = J.n, lim = int64_t(1) << 31;
  if (J.nrows * n2 >= lim || J.nrows * n1 >= lim) return false;
  for (int pass = 0; pass < 2; ++pass) {
    const int m = pass == 0 ? n1 : n2;
    const cx_rplan p = cx_reg_plan_host(m);
    const int mode = pass == 0 ? CX_REG_COLS_TW : across ? CX_REG_COLUMNS : CX_REG_FLAT_COLS;
    if (across && pass == 1 && !cx_reg_mode_ok_of(p, mode)) return false;
    const int64_t need = (int64_t)cx_reg_rpb_of(p, mode) * (cx_reg_pitch_base(m) + 15) *
                         (int64_t)sizeof(cx<S>);
    if (need > ex.smem) return false;
  }
  const bool dbl = std::is_same<S, double>::value;
  const int sc = dbl ? 2 : 1;
  at::Tensor work =
      at::empty({J.nrows, L}, opts.dtype(dbl ? at::kComplexDouble : at::kComplexFloat));
  cx<S>* W = (cx<S>*)work.mutable_data_ptr();
  if (across) {
    // Rows (q, b) of the batch's Nb neighbouring rows b: pass 1 reads column
    // q of every row b (n1 values n2 strides apart) as a tile across b and
    // writes Y[k][q][b] (b innermost, so the tile's stores are adjacent too);
    // pass 2 is a plain column tile of n2 over rows (k, b), Y's q Nb apart,
    // stored at X[k + n1 m] of row b (n1 strides apart along m). The same
    // 4 + 8 + 8 + 4 bytes an element as the unit-stride split.
    const int64_t Nb = R.sizes[0];
    cx_reg_args<S> A{};
    A.in = J.in;
    A.out = W;
    A.nrows = (int)(J.nrows * n2);
    A.inner = cx_fastdiv_make((cx_u32)Nb);
    A.i_stride0 = J.in_stride;  // q
    A.i_stride1 = 1;            // b
    A.o_stride0 = Nb;
    A.o_stride1 = 1;
    A.i_axis = (int)(J.in_stride * n2);
    A.o_axis = (int)(n2 * Nb);
    A.conj_in = J.conj_in;
    A.scale = (S)1;
    A.tw_len = (int)L;
    A.tw_outer = 1;  // q = row / Nb
    if (A.i_axis != J.in_stride * n2 || A.o_axis != n2 * Nb) return false;
    if (!ex.reg(A, n1, CX_REG_COLS_TW, ti, sc)) return false;
    cx_reg_args<S> B{};
    B.in = W;
    B.out = J.out;
    B.nrows = (int)(J.nrows * n1);
    B.inner = cx_fastdiv_make((cx_u32)Nb);
    B.i_stride0 = (cx_i64)n2 * Nb;  // k
    B.i_stride1 = 1;                // b
    B.o_stride0 = J.out_stride;     // k
    B.o_stride1 = 1;
    B.i_axis = (int)Nb;
    B.o_axis = (int)(J.out_stride * n1);
    B.conj_out = J.conj_out;
    B.scale = J.scale;
    if (B.o_axis == J.out_stride * n1 && ex.reg(B, n2, CX_REG_COLUMNS, sc, to)) return true;
    cx_block_job<S> J2{};
    J2.kind = CX_JOB_C2C;
    J2.n = J2.out_len = n2;
    J2.in = W;
    J2.out = J.out;
    J2.in_stride = Nb;
    J2.out_stride = J.out_stride * n1;
    J2.rows.nd = 2;
    J2.rows.sizes[0] = n1;
    J2.rows.sizes[1] = Nb;
    J2.rows.in_strides[0] = (int64_t)n2 * Nb;
    J2.rows.in_strides[1] = 1;
    J2.rows.out_strides[0] = J.out_stride;
    J2.rows.out_strides[1] = 1;
    J2.nrows = J.nrows * n1;
    J2.conj_out = J.conj_out;
    J2.scale = J.scale;
    run_gpu_job<S>(ex, J2, sc, to, opts);
    return true;
  }
  cx_reg_args<S> A{};  // pass 1: rows (b, q), the n1 values of column q n2 apart
  A.in = J.in;
  A.out = W;
  A.nrows = (int)(J.nrows * n2);
  A.inner = cx_fastdiv_make((cx_u32)n2);
  A.i_stride0 = R.nd ? R.in_strides[0] : 0;
  A.o_stride0 = L;
  A.i_stride1 = A.o_stride1 = 1;
  A.i_axis = A.o_axis = n2;
  A.conj_in = J.conj_in;
  A.scale = (S)1;
  A.tw_len = (int)L;
  if (!ex.reg(A, n1, CX_REG_COLS_TW, ti, sc)) return false;
  cx_reg_args<S> B{};  // pass 2: rows (b, k) of n2 values, stored n1 apart
  B.in = W;
  B.out = J.out;
  B.nrows = (int)(J.nrows * n1);
  B.inner = cx_fastdiv_make((cx_u32)n1);
  B.i_stride0 = L;
  B.i_stride1 = n2;
  B.o_stride0 = R.nd ? R.out_strides[0] : 0;
  B.o_stride1 = 1;
  B.i_axis = 1;
  B.o_axis = n1;
  B.conj_out = J.conj_out;
  B.scale = J.scale;
  if (ex.reg(B, n2, CX_REG_FLAT_COLS, sc, to)) return true;
  cx_block_job<S> J2{};
  J2.kind = CX_JOB_C2C;
  J2.n = J2.out_len = n2;
  J2.in = W;
  J2.out = J.out;
  J2.in_stride = 1;
  J2.out_stride = n1;
  J2.rows.nd = 2;
  J2.rows.sizes[0] = J.nrows;
  J2.rows.sizes[1] = n1;
  J2.rows.in_strides[0] = L;
  J2.rows.in_strides[1] = n2;
  J2.rows.out_strides[0] = B.o_stride0;
  J2.rows.out_strides[1] = 1;
  J2.nrows = J.nrows * n1;
  J2.conj_out = J.conj_out;
  J2.scale = J.scale;
  run_gpu_job<S>(ex, J2, sc, to, opts);
  return true;
}

// A c2c of a length without a register plan (a prime factor above 13),
// up to 4096 (a padded length up to 8192, cx_reg_blue_len), by Bluestein's
// algorithm in one register kernel (CX_REG_BLUESTEIN, cx_reg_parts.h): the
// row read once and written once, both FFTs of P.reg_m in registers, the
// chirp computed, its spectrum read from the plan's table. A unit-stride
// axis on both sides, at most two batch dims; false, with nothing launched,
// otherwise.
template <class S, class E>
bool run_reg_bluestein(E& ex, const cx_block_job<S>& J, int ti, int to, const GpuPlan<S>& P,
                       const cx<S>* base) {
  if (P.reg_m == 0 || J.kind != CX_JOB_C2C || J.row_tw || J.bluestein || J.win_in ||
      J.win_out || J.out_len != J.n || J.in_stride != 1 || J.out_stride != 1 ||
      J.rows.nd > 2 || J.nrows >= (int64_t(1) << 31))
    return false;
  const int m = (int)P.reg_m;
  const cx_rplan p = cx_reg_plan_host_of(m, CX_REG_BLUESTEIN);
  if (p.np == 0 || !cx_reg_mode_ok_of(p, CX_REG_BLUESTEIN)) return false;
  const int64_t need = (int64_t)cx_reg_rpb_of(p, CX_REG_BLUESTEIN) *
                       (cx_reg_pitch_base(m) + 15) * (int64_t)sizeof(cx<S>);
  if (need > ex.smem) return false;
  const cx_rows& R = J.rows;
  cx_reg_args<S> A{};
  A.in = J.in;
  A.out = J.out;
  A.nrows = (int)J.nrows;
  A.inner = cx_fastdiv_make(R.nd == 2 ? (cx_u32)R.sizes[1] : (cx_u32)J.nrows);
  A.i_stride0 = R.nd == 2 ? R.in_strides[0] : 0;
  A.o_stride0 = R.nd == 2 ? R.out_strides[0] : 0;
  A.i_stride1 = R.nd ? R.in_strides[R.nd - 1] : 0;
  A.o_stride1 = R.nd ? R.out_strides[R.nd - 1] : 0;
  A.i_axis = A.o_axis = 1;
  A.conj_in = J.conj_in;
  A.conj_out = J.conj_out;
  A.scale = J.scale;
  A.blue_n = (int)J.n;
  A.blue_nd = cx_fastdiv_make((cx_u32)J.n);
  A.blue_2n = cx_fastdiv_make((cx_u32)(2 * J.n));
  const int bt = cx_reg_rpb_of(p, CX_REG_BLUESTEIN) * p.t;
  A.blue_step_q = bt / (int)J.n;
  A.blue_step_m = bt % (int)J.n;
  // (the flat copy's row stride: cx_reg_bluestein)
  A.blue_q = p.t >= 16 ? (int)J.n : (int)J.n + (int)((8 - J.n % 16 + 16) % 16);
  // rows end to end on both sides: the flat copy (kernels of fewer than 32
  // threads a row)
  auto end_to_end = [&](const cx_i64* st) {
    return R.nd == 0 || (R.nd == 1 && st[0] == J.n) ||
           (R.nd == 2 && st[1] == J.n && st[0] == R.sizes[1] * J.n);
  };
  A.flat = end_to_end(R.in_strides) && end_to_end(R.out_strides);
  if (m <= 256 && !A.flat) return false;  // (those kernels take rows end to end only)
  A.blue_inv_n = (S)(1.0 / (double)J.n);
  A.filter = reinterpret_cast<const S*>(base + P.reg_filter);
  return ex.reg(A, m, CX_REG_BLUESTEIN, ti, to);
}

}  // namespace gpu
}  // namespace complexext
