#include "axis.h"

#include <ATen/Parallel.h>
#include <c10/util/Exception.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>


#include "isa.h"
#include "plan.h"

namespace complexext {

const IsaKernels& isa() {
  static const IsaKernels kinds[] = {
      {"generic", &cx_generic::lanes, &cx_generic::run_axis_job, &cx_generic::run_ola,
       &cx_generic::takes_rows, &cx_generic::has_rows, &cx_generic::takes_radix15},
      {"avx2", &cx_avx2::lanes, &cx_avx2::run_axis_job, &cx_avx2::run_ola,
       &cx_avx2::takes_rows, &cx_avx2::has_rows, &cx_avx2::takes_radix15},
      {"avx512", &cx_avx512::lanes, &cx_avx512::run_axis_job, &cx_avx512::run_ola,
       &cx_avx512::takes_rows, &cx_avx512::has_rows, &cx_avx512::takes_radix15},
  };
  static const IsaKernels& chosen = [&]() -> const IsaKernels& {
    int best = 0;
#if defined(__x86_64__) || defined(_M_X64)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
        __builtin_cpu_supports("f16c"))
      best = 1;
    if (best == 1 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq"))
      best = 2;
#endif
    if (const char* want = std::getenv("COMPLEXEXT_CPU_ISA")) {
      for (int i = 0; i < 3; ++i)
        if (std::strcmp(want, kinds[i].name) == 0 && i < best) best = i;
    }
    return kinds[best];
  }();
  return chosen;
}

thread_local Scratch::Buf Scratch::bufs[Scratch::kLevels];
thread_local int Scratch::depth = 0;

Scratch::Scratch(size_t bytes) {
  TORCH_CHECK(depth < kLevels, "complexext: FFT plan nested too deeply");
  Buf& b = bufs[depth++];
  if (b.size < bytes) {
    std::free(b.p);
    b.size = (bytes + 4095) & ~size_t(4095);
    b.p = std::aligned_alloc(64, b.size);
    if (!b.p) {
      b.size = 0;
      --depth;
      TORCH_CHECK(false, "complexext: out of memory for FFT scratch (", bytes, " bytes)");
    }
  }
  p = b.p;
}

void parallel_dynamic(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& f) {
  const int64_t threads = at::get_num_threads();
  if (n <= grain || threads == 1 || at::in_parallel_region()) {
    if (n > 0) f(0, n);
    return;
  }
  // Chunks of at least grain items, small enough for some 4 per thread.
  const int64_t chunk = std::max<int64_t>(grain, n / (4 * threads));
  std::atomic<int64_t> next{0};
  at::parallel_for(0, std::min(threads, (n + chunk - 1) / chunk), 1, [&](int64_t, int64_t) {
    for (int64_t b; (b = next.fetch_add(chunk)) < n;) f(b, std::min(n, b + chunk));
  });
}

void run_job(cx_axis_job& J, const std::function<void()>& also) {
  if (J.nrows == 0) {
    if (also) also();
    return;
  }
  const IsaKernels& K = isa();
  const bool dbl = cx_job_double(&J);
  const int64_t W = J.large_fft ? 1 : K.lanes(dbl);
  int64_t work;
  if (J.large_fft) {
    // the staged row: n complex values, or n/2 for an even real transform
    const bool half = J.kind != CX_C2C && J.n % 2 == 0;
    work = half ? J.n / 2 : J.n;
  } else {
    work = dbl ? ((const cx_plan_desc<double>*)J.plan)->work
               : ((const cx_plan_desc<float>*)J.plan)->work;
  }
  const size_t bytes = (size_t)((2 * work + CX_LANE_SKEW) * W) * (dbl ? 16 : 8);
  const int64_t groups = (J.nrows + W - 1) / W;
  // Enough rows per task that a task does some 64 K points of work.
  const int64_t grain = std::max<int64_t>(1, (int64_t(1) << 16) / std::max<int64_t>(1, J.n * W));
  // Nested calls (a large row inside a parallel loop) run serially. Item 0
  // is `also` when given, taken first so that the shared counter balances
  // the groups after it.
  const int64_t first = also ? 1 : 0;
  parallel_dynamic(groups + first, grain, [&](int64_t g0, int64_t g1) {
    if (g0 < first) {
      also();
      g0 = first;
    }
    if (g0 >= g1) return;
    Scratch s(bytes);
    K.run(&J, (g0 - first) * W, std::min((g1 - first) * W, J.nrows), s.p);
  });
}

int storage_of(c10::ScalarType t) {
  switch (t) {
    case c10::ScalarType::Half:
    case c10::ScalarType::ComplexHalf: return CX_F16;
    case c10::ScalarType::Float:
    case c10::ScalarType::ComplexFloat: return CX_F32;
    case c10::ScalarType::Double:
    case c10::ScalarType::ComplexDouble: return CX_F64;
    default: TORCH_CHECK(false, "complexext: unsupported dtype ", t);
  }
}

namespace {

size_t storage_bytes(int t) { return t == CX_F16 ? 2 : t == CX_F32 ? 4 : 8; }

// f(row) for each row of J as a StridedRow, in parallel over the rows or
// one after another (then the jobs f runs share the threads among them).
template <class F>
void each_row(const cx_axis_job& J, bool parallel, F f) {
  // scalars an element: r2c reads reals, c2r writes them
  const int cin = J.kind == CX_R2C ? 1 : 2, cout = J.kind == CX_C2R ? 1 : 2;
  const auto rows = [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      int64_t rest = r, io = 0, oo = 0;
      for (int d = J.nd - 1; d >= 0; --d) {
        io += (rest % J.sizes[d]) * J.in_strides[d];
        oo += (rest % J.sizes[d]) * J.out_strides[d];
        rest /= J.sizes[d];
      }
      f(StridedRow{(const char*)J.in + io * cin * storage_bytes(J.in_type), J.in_type,
                   J.in_stride, (char*)J.out + oo * cout * storage_bytes(J.out_type), J.out_type,
                   J.out_stride, J.conj_in != 0, J.scale});
    }
  };
  if (parallel) parallel_dynamic(J.nrows, 1, rows);
  else rows(0, J.nrows);
}

// c2c rows of a four-step length, each read and written in place.
template <class S>
void four_step_rows(const cx_axis_job& J, const Plan<S>& P) {
  each_row(J, true, [&](const StridedRow& row) { four_step(P, row); });
}

// The shortest Bluestein length whose single complex row (or one or two
// real rows, as one complex row) runs on its own (set_plan), and the same
// for a prime the lane engine would run by Rader's algorithm.
const int64_t kSingleRowBluestein = 512;
const int64_t kSingleRowRader = 1024;

// Whether the lane engine runs a Bluestein length by Rader's algorithm:
// its own cut (bluestein = 4), or that of the prime q of its split (n = c
// * q, bluestein = 2).
template <class S>
int lane_rader(const cx_plan_desc<S>& d) {
  const cx_plan_desc<S>* L = d.lane;
  if (!L) return 0;
  if (L->bluestein == 4) return 1;
  return L->bluestein == 2 && L->inner && L->inner->lane && L->inner->lane->bluestein == 4 ? 2 : 0;
}

// The shortest Bluestein length whose single row runs on its own (as one
// complex row, bluestein_row): 512 where the lane engine would run plain
// Bluestein, 1024 where it would run Rader's algorithm, and none where it
// would run Rader's inside a split. 1 thread, microseconds a call, lane
// engine -> alone: c2c 523 21 -> 16.5, 613 26 -> 18.5, 818 = 2 * 409 34
// -> 22, 1021 40 -> 23.5; Rader 521 15 -> 15, 1153 27 -> 28, 2017 47 ->
// 47, 4801 124 -> 108, 12289 525 -> 278; Rader split (the lane engine's
// time for two rows, which bounds one row's from above) 723 = 3 * 241 16
// -> 21, 1010 19 -> 26, 2020 35 -> 47, 6060 121 -> 136, 10100 207 -> 218,
// 12120 250 -> 270. One real row: rfft 523 21 -> 16, 613 25 -> 18, 1021
// 39 -> 24; Rader split, alone -> lane engine, 1205 = 5 * 241 29 -> 26,
// 3615 81 -> 75; irfft the same.
template <class S>
int64_t single_row_bluestein_from(const cx_plan_desc<S>& d) {
  const int r = lane_rader(d);
  return r == 0 ? kSingleRowBluestein : r == 1 ? kSingleRowRader : INT64_MAX;
}

template <class S>
void set_plan(cx_axis_job& J, const std::function<void()>& also) {
  const bool real = J.kind != CX_C2C;
  const int64_t len = real && J.n % 2 == 0 ? J.n / 2 : J.n;
  auto P = get_plan<S>(len);
  std::shared_ptr<const RealTwiddles<S>> R;
  if (real && J.n % 2 == 0) {
    R = get_real_twiddles<S>(J.n);
    J.rtw = R->w.data();
    J.rtw_re = R->re.data();
    J.rtw_im = R->im.data();
  }
  // Even n whose plan of n has a row kernel: that plan, for the kernel
  // that transforms two real rows as one complex row (rowm_pair_run). It
  // takes the job whenever there are two rows or more, even where the
  // half length has a row kernel of its own (rowm_run's one row of n/2
  // and its split post-process): 1 thread, AVX2, 2048 rows or 4 Mi values,
  // the pair kernel measured 1.35 x at n = 768, 1.15-1.25 x at 640, 960,
  // 1024-4096, 1280-3072 and 1.05-1.09 x at 6144 and 8192 (same at 512).
  // A single row keeps the half-length kernel, where there is one, rather
  // than pair with zeros. Row kernels compute in fp32 and exist only on
  // some instruction sets.
  const bool rows = sizeof(S) == 4 && isa().has_rows();
  std::shared_ptr<const Plan<S>> Ppair;
  if (rows && real && J.n % 2 == 0 && !P->large && !P->d.bluestein &&
      (!P->d.row || J.nrows >= 2) && J.n % 16 == 0 && J.n >= 256 && J.n <= kLaneMax) {
    Ppair = get_plan<S>(J.n);
    if (!Ppair->large && Ppair->d.row) J.plan_pair = &Ppair->d;
  }
  if (real && J.n % 2 == 1 && !P->large && P->d.bluestein &&
      J.n >= single_row_bluestein_from(P->d) && J.nrows <= 2 && !J.win_in && !J.win_out &&
      !J.conj_in && !J.conj_out &&
      (J.kind == CX_R2C ? J.in_len <= J.n : J.out_len == J.n)) {
    // One or two real rows of an odd Bluestein length: the lane engine
    // takes them two to a lane of W (r2c) or one to a lane (c2r), 1/16 or
    // 1/8 of its work used with AVX2. As one complex row (x0 + i x1, or
    // F0 + i F1 of their Hermitian spectra) they run Bluestein alone
    // (below) instead. 1 thread, microseconds a call, one row / two rows,
    // lanes -> one complex row: rfft 2053 109 / 105 -> 47 / 54, 4099 220 /
    // 231 -> 102 / 105, 10007 634 / 604 -> 212 / 249, 12289 (Rader) 383 /
    // 358 -> 253 / 291, 16383 849 / 898 -> 314 / 366; irfft 2053 119 / 115
    // -> 50 / 56, 4099 221 / 231 -> 95 / 105, 10007 572 / 549 -> 223 / 253,
    // 12289 382 / 361 -> 249 / 297. Smooth odd lengths measured no better
    // this way (rfft 1155, 2187, 3125: one row 1.1-1.2 x slower, two the
    // same) and stay on the lane engine.
    if (also) also();
    StridedRow rows[2];
    int count = 0;
    each_row(J, false, [&](const StridedRow& row) { rows[count++] = row; });
    if (J.kind == CX_R2C) r2c_rows_as_c2c<S>(rows, count, J.n, J.in_len, J.out_len);
    else c2r_rows_as_c2c<S>(rows, count, J.n, J.in_len);
    return;
  }
  // P, R and Ppair hold the plans while the job runs, even if the cache drops them.
  // (four_step_rows reads and writes rows in place, without the windows)
  const bool plain = J.kind == CX_C2C && !J.win_in && !J.win_out;
  if (rows && P->large && P->n1 && len % 16 == 0 && len <= 65536) {
    // One row at a time where a row kernel takes the job (AVX-512/AVX2, unit
    // strides): up to n = 65536 its length-n/16 DFT (2 x 512 KiB of
    // vectors) runs in L2, where four-step passes over the whole row twice
    // and strides through it once (64 x 65536 complex32: 6.8 -> 5.9 ms,
    // one row 0.18 -> 0.13 ms). At 131072 the vectors no longer fit L2
    // and four-step is faster (8 rows: 2.66 against 2.82 ms).
    auto Prow = get_row_plan<S>(len);
    cx_axis_job T = J;
    T.plan = &Prow->d;
    T.large_fft = nullptr;
    if (isa().takes_rows(&T)) {
      run_job(T, also);
      return;
    }
  }
  if (P->large && P->n1 && plain) {
    if (also) also();
    four_step_rows(J, *P);
    return;
  }
  const int64_t W = isa().lanes(sizeof(S) == 8);
  if (!P->large && !P->d.bluestein && len >= 1024 && 4 * J.nrows <= W) {
    // Few rows: W lanes would mostly repeat one row, so split it four-step.
    P = get_four_step_plan<S>(len);
    if (plain) {
      if (also) also();
      four_step_rows(J, *P);
      return;
    }
  }
  if (!P->large && P->d.bluestein && plain && len >= single_row_bluestein_from(P->d) &&
      J.nrows == 1) {
    // A single row of a Bluestein length (Rader's too, and the split's
    // without Rader, from single_row_bluestein_from): the lane engine would
    // fill one of its W lanes, so the row runs alone, its two transforms of
    // m as one-row jobs (the few-rows four-step split above, its steps
    // shared among the threads). AVX2, microseconds a call, lane engine ->
    // alone, 1 thread: 2053 99 -> 49, 4099 210 -> 121, 10007 846 -> 244,
    // 12289 (Rader) 525 -> 278, 16381 846 -> 349; 2 threads: 4099 234 ->
    // 121, 1021 69 -> 29. Two rows cost the lane engine what one does, and
    // alone twice that: 4099 211 -> 231, 12289 426 -> 596; not taken.
    if (also) also();
    each_row(J, false, [&](const StridedRow& row) { bluestein_row(*P, row); });
    return;
  }
  J.plan = P->large ? (const void*)P.get() : (const void*)&P->d;
  J.large_fft = P->large ? &large_fft<S> : nullptr;
  run_job(J, also);
}

}  // namespace

void run_axis(cx_axis_job J, const at::Tensor& in, const at::Tensor& out, int64_t axis) {
  J.in = in.const_data_ptr();
  J.out = out.mutable_data_ptr();
  J.in_type = storage_of(in.scalar_type());
  J.out_type = storage_of(out.scalar_type());
  J.in_stride = in.stride(axis);
  J.out_stride = out.stride(axis);
  // Rows: the other dims, size-1 dims dropped, neighbours that step
  // together in both tensors merged.
  J.nd = 0;
  J.nrows = 1;
  for (int64_t d = 0; d < in.dim(); ++d) {
    if (d == axis || in.size(d) == 1) continue;
    const int64_t sz = in.size(d), si = in.stride(d), so = out.stride(d);
    if (J.nd > 0 && J.in_strides[J.nd - 1] == sz * si && J.out_strides[J.nd - 1] == sz * so) {
      J.sizes[J.nd - 1] *= sz;
      J.in_strides[J.nd - 1] = si;
      J.out_strides[J.nd - 1] = so;
    } else {
      TORCH_CHECK(J.nd < CX_MAX_DIMS, "complexext: too many batch dimensions (at most ",
                  CX_MAX_DIMS, " after merging)");
      J.sizes[J.nd] = sz;
      J.in_strides[J.nd] = si;
      J.out_strides[J.nd] = so;
      ++J.nd;
    }
    J.nrows *= sz;
  }
  run_rows(J);
}

void run_rows(cx_axis_job J, const std::function<void()>& also) {
  if (J.nrows == 0) {
    if (also) also();
    return;
  }
  if (cx_job_double(&J)) set_plan<double>(J, also);
  else set_plan<float>(J, also);
}

}  // namespace complexext
