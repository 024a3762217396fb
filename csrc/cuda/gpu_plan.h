// Plans of the CUDA FFT (host code, header only: the CUDA binding and the
// CPU emulation of the kernels, csrc/emulation/block_emulation.cpp, build the same
// plans). A complex length len is done
//
//   one pass:   in one block, the row in shared memory (two buffers of len,
//               or of Bluestein's m, compute-type complex values), when that
//               fits the device's shared memory per block;
//   four-step:  len = n1 * n2 (n1 the largest divisor <= sqrt(len)):
//               n2 column FFTs of n1 (stride n2), twiddle w^(j2*k1) fused
//               into their store, n1 row FFTs of n2 stored with stride n1,
//               each a one-pass block kernel over work buffers;
//   Bluestein + four-step: a large prime factor: chirp, a four-step FFT of
//               the 2,3,5-smooth m >= 2*len-1, pointwise filter, four-step
//               again, chirp, each its own launch over a work buffer.
//
// All tables of a plan sit in one vector (offsets below), computed in
// double and rounded once to the compute type, so that the binding uploads
// one block per plan and device.
#pragma once
#include <c10/util/Exception.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "../core/cx_block_job.h"
#include "../core/cx_factor.h"
#include "../core/cx_reg_plans.h"
#include "../plan/host_plans.h"
#include "../host_root.h"

namespace complexext {
namespace gpu {

enum Strategy { kOnePass = 0, kFourStep = 1, kBluesteinFourStep = 2 };

// One length done by one block; offsets into the plan's table.
struct BlockFft {
  int64_t len = 0;
  int npasses = 0;
  cx_pass passes[CX_MAX_PASSES] = {};
  int64_t tw = 0, roots = 0;  // pass.tw / pass.roots are relative to these
  bool bluestein = false;
  int64_t m = 0, chirp = 0, filter = 0;
  int64_t inner() const { return bluestein ? m : len; }
};

template <class S>
struct GpuPlan {
  int64_t n = 0;        // logical length
  bool real_even = false;
  int64_t len = 0;      // complex length: n, or n/2 for even real transforms
  Strategy strategy = kOnePass;
  BlockFft one;         // kOnePass
  int64_t core = 0;     // four-step length (len, or Bluestein's m) = work row length
  int64_t n1 = 0, n2 = 0;
  BlockFft f1, f2;
  int64_t big_tw = 0;   // exp(-2 pi i k / core), k < core
  int64_t m = 0, chirp = 0, filter = 0;  // kBluesteinFourStep
  int64_t rtw = -1;     // real_even: exp(-2 pi i k / n), k <= n/2
  // Bluestein on the register kernel of reg_m (a c2c length without a
  // register plan, up to 4096, in fp64 2048; fft_driver_reg.h,
  // run_reg_bluestein): the spectrum of the chirp at reg_m, 1/reg_m
  // included. 0 / -1: none.
  int64_t reg_m = 0, reg_filter = -1;
  std::vector<cx<S>> table;
};

// Shared memory of a one-pass row of inner length len.
inline int64_t block_bytes(int64_t len, int64_t elem) { return 2 * len * elem; }

inline bool is_smooth(int64_t n) {
  int radices[CX_MAX_PASSES];
  return n == 1 || cx_factorize(n, radices) > 0;
}

inline int64_t four_step_split(int64_t n) { return cx_four_step_split(n); }  // cx_factor.h

template <class S>
cx<S> root_of(int64_t k, int64_t n) {
  double re, im;
  exact_root(k, n, &re, &im);
  return cx_make<S>((S)re, (S)im);
}

// Stockham passes and tables of a smooth length into f (appended to T).
template <class S>
void add_stockham(std::vector<cx<S>>& T, int64_t len, BlockFft& f) {
  int radices[CX_MAX_PASSES];
  f.npasses = cx_factorize(len, radices);
  std::vector<cx<S>> tw, roots;
  int64_t ns = 1;
  for (int i = 0; i < f.npasses; ++i) {
    const int R = radices[i];
    TORCH_CHECK(R == 2 || R == 3 || R == 4 || R == 5 || R == 7 || R == 8 || R == 11 || R == 13 ||
                    R == 16,
                "complexext (CUDA plan): radix ", R, " has no pass kernel");
    cx_pass& ps = f.passes[i];
    ps.radix = R;
    ps.ns = (int)ns;
    ps.tw = (int)tw.size();
    for (int64_t k = 0; k < ns; ++k)
      for (int r = 1; r < R; ++r) tw.push_back(root_of<S>(r * k, ns * R));
    ps.roots = (int)roots.size();
    if (R != 2 && R != 3 && R != 4 && R != 5 && R != 8 && R != 16)
      for (int q = 0; q < R; ++q) roots.push_back(root_of<S>(q, R));
    ns *= R;
  }
  f.tw = (int64_t)T.size();
  T.insert(T.end(), tw.begin(), tw.end());
  f.roots = (int64_t)T.size();
  T.insert(T.end(), roots.begin(), roots.end());
}

// Bluestein's chirp (len values) and filter (m values) from the host plans
// (plan/host_plans.h; computed there in double). Returns their offsets through c, fl.
template <class S>
int64_t add_chirp(std::vector<cx<S>>& T, int64_t len, int64_t* c, int64_t* fl) {
  std::vector<cx<S>> chirp, filter;
  bluestein_chirp_filter<S>(len, chirp, filter);
  *c = (int64_t)T.size();
  T.insert(T.end(), chirp.begin(), chirp.end());
  *fl = (int64_t)T.size();
  T.insert(T.end(), filter.begin(), filter.end());
  return (int64_t)filter.size();
}

// A one-block FFT of len if it fits smem bytes; false (and nothing added) otherwise.
template <class S>
bool add_block(std::vector<cx<S>>& T, int64_t len, int64_t smem, BlockFft& f) {
  const int64_t e = (int64_t)sizeof(cx<S>);
  f = BlockFft();
  f.len = len;
  if (is_smooth(len)) {
    if (block_bytes(len, e) > smem) return false;
    add_stockham(T, len, f);
    return true;
  }
  const int64_t m = cx_next_smooth(2 * len - 1);
  if (block_bytes(m, e) > smem) return false;
  f.bluestein = true;
  f.m = add_chirp(T, len, &f.chirp, &f.filter);
  TORCH_CHECK(f.m == m, "complexext (CUDA plan): Bluestein length mismatch");
  add_stockham(T, m, f);
  return true;
}

template <class S>
std::shared_ptr<GpuPlan<S>> make_plan(int64_t n, bool real_even, int64_t smem) {
  auto P = std::make_shared<GpuPlan<S>>();
  P->n = n;
  P->real_even = real_even;
  P->len = real_even ? n / 2 : n;
  std::vector<cx<S>>& T = P->table;
  if (real_even) {
    P->rtw = 0;
    for (int64_t k = 0; k <= n / 2; ++k) T.push_back(root_of<S>(k, n));
  }
  // (fp64: up to 2048; cx_reg_types_ok)
  const int64_t blue_max = std::is_same<S, double>::value ? 2048 : 4096;
  if (!real_even && n <= blue_max && cx_reg_plan_host((int)n).np == 0 && cx_reg_blue_len((int)n)) {
    P->reg_m = cx_reg_blue_len((int)n);
    P->reg_filter = (int64_t)T.size();
    std::vector<cx<double>> c, B;
    bluestein_tables(n, P->reg_m, c, B);
    for (const cx<double>& z : B) T.push_back(cx_make<S>((S)z.re, (S)z.im));
  }
  if (add_block(T, P->len, smem, P->one)) return P;
  if (is_smooth(P->len)) {
    P->strategy = kFourStep;
    P->core = P->len;
  } else {
    P->strategy = kBluesteinFourStep;
    P->m = add_chirp(T, P->len, &P->chirp, &P->filter);
    P->core = P->m;
  }
  P->n1 = four_step_split(P->core);
  P->n2 = P->core / P->n1;
  const bool ok = P->n1 > 1 && add_block(T, P->n1, smem, P->f1) &&
                  add_block(T, P->n2, smem, P->f2);
  TORCH_CHECK(ok, "complexext: length ", n, " is too large for the CUDA FFT kernels (a ",
              P->core, " = ", P->n1, " x ", P->n2, " split needs one of its factors in ",
              smem, " bytes of shared memory)");
  P->big_tw = (int64_t)T.size();
  for (int64_t k = 0; k < P->core; ++k) T.push_back(root_of<S>(k, P->core));
  return P;
}

// The job fields of a one-block FFT, with the table at base.
template <class S>
void set_block(cx_block_job<S>& J, const BlockFft& f, const cx<S>* base) {
  J.npasses = f.npasses;
  for (int i = 0; i < f.npasses; ++i) J.passes[i] = f.passes[i];
  J.tw = base + f.tw;
  J.roots = base + f.roots;
  J.bluestein = f.bluestein ? 1 : 0;
  J.m = f.m;
  J.chirp = f.bluestein ? base + f.chirp : nullptr;
  J.filter = f.bluestein ? base + f.filter : nullptr;
}

}  // namespace gpu
}  // namespace complexext
