// The CUDA FFT ops as a sequence of kernel launches, written once over an
// executor E that launches them: the CUDA binding (binding.cpp) on a GPU,
// the emulation (csrc/emulation/block_emulation.cpp) on the CPU, thread by thread.
// So the tests here run this code (argument checks, dims, strides,
// normalisation, buffers between axes, the multi-pass sequence) as the GPU
// does; only the launches differ.
//
// E provides (S = float or double, the compute type):
//   PlanRef<S> plan<S>(n, real_even)       cached plan and its device tables
//   void block(const cx_block_job<S>&, ti, to)          one-pass block kernel
//   void rows(const cx_block_job<S>&, phase, io, cx<S>* work, ldw)  row phase
//   bool reg(const cx_reg_args<S>&, n, mode, ti, to)   register kernel of
//        length n (cx_reg_fft.h); false when it has none (not compiled ahead
//        of time nor at first use) or is switched off
//   void mirror(const cx_reg_args<S>&, n, to)  the two-sided r2c's upper
//        half (cx_mirror.h) of the rows the r2c kernel wrote
// ti/to/io: storage of the scalars, 0 fp16, 1 fp32, 2 fp64.
#pragma once
#include <ATen/ATen.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <algorithm>
#include <type_traits>
#include <vector>

#include "fft_driver_reg.h"  // the register kernels' side
#include "gpu_plan.h"

namespace complexext {
namespace gpu {

template <class S>
struct PlanRef {
  std::shared_ptr<const GpuPlan<S>> plan;
  const cx<S>* base;  // the plan's table where the kernels read it
};

inline int storage_code(at::ScalarType t) {
  switch (t) {
    case at::kHalf: case at::kComplexHalf: return 0;
    case at::kFloat: case at::kComplexFloat: return 1;
    default: return 2;
  }
}
inline bool is_double(at::ScalarType t) { return storage_code(t) == 2; }
inline at::ScalarType compute_complex(at::ScalarType t) {
  return is_double(t) ? at::kComplexDouble : at::kComplexFloat;
}

// Batch geometry of rows along `axis` of in/out: every other dim, dims that
// step together in both merged, size-1 dims dropped. False if more than
// CX_BLOCK_MAX_DIMS remain.
inline bool fill_rows(cx_rows& R, int64_t& nrows, const at::Tensor& in, const at::Tensor& out,
                      int64_t axis) {
  std::vector<int64_t> sz, is, os;
  for (int64_t d = 0; d < in.dim(); ++d) {
    if (d == axis || in.size(d) == 1) continue;
    if (!sz.empty() && is.back() == in.stride(d) * in.size(d) &&
        os.back() == out.stride(d) * out.size(d)) {
      sz.back() *= in.size(d);
      is.back() = in.stride(d);
      os.back() = out.stride(d);
      continue;
    }
    sz.push_back(in.size(d));
    is.push_back(in.stride(d));
    os.push_back(out.stride(d));
  }
  if (sz.size() > CX_BLOCK_MAX_DIMS) return false;
  R = cx_rows{};
  R.nd = (int)sz.size();
  nrows = 1;
  for (size_t i = 0; i < sz.size(); ++i) {
    R.sizes[i] = sz[i];
    R.in_strides[i] = is[i];
    R.out_strides[i] = os[i];
    nrows *= sz[i];
  }
  return true;
}

// Four-step FFT of the plan's core length on work rows W (ldw apart), W2 as
// the second buffer; the result is back in W.
template <class S, class E>
void four_step(E& ex, const GpuPlan<S>& P, const cx<S>* base, cx<S>* W, cx<S>* W2,
               int64_t nrows) {
  const int sc = std::is_same<S, double>::value ? 2 : 1;
  const int64_t ldw = P.core, n1 = P.n1, n2 = P.n2;
  cx_block_job<S> C{};
  C.kind = CX_JOB_C2C;
  C.n = C.len = C.out_len = n1;
  set_block(C, P.f1, base);
  C.in = W;
  C.out = W2;
  C.in_stride = C.out_stride = n2;
  C.rows.nd = 2;
  C.rows.sizes[0] = nrows;
  C.rows.sizes[1] = n2;
  C.rows.in_strides[0] = C.rows.out_strides[0] = ldw;
  C.rows.in_strides[1] = C.rows.out_strides[1] = 1;
  C.nrows = nrows * n2;
  C.row_tw = base + P.big_tw;
  C.tw_cols = n2;
  C.tw_len = P.core;
  C.scale = (S)1;
  ex.block(C, sc, sc);
  cx_block_job<S> R{};
  R.kind = CX_JOB_C2C;
  R.n = R.len = R.out_len = n2;
  set_block(R, P.f2, base);
  R.in = W2;
  R.out = W;
  R.in_stride = 1;
  R.out_stride = n1;
  R.rows.nd = 2;
  R.rows.sizes[0] = nrows;
  R.rows.sizes[1] = n1;
  R.rows.in_strides[0] = R.rows.out_strides[0] = ldw;
  R.rows.in_strides[1] = n2;
  R.rows.out_strides[1] = 1;
  R.nrows = nrows * n1;
  R.scale = (S)1;
  ex.block(R, sc, sc);
}

// Run job J (kind, n, out_len, pointers, strides, rows, conj, scale,
// windows set) with the plan for its length; ti/to its storage types.
template <class S, class E>
void run_gpu_job(E& ex, cx_block_job<S> J, int ti, int to, const at::TensorOptions& opts) {
  if (J.nrows == 0) return;
  if (run_reg_job<S>(ex, J, ti, to)) return;
  if (J.n > 16384 && run_reg_split<S>(ex, J, ti, to, opts)) return;
  const bool real_even = J.kind != CX_JOB_C2C && J.n % 2 == 0;
  PlanRef<S> ref = ex.template plan<S>(J.n, real_even);
  const GpuPlan<S>& P = *ref.plan;
  const cx<S>* base = ref.base;
  J.len = P.len;
  J.rtw = P.rtw >= 0 ? base + P.rtw : nullptr;
  if (run_reg_bluestein<S>(ex, J, ti, to, P, base)) return;
  if (P.strategy == kOnePass) {
    set_block(J, P.one, base);
    ex.block(J, ti, to);
    return;
  }
  const int sc = std::is_same<S, double>::value ? 2 : 1;
  const int64_t ldw = P.core;
  auto wopts = opts.dtype(std::is_same<S, double>::value ? at::kComplexDouble : at::kComplexFloat);
  at::Tensor w1 = at::empty({J.nrows, ldw}, wopts), w2 = at::empty({J.nrows, ldw}, wopts);
  cx<S>* W = (cx<S>*)w1.mutable_data_ptr();
  cx<S>* W2 = (cx<S>*)w2.mutable_data_ptr();
  cx_block_job<S> B = J;  // Bluestein around the four-step
  B.bluestein = 1;
  B.m = P.m;
  B.chirp = base + P.chirp;
  B.filter = base + P.filter;
  const bool blue = P.strategy == kBluesteinFourStep;
  ex.rows(J, CX_PH_LOAD, ti, W, ldw);
  if (blue) ex.rows(B, CX_PH_CHIRP_IN, sc, W, ldw);
  four_step(ex, P, base, W, W2, J.nrows);
  if (blue) {
    ex.rows(B, CX_PH_POINTWISE, sc, W, ldw);
    four_step(ex, P, base, W, W2, J.nrows);
    ex.rows(B, CX_PH_CHIRP_OUT, sc, W, ldw);
  }
  ex.rows(J, CX_PH_STORE, to, W, ldw);
}

// One axis of in into out: J's kind, n, out_len, conj and scale set.
template <class S, class E>
void run_axis(E& ex, cx_block_job<S> J, at::Tensor in, const at::Tensor& out, int64_t axis) {
  if (!fill_rows(J.rows, J.nrows, in, out, axis)) {
    in = in.contiguous();
    TORCH_CHECK(fill_rows(J.rows, J.nrows, in, out, axis),
                "complexext (CUDA): too many batch dims");
  }
  J.in = in.const_data_ptr();
  J.out = out.mutable_data_ptr();
  J.in_stride = in.stride(axis);
  J.out_stride = out.stride(axis);
  run_gpu_job<S>(ex, J, storage_code(in.scalar_type()), storage_code(out.scalar_type()),
             out.options());
}

template <class S>
cx_block_job<S> c2c_job(int64_t n, bool inverse, double scale) {
  cx_block_job<S> J{};
  J.kind = CX_JOB_C2C;
  J.n = J.out_len = n;
  J.conj_in = J.conj_out = inverse ? 1 : 0;
  J.scale = (S)scale;
  return J;
}

}  // namespace gpu
}  // namespace complexext
