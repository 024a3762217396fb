// One transform along one axis of a strided tensor, as plain data passed
// from the driver (which may use the standard library and torch) to the
// ISA-specific lane kernels (which may not: see isa_*.cpp).
#pragma once
#include "../core/cx_stockham.h"

#define CX_MAX_DIMS 16

enum cx_storage { CX_F16 = 0, CX_F32 = 1, CX_F64 = 2 };

enum cx_kind { CX_C2C = 0, CX_R2C = 1, CX_C2R = 2 };

// The radices of the lane engine's unrolled passes (pass_fixed), which are
// every radix of a 2,3,5-smooth length's plan (15 = 3 x 5 on AVX-512): the
// one list that the lanes' with_smooth_radix dispatches on (Bluestein's
// fused first and last passes, fft_any) and that fill_bluestein checks
// Bluestein's inner plan against.
constexpr int cx_lane_fixed_radices[] = {2, 3, 4, 5, 8, 9, 15, 16};
constexpr bool cx_lane_fixed_radix(int R) {
  for (int r : cx_lane_fixed_radices)
    if (r == R) return true;
  return false;
}

struct cx_axis_job {
  int kind;        // cx_kind
  int in_type;     // cx_storage of the input scalars
  int out_type;    // cx_storage of the output scalars
  int conj_in;     // c2c: conjugate on load and on store; both together give
  int conj_out;    // the inverse transform exp(+i...) from the forward one
  cx_i64 n;        // logical transform length
  cx_i64 in_len;   // elements read along the axis
  cx_i64 out_len;  // elements written along the axis
  cx_i64 in_stride, out_stride;  // along the axis, in elements
  const void* in;
  void* out;
  // The rows: every index of the other dims, last dim fastest.
  cx_i64 nrows;
  int nd;
  cx_i64 sizes[CX_MAX_DIMS];
  cx_i64 in_strides[CX_MAX_DIMS];
  cx_i64 out_strides[CX_MAX_DIMS];
  double scale;
  // Complex plan of length n (c2c and odd real) or n/2 (even real), as a
  // cx_plan_desc<float> or cx_plan_desc<double> by the compute type. For a
  // length too large for the lane buffers, large_fft is set instead: rows
  // are staged one at a time and large_fft(plan, buf) transforms buf (of the
  // compute type, contiguous) in place.
  const void* plan;
  void (*large_fft)(const void* plan, void* buf);
  const void* rtw;  // even real: exp(-2*pi*i*k/n), k <= n/2
  // the same, re and im apart, each zero-padded to n/2 + 16 values
  const void* rtw_re;
  const void* rtw_im;
  // Four-step: element k of row r is multiplied by w^(k*r), w = row_tw[1],
  // before it is stored; row_tw holds w^j for j < row_tw_n. For lane l of a
  // group starting at row r0 that is w^(k*r0) * w^(k*l), the second factor
  // from row_tw_re/im[k*16 + l] (split so that lanes load as vectors).
  const void* row_tw;
  cx_i64 row_tw_n;
  const void* row_tw_re;
  const void* row_tw_im;
  // STFT windows, in the compute type, length n: element k is multiplied
  // by win_in[k] as it is loaded (c2c, r2c) or by win_out[k] as it is
  // stored (c2c, c2r).
  const void* win_in;
  const void* win_out;
  // Even real transforms whose half length has no row kernel: the complex
  // plan of length n, where it has one (d.row), to transform two rows at
  // once as x1 + i x2 (lane_rowm.h); else null.
  const void* plan_pair;
};

// The ISTFT's overlap-add (stft_ops.cpp): y[b, i] = sum over frames t of
// frames[b, t, s - t*hop] / env[s], s = start + i, worked a hop-long block
// of samples at a time; item q is block j0 + q % nj of signal q / nj.
struct cx_ola_job {
  int is_double;   // frames and env in fp64 (else fp32 frames)
  int out_type;    // cx_storage of y: fp16 or fp32 from fp32, fp64 from fp64
  const void* frames;  // (B, T, n_fft)
  const double* env;   // window envelope, n_fft + hop*(T-1) samples
  void* y;             // (B, length)
  cx_i64 T, n_fft, hop, start, length, j0, nj;
};

// The second lane buffer starts this many elements past the end of the
// first: with power-of-two lengths a pass's reads and writes (same strides)
// otherwise fall on the same L1 sets and evict each other.
#define CX_LANE_SKEW 8

// The compute type of a job: fp64 for fp64 storage, fp32 otherwise.
static inline int cx_job_double(const cx_axis_job* j) {
  return j->in_type == CX_F64 || j->out_type == CX_F64;
}
