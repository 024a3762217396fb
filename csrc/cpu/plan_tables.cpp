// The tables of a cached plan as tensors, for kernels launched from Python
// (the Metal kernels: torch.mps.compile_shader takes its arguments from
// Python, so the plan's pass list and tables must reach Python too).
//
//   passes   int64 (npasses, 4): radix, ns, twiddle offset, roots offset of
//            the Stockham passes a one-block kernel runs: those of n itself,
//            or of Bluestein's inner length m; (0, 4) when that plan is a
//            large (multi-pass) one.
//   twiddles, roots: the tables those passes index (complex).
//   chirp (n), filter (m): Bluestein's tables; empty when n needs none.
//   m:       Bluestein's convolution length, 0 when n needs none.
//
// Tables are the plan's own (computed in double, rounded once to the compute
// type: complex64 for f64=false, complex128 for f64=true).
#include <ATen/ATen.h>
#include <torch/library.h>

#include <cstring>
#include <tuple>
#include <vector>

#include "plan.h"
#include "../core/cx_factor.h"

namespace complexext {
namespace {

using Tables = std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor, int64_t>;

template <class S>
at::Tensor complex_tensor(const std::vector<cx<S>>& v) {
  const auto t = sizeof(S) == 8 ? at::kComplexDouble : at::kComplexFloat;
  at::Tensor out = at::empty({(int64_t)v.size()}, at::TensorOptions().dtype(t));
  if (!v.empty()) std::memcpy(out.data_ptr(), v.data(), v.size() * sizeof(cx<S>));
  return out;
}

template <class S>
Tables tables(int64_t n) {
  const auto P = get_plan<S>(n);
  const bool blue = P->d.bluestein != 0;
  // The plan whose Stockham passes a one-block kernel would run, if any.
  const Plan<S>* stock = nullptr;
  if (!blue && !P->large) stock = P.get();
  if (blue && P->inner && !P->inner->large) stock = P->inner.get();
  const int np = stock ? stock->d.npasses : 0;
  at::Tensor passes = at::empty({np, 4}, at::TensorOptions().dtype(at::kLong));
  int64_t* p = passes.data_ptr<int64_t>();
  for (int i = 0; i < np; ++i) {
    const cx_pass& ps = stock->d.passes[i];
    p[4 * i] = ps.radix;
    p[4 * i + 1] = ps.ns;
    p[4 * i + 2] = ps.tw;
    p[4 * i + 3] = ps.roots;
  }
  const std::vector<cx<S>> none;
  return {passes, complex_tensor<S>(stock ? stock->tw : none),
          complex_tensor<S>(stock ? stock->roots : none), complex_tensor<S>(blue ? P->chirp : none),
          complex_tensor<S>(blue ? P->filter : none), blue ? (int64_t)P->d.m : (int64_t)0};
}

Tables plan_tables(int64_t n, bool f64) {
  TORCH_CHECK(n >= 1, "_plan_tables: n must be >= 1, got ", n);
  return f64 ? tables<double>(n) : tables<float>(n);
}

std::vector<int64_t> plan_shape(int64_t n) {
  TORCH_CHECK(n >= 1, "_plan_shape: n must be >= 1, got ", n);
  int radices[CX_MAX_PASSES];
  const bool smooth = n == 1 || cx_factorize(n, radices) > 0;
  return {smooth ? 0 : cx_next_smooth(2 * n - 1), cx_four_step_split(n),
          cx_largest_prime_factor(n)};
}

// The CPU lane engine's cut of n, for the tests: {q where it splits
// n = c * q into c Bluestein transforms of q (fill_split_bluestein), else 0;
// L = n - 1 (q - 1 in a split) where Rader transforms n (q) with two
// transforms of L (fill_rader), else 0; R and m where Bluestein's
// transforms of m run in two levels, m = R * m2 (fill_blocked_bluestein,
// m chosen by blocked_length), else 0 and 0}.
std::vector<int64_t> lane_cut(int64_t n) {
  TORCH_CHECK(n >= 1, "_lane_cut: n must be >= 1, got ", n);
  const auto P = get_plan<float>(n);
  const cx_plan_desc<float>* d = &P->d;
  int64_t q = 0;
  if (d->lane && d->lane->bluestein == 2) {
    q = d->lane->inner->n;
    d = d->lane->inner;
  }
  const cx_plan_desc<float>* L = d->lane;
  const bool two = L && L->bluestein == 3;
  return {q, L && L->bluestein == 4 ? (int64_t)L->inner->n : 0,
          two ? (int64_t)L->passes[0].radix : 0, two ? (int64_t)L->m : 0};
}

}  // namespace

TORCH_LIBRARY_IMPL(complexext, CompositeExplicitAutograd, m) {
  m.impl("_plan_tables", &plan_tables);
  m.impl("_plan_shape", &plan_shape);
  m.impl("_lane_cut", &lane_cut);
}

}  // namespace complexext
