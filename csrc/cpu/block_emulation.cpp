// The per-block code of the GPU FFT kernels (csrc/core/cx_block.h), run on
// the CPU: every thread of a block in turn, phase by phase, the barrier
// being the end of a phase. Threads run in a shuffled order in each phase,
// so a kernel that read what another thread writes in the same phase
// (a missing barrier) would give seed-dependent, wrong results.
#include <ATen/ATen.h>
#include <torch/library.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "../core/cx_block.h"
#include "plan.h"

namespace complexext {
namespace {

template <class S, class T>
void emulate_rows(const at::Tensor& x, at::Tensor& y, const Plan<S>& P, int tpr, bool forward,
                  uint64_t seed) {
  const cx_i64 n = x.size(1);
  const cx_plan_desc<S>& d = P.d;
  const cx_plan_desc<S>& inner = d.bluestein ? *d.inner : d;
  const cx_i64 len = d.bluestein ? d.m : n;
  std::vector<cx<S>> a(len), b(len);
  std::mt19937_64 rng(seed);
  std::vector<int> order(tpr);
  std::iota(order.begin(), order.end(), 0);
  const int conj = forward ? 0 : 1;
  auto phase = [&](auto&& body) {
    std::shuffle(order.begin(), order.end(), rng);
    for (int t : order) body(t);
  };
  auto passes = [&](cx<S>*& cur, cx<S>*& other) {
    for (int i = 0; i < inner.npasses; ++i) {
      phase([&](int t) {
        cx_block_pass<S>(t, tpr, len, inner.passes[i], inner.tw, inner.roots, cur, other);
      });
      std::swap(cur, other);
    }
  };
  for (int64_t row = 0; row < x.size(0); ++row) {
    const T* in = (const T*)x.const_data_ptr() + 2 * row * n;
    T* out = (T*)y.mutable_data_ptr() + 2 * row * n;
    cx<S>* cur = a.data();
    cx<S>* other = b.data();
    if (!d.bluestein) {
      phase([&](int t) { cx_block_load<S, T>(t, tpr, n, in, 1, conj, cur); });
      passes(cur, other);
      phase([&](int t) { cx_block_store<S, T>(t, tpr, n, cur, out, 1, conj, (S)1); });
      continue;
    }
    phase([&](int t) { cx_block_load_chirp<S, T>(t, tpr, n, len, in, 1, conj, d.chirp, cur); });
    passes(cur, other);
    phase([&](int t) { cx_block_pointwise<S>(t, tpr, len, d.filter, cur); });
    passes(cur, other);
    phase([&](int t) { cx_block_store_chirp<S, T>(t, tpr, n, cur, out, 1, conj, d.chirp, (S)1); });
  }
}

at::Tensor block_fft_emulated(const at::Tensor& self, int64_t threads_per_row, bool forward,
                              int64_t seed) {
  TORCH_CHECK(self.dim() == 2 && self.is_complex(),
              "_block_fft_emulated: expected a complex (rows, n) tensor");
  TORCH_CHECK(threads_per_row >= 1, "_block_fft_emulated: threads_per_row must be >= 1");
  const at::Tensor x = self.contiguous();
  at::Tensor y = at::empty_like(x);
  const int64_t n = x.size(1);
  const int tpr = (int)threads_per_row;
  if (x.scalar_type() == at::kComplexDouble) {
    auto P = get_plan<double>(n);
    TORCH_CHECK(!P->large, "_block_fft_emulated: n = ", n, " takes more than one block");
    emulate_rows<double, double>(x, y, *P, tpr, forward, (uint64_t)seed);
  } else {
    auto P = get_plan<float>(n);
    TORCH_CHECK(!P->large, "_block_fft_emulated: n = ", n, " takes more than one block");
    if (x.scalar_type() == at::kComplexHalf)
      emulate_rows<float, cx_half_t>(x, y, *P, tpr, forward, (uint64_t)seed);
    else
      emulate_rows<float, float>(x, y, *P, tpr, forward, (uint64_t)seed);
  }
  return y;
}

}  // namespace

TORCH_LIBRARY_IMPL(complexext, CPU, m) { m.impl("_block_fft_emulated", &block_fft_emulated); }

}  // namespace complexext
