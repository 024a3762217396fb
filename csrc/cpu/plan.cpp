// The host plans and their cache: the Stockham passes and the lane engine's
// cuts of 13-smooth lengths, the four-step split, the real transforms'
// twiddles, build (which runs plan_convolution.cpp's cuts for the other
// lengths) and the bounded cache every backend's plans go through. Tables
// are computed in double and rounded once; no executor is called from here.
#include "plan_fill.h"

#include <c10/util/Exception.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <list>
#include <mutex>
#include <thread>
#include <unordered_map>
#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>
#endif

#include "../core/cx_factor.h"
#include "isa.h"

namespace complexext {
namespace plan_fill {

// The largest power-of-two radix of the passes the lane engine runs, on
// every instruction set. A radix-16 step holds 32 complex vectors: AVX2
// and SSE2 have 16 registers, AVX-512 32, which the step's temporaries and
// twiddles overflow all the same (AVX-512's pass16 loop: 48 stack loads
// and 45 stores, pass_fixed<8> none; NEON, also 32, was not measured).
// Time with 8s / 16s, one thread, side by side: AVX2 Bluestein 6126
// (12288 = 8^4 * 3 against 16^3 * 3) 0.75, the row kernels' m at 4096
// 0.81 and 8192 0.78; AVX-512 c2c 65536 0.80, 8192 0.87, 6126 0.89,
// 1024 0.95, rfft 8192 0.89, complex128 4096 0.79, Rader 12289 0.75, 97
// 0.92, level at 2053, 4099, 1155, 2187 and in L2 at 512-4096; 2048 and
// 641, which keep a radix-2 pass, 1.03; the generic build (SSE2) 4096
// 0.85, 2048 0.91, 6126 0.91 (docs/measurements.md).
constexpr int kLaneTopRadix = 8;

// The radices of the lane engine's own cuts (the ones that only the lane
// engine and the row kernels run: d.lane, Bluestein's and Rader's inner
// lengths, the split's c, the row kernels' m): cx_factorize_top with
// kLaneTopRadix, and each pair of 3s merged into a 9 (dft9 in
// lanes_impl.h; 3^7 = 2187 in 4 passes, not 7). AVX2: 2187 1.07-1.09 x,
// Bluestein's inner lengths 8640 and 4320 unchanged within the noise.
// AVX-512 (one thread, time with 9s / without, medians of side-by-side
// rounds): c2c 2187 0.65 from memory and 0.75 in L2, rfft 2187 0.89,
// Bluestein 4099 (m = 8640) 0.93, 2053 (4320) 0.92; 1155 and 6126, which
// have no pair of 3s, 0.99. The plans of top 16 that every executor runs
// (fill_stockham) keep their 3s: the portable executors run a 9 by
// cx_dft_odd from the plan's roots.
//
// Where the instruction set takes radix 15 (isa().takes_radix15: AVX-512),
// a 3 left unpaired and a 5 become one pass of 15 (dft15), except in the
// row kernels' m (rows), whose buffers sit in L1. AVX-512, one thread, 4
// Mi values a call, time with 15s / without, 6 rounds side by side:
// Bluestein 4099 (m = 8640, rows of 1080 = 8 9 15) 0.96, 2053 (4320)
// 0.97, 1155 = 15 7 11 0.92 (0.91 in L2), rfft 1155 0.97, complex64 1155
// 0.96, complex128 4099 0.96; level at Rader 241, 1201 and 61; the row
// kernels' m = 30 and 60 (n = 480, 960) 1.06 and 1.03, so they keep 3 5.
// Returns 0 where n is not 13-smooth.
int lane_radices(int64_t n, int* radices, bool rows) {
  const int np = cx_factorize_top(n, kLaneTopRadix, radices);
  const bool take15 = !rows && isa().takes_radix15();
  int out = 0;
  for (int i = 0; i < np; ++i) {
    if (radices[i] == 3 && i + 1 < np && radices[i + 1] == 3) {
      radices[out++] = 9;
      ++i;
    } else if (take15 && radices[i] == 3 && i + 1 < np && radices[i + 1] == 5) {
      radices[out++] = 15;
      ++i;
    } else {
      radices[out++] = radices[i];
    }
  }
  return out;
}

// The passes of the given radices, each with its twiddles and, for a radix
// the butterflies do not hold, its roots; from pass `first` on (the earlier
// ones run otherwise and get no tables).
template <class S>
void fill_passes(Plan<S>& P, int64_t n, const int* radices, int np, int first) {
  P.d.n = n;
  P.d.npasses = np;
  int64_t ns = 1;
  for (int i = 0; i < np; ++i) {
    const int R = radices[i];
    cx_pass& ps = P.d.passes[i];
    ps.radix = R;
    ps.ns = (int)ns;
    ps.tw = (int)P.tw.size();
    ps.roots = (int)P.roots.size();
    if (i >= first) {
      for (int64_t k = 0; k < ns; ++k)
        for (int r = 1; r < R; ++r) P.tw.push_back(round_to<S>(root(r * k, ns * R)));
      if (R != 2 && R != 3 && R != 4 && R != 5 && R != 8 && R != 16)
        for (int q = 0; q < R; ++q) P.roots.push_back(round_to<S>(root(q, R)));
    }
    ns *= R;
  }
  P.d.tw = P.tw.data();
  P.d.roots = P.roots.data();
  P.d.work = n;
}

// The Stockham passes of n with radices up to 16 (cx_factorize_top): the
// plans that jobs run directly, which every executor runs, the Metal
// kernels' included (the row kernels of 256 and 512 are keyed on their
// passes; the lane engine runs their d.lane, fill_lane).
template <class S>
void fill_stockham(Plan<S>& P, int64_t n) {
  int radices[CX_MAX_PASSES];
  fill_passes(P, n, radices, cx_factorize_top(n, 16, radices));
}

// The Stockham passes of n cut for the lane engine (lane_radices): the
// plans that only run inside another, Bluestein's inner length and the row
// kernels' m (rows).
template <class S>
void fill_lane_cut(Plan<S>& P, int64_t n, bool rows) {
  int radices[CX_MAX_PASSES];
  fill_passes(P, n, radices, lane_radices(n, radices, rows));
}

// The row kernels' fields (lane_rowm.h split n = 16*m as m vectors of 16):
// the Stockham plan of m and the [m][16] twiddles. Only on the fp32 plans
// that jobs use directly (not on Bluestein's inner plan nor on the plan of
// m itself), as the row kernels compute in fp32 only, and only where the
// instruction set has row kernels.
template <class S>
void fill_row(Plan<S>& P) {
  const int64_t n = P.d.n;
  if (sizeof(S) != 4 || P.d.bluestein || n % 16 != 0 || n < 256 || !isa().has_rows()) return;
  const int64_t m = n / 16;
  auto row = std::make_shared<Plan<S>>();
  row->n = m;
  fill_lane_cut(*row, m, true);
  P.row = row;
  P.row_re.resize(n);
  P.row_im.resize(n);
  for (int64_t c = 0; c < m; ++c)
    for (int64_t b = 0; b < 16; ++b) {
      const cx<double> w = root(b * c, n);
      P.row_re[c * 16 + b] = (S)w.re;
      P.row_im[c * 16 + b] = (S)w.im;
    }
  P.d.row = &row->d;
  P.d.row_re = P.row_re.data();
  P.d.row_im = P.row_im.data();
}

// The lane engine's cut of a plan whose passes lane_radices cuts otherwise
// (d.lane): the lane engine runs 8s, not 16s, and a pair of 3s as a 9,
// while the plan's own passes keep 16 and their 3s for the row kernels
// and the Metal tables. AVX2, columns of 4096 1.17 x, 512 and 256 1.10 x,
// 1024 1.05 x (one thread, in-process A/B).
template <class S>
void fill_lane(Plan<S>& P) {
  int radices[CX_MAX_PASSES];
  const int np = lane_radices(P.d.n, radices);
  bool same = np == P.d.npasses;
  for (int i = 0; same && i < np; ++i) same = radices[i] == P.d.passes[i].radix;
  if (same) return;
  auto lane = std::make_shared<Plan<S>>();
  lane->n = P.d.n;
  fill_passes(*lane, P.d.n, radices, np);
  P.lane = lane;
  P.d.lane = &lane->d;
}

template void fill_passes<float>(Plan<float>&, int64_t, const int*, int, int);
template void fill_passes<double>(Plan<double>&, int64_t, const int*, int, int);
template void fill_lane_cut<float>(Plan<float>&, int64_t, bool);
template void fill_lane_cut<double>(Plan<double>&, int64_t, bool);

}  // namespace plan_fill

namespace {

using namespace plan_fill;

// n1 * n2 = n with n1 the largest divisor <= sqrt(n) (both then fit the
// lane buffers up to kLaneMax^2): the split of every backend (cx_factor.h).
int64_t split(int64_t n) { return cx_four_step_split(n); }

template <class S>
void fill_four_step(Plan<S>& P, int64_t n) {
  P.n1 = split(n);
  P.n2 = n / P.n1;
  P.p1 = get_plan<S>(P.n1);
  P.p2 = get_plan<S>(P.n2);
  P.big_tw.resize(n);
  for (int64_t k = 0; k < n; ++k) P.big_tw[k] = round_to<S>(root(k, n));
  P.lane_re.resize(P.n1 * 16);
  P.lane_im.resize(P.n1 * 16);
  for (int64_t k = 0; k < P.n1; ++k)
    for (int64_t l = 0; l < 16; ++l) {
      cx<double> w = root(k * l, n);
      P.lane_re[k * 16 + l] = (S)w.re;
      P.lane_im[k * 16 + l] = (S)w.im;
    }
}

template <class S>
std::shared_ptr<const Plan<S>> build(int64_t n) {
  auto P = std::make_shared<Plan<S>>();
  P->n = n;
  int radices[CX_MAX_PASSES];
  const bool smooth = cx_factorize(n, radices) > 0 || n == 1;
  if (n <= kLaneMax) {
    if (smooth) {
      fill_stockham(*P, n);
      fill_row(*P);
      fill_lane(*P);
    } else {
      fill_bluestein(*P, n);
      fill_split_bluestein(*P);
      fill_rader(*P);
      fill_blocked_bluestein(*P);
    }
  } else {
    P->large = true;
    if (smooth) fill_four_step(*P, n);
    else fill_bluestein(*P, n);
  }
  return P;
}

template <class S>
std::shared_ptr<const Plan<S>> build_four_step(int64_t n) {
  auto P = std::make_shared<Plan<S>>();
  P->n = n;
  P->large = true;
  fill_four_step(*P, n);
  return P;
}

template <class S>
std::shared_ptr<const RealTwiddles<S>> build_real(int64_t n) {
  auto R = std::make_shared<RealTwiddles<S>>();
  R->w.resize(n / 2 + 1);
  R->re.assign(n / 2 + 16, S(0));
  R->im.assign(n / 2 + 16, S(0));
  for (int64_t k = 0; k <= n / 2; ++k) {
    R->w[k] = round_to<S>(root(k, n));
    R->re[k] = R->w[k].re;
    R->im[k] = R->w[k].im;
  }
  return R;
}

// ---- the cache -------------------------------------------------------------
struct Key {
  int64_t n;
  // 0 plan<float>, 1 plan<double>, 2 real<float>, 3 real<double>,
  // 4 four-step plan<float>, 5 four-step plan<double>,
  // 6 row plan<float>, 7 row plan<double>
  int kind;
  bool operator==(const Key& o) const { return n == o.n && kind == o.kind; }
};
struct KeyHash {
  size_t operator()(const Key& k) const { return std::hash<int64_t>()(k.n * 8 + k.kind); }
};

struct Cache {
  std::mutex mu;
  int64_t max_size = 4096;
  std::list<std::pair<Key, std::shared_ptr<const void>>> lru;  // front: newest
  std::unordered_map<Key, decltype(lru)::iterator, KeyHash> map;

  std::shared_ptr<const void> find(const Key& k) {
    std::lock_guard<std::mutex> g(mu);
    auto it = map.find(k);
    if (it == map.end()) return nullptr;
    lru.splice(lru.begin(), lru, it->second);
    return it->second->second;
  }
  // Plans are built outside the lock (building one may ask the cache for
  // others); a plan built twice by racing threads is kept once.
  std::shared_ptr<const void> insert(const Key& k, std::shared_ptr<const void> v) {
    std::lock_guard<std::mutex> g(mu);
    auto it = map.find(k);
    if (it != map.end()) return it->second->second;
    if (max_size <= 0) return v;
    lru.emplace_front(k, std::move(v));
    map[k] = lru.begin();
    trim();
    return lru.front().second;
  }
  void trim() {
    while ((int64_t)lru.size() > max_size) {
      map.erase(lru.back().first);
      lru.pop_back();
    }
  }
};

Cache& cache() {
  static Cache* c = [] {
    Cache* k = new Cache();  // never destroyed: safe at exit
#if defined(__unix__) || defined(__APPLE__)
    // The lock is taken around fork, so that a child forked while another
    // thread holds it (a DataLoader worker) does not hang on its first FFT.
    pthread_atfork([] { cache().mu.lock(); }, [] { cache().mu.unlock(); },
                   [] { cache().mu.unlock(); });
#endif
    return k;
  }();
  return *c;
}

template <class T, class F>
std::shared_ptr<const T> cached(int64_t n, int kind, F make) {
  Key k{n, kind};
  if (auto v = cache().find(k)) return std::static_pointer_cast<const T>(v);
  std::shared_ptr<const T> built = make(n);
  return std::static_pointer_cast<const T>(cache().insert(k, built));
}

}  // namespace

// (plan.h) Bluestein's tables, for the CUDA plans (csrc/cuda/gpu_plan.h).
void bluestein_tables(int64_t n, int64_t m, std::vector<cx<double>>& c,
                      std::vector<cx<double>>& B) {
  plan_fill::bluestein_tables_of(n, m, c, B);
}

// (host_plans.h) The host plan's Bluestein tables, for the CUDA plans.
template <class S>
void bluestein_chirp_filter(int64_t n, std::vector<cx<S>>& chirp, std::vector<cx<S>>& filter) {
  auto P = get_plan<S>(n);
  TORCH_CHECK(P->d.bluestein && (int64_t)P->chirp.size() == n,
              "complexext: no Bluestein tables for length ", n);
  chirp = P->chirp;
  filter = P->filter;
}
template void bluestein_chirp_filter<float>(int64_t, std::vector<cx<float>>&,
                                            std::vector<cx<float>>&);
template void bluestein_chirp_filter<double>(int64_t, std::vector<cx<double>>&,
                                             std::vector<cx<double>>&);

template <class S>
std::shared_ptr<const Plan<S>> get_plan(int64_t n) {
  TORCH_CHECK(n >= 1, "complexext: FFT length must be at least 1, got ", n);
  return cached<Plan<S>>(n, sizeof(S) == 8 ? 1 : 0, build<S>);
}
template <class S>
std::shared_ptr<const Plan<S>> get_row_plan(int64_t n) {
  TORCH_CHECK(n % 16 == 0 && n / 16 <= kLaneMax, "complexext: no row plan of length ", n);
  return cached<Plan<S>>(n, sizeof(S) == 8 ? 7 : 6, [](int64_t len) {
    auto P = std::make_shared<Plan<S>>();
    P->n = len;
    fill_stockham(*P, len);
    fill_row(*P);
    return std::shared_ptr<const Plan<S>>(P);
  });
}
template std::shared_ptr<const Plan<float>> get_row_plan<float>(int64_t);
template std::shared_ptr<const Plan<double>> get_row_plan<double>(int64_t);

template <class S>
std::shared_ptr<const Plan<S>> get_four_step_plan(int64_t n) {
  return cached<Plan<S>>(n, sizeof(S) == 8 ? 5 : 4, build_four_step<S>);
}
template std::shared_ptr<const Plan<float>> get_four_step_plan<float>(int64_t);
template std::shared_ptr<const Plan<double>> get_four_step_plan<double>(int64_t);

template <class S>
std::shared_ptr<const RealTwiddles<S>> get_real_twiddles(int64_t n) {
  return cached<RealTwiddles<S>>(n, sizeof(S) == 8 ? 3 : 2, build_real<S>);
}
template std::shared_ptr<const Plan<float>> get_plan<float>(int64_t);
template std::shared_ptr<const Plan<double>> get_plan<double>(int64_t);
template std::shared_ptr<const RealTwiddles<float>> get_real_twiddles<float>(int64_t);
template std::shared_ptr<const RealTwiddles<double>> get_real_twiddles<double>(int64_t);

namespace {
std::mutex& members_mu() {
  static std::mutex* m = new std::mutex;  // never destroyed: safe at exit
  return *m;
}
std::vector<PlanCacheMember>& members() {
  static auto* v = new std::vector<PlanCacheMember>;
  return *v;
}
std::vector<PlanCacheMember> members_copy() {
  std::lock_guard<std::mutex> g(members_mu());
  return members();
}
}  // namespace

void add_plan_cache_member(PlanCacheMember m) {
  std::lock_guard<std::mutex> g(members_mu());
  members().push_back(m);
}

int64_t plan_cache_size() {
  int64_t n = 0;
  for (const auto& m : members_copy()) n += m.size();
  std::lock_guard<std::mutex> g(cache().mu);
  return n + (int64_t)cache().lru.size();
}
int64_t plan_cache_max_size() {
  std::lock_guard<std::mutex> g(cache().mu);
  return cache().max_size;
}
void plan_cache_set_max_size(int64_t n) {
  TORCH_CHECK(n >= 0, "complexext.backends.plan_cache.max_size must be >= 0, got ", n);
  {
    std::lock_guard<std::mutex> g(cache().mu);
    cache().max_size = n;
    cache().trim();
  }
  for (const auto& m : members_copy()) m.trim(n);
}
void plan_cache_hold_lock(int64_t ms) {
  std::lock_guard<std::mutex> g(cache().mu);
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

void plan_cache_clear() {
  {
    std::lock_guard<std::mutex> g(cache().mu);
    cache().lru.clear();
    cache().map.clear();
  }
  for (const auto& m : members_copy()) m.clear();
}

}  // namespace complexext
