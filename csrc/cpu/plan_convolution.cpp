// The host plans of lengths with a prime factor above 13 (build in
// plan.cpp runs these): Bluestein's tables, with its filter spectrum by a
// double-precision DFT of its own, and the lane engine's cuts of such a
// length: the split n = c * q, Rader, and Bluestein in two levels, each
// with the inner plans its kernels in lane_bluestein.h run. Tables only:
// no executor is called from here.
#include <c10/util/Exception.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "../core/cx_factor.h"
#include "isa.h"
#include "plan_fill.h"

namespace complexext {
namespace plan_fill {

// The inner plan's transform back (d.back) for the lane engine's Bluestein
// and Rader cuts: its radices with the first and last swapped. The forward
// transform's last pass, of radix R at ns = n / R, leaves the outputs
// k + r n / R of its step k where the back transform's first pass, of the
// same R at ns = 1, reads those of its step k; so the two, with the filter
// between them, run as one sweep (pass_middle_times in lane_bluestein.h),
// and the back transform's last radix stays the forward one's first, which
// Rader needs to be a fixed radix. Its first pass runs fused, so it gets no
// tables.
template <class S>
static void fill_back(Plan<S>& P) {
  const cx_plan_desc<S>& d = P.d;
  const int np = d.npasses;
  if (np < 2 || d.passes[0].radix == d.passes[np - 1].radix) {
    P.d.back = &P.d;
    return;
  }
  int radices[CX_MAX_PASSES];
  for (int i = 0; i < np; ++i) radices[i] = d.passes[i].radix;
  std::swap(radices[0], radices[np - 1]);
  auto B = std::make_shared<Plan<S>>();
  B->n = d.n;
  fill_passes(*B, d.n, radices, np, 1);
  P.back = B;
  P.d.back = &B->d;
}

// y[k] = sum_j x[j s] w^(jk), w = exp(-2 pi i / n), in double: recursive
// decimation in time over n's smallest prime factor p (n / p-point DFTs of
// the p decimated sequences, then p-point butterflies with twiddles),
// O(n * sum of n's prime factors). w_N holds exp(-2 pi i k / N) for the
// top-level N, of which n is a divisor. Used for Bluestein's filter
// spectrum, once per plan: the tables are made here, before and apart from
// any executor (axis.cpp runs the plans; it is not called from here).
static void dft_double(const cx<double>* x, int64_t s, cx<double>* y, int64_t n, int64_t N,
                const std::vector<cx<double>>& w_N) {
  if (n == 1) {
    y[0] = x[0];
    return;
  }
  int64_t p = 2;
  while (n % p) p = (p * p > n) ? n : p + 1;
  const int64_t q = n / p, step = N / n;  // w_n^k = w_N^(k step)
  for (int64_t r = 0; r < p; ++r) dft_double(x + r * s, s * p, y + r * q, q, N, w_N);
  cx<double> small[16];
  std::vector<cx<double>> big(p > 16 ? p : 0);
  cx<double>* t = p > 16 ? big.data() : small;
  for (int64_t k = 0; k < q; ++k) {
    for (int64_t r = 0; r < p; ++r) t[r] = cx_mul(y[r * q + k], w_N[(r * k % n) * step]);
    for (int64_t j = 0; j < p; ++j) {
      cx<double> acc = cx_make<double>(0, 0);
      for (int64_t r = 0; r < p; ++r) acc = acc + cx_mul(t[r], w_N[(r * j % p) * q * step]);
      y[j * q + k] = acc;
    }
  }
}

// Bluestein: X[j] = c[j] * sum_k (x[k] c[k]) conj(c[j-k]), c[k] = exp(-i pi k^2 / n),
// a cyclic convolution of length m >= 2n-1 done with FFTs of length m.
// c[k] (k < n) and the spectrum B = DFT_m(b) / m of b[k] = conj(c[k]),
// b[m - k] = b[k] (zero between), in double.
void bluestein_tables_of(int64_t n, int64_t m, std::vector<cx<double>>& c,
                         std::vector<cx<double>>& B) {
  TORCH_CHECK(n >= 1 && m >= 2 * n - 1, "complexext: Bluestein length ", m, " for ", n);
  std::vector<cx<double>> b(m, cx_make<double>(0, 0));
  c.assign(n, cx_make<double>(0, 0));
  for (int64_t k = 0; k < n; ++k) {
    uint64_t q = ((uint64_t)k * (uint64_t)k) % (uint64_t)(2 * n);
    c[k] = root((int64_t)q, 2 * n);
    b[k] = cx_conj(c[k]);
    if (k) b[m - k] = b[k];
  }
  std::vector<cx<double>> w(m);
  for (int64_t k = 0; k < m; ++k) w[k] = root(k, m);
  B.assign(m, cx_make<double>(0, 0));
  dft_double(b.data(), 1, B.data(), m, m, w);
  const double inv = 1.0 / (double)m;
  for (auto& v : B) v = cx_make<double>(v.re * inv, v.im * inv);
}

template <class S>
void fill_bluestein(Plan<S>& P, int64_t n) {
  const int64_t m = cx_next_smooth(2 * n - 1);
  std::vector<cx<double>> c, B;
  bluestein_tables_of(n, m, c, B);
  P.chirp.resize(n);
  P.filter.resize(m);
  for (int64_t k = 0; k < n; ++k) P.chirp[k] = round_to<S>(c[k]);
  for (int64_t k = 0; k < m; ++k) P.filter[k] = round_to<S>(B[k]);
  if (P.large) {
    P.inner = get_plan<S>(m);
  } else {
    // The lane engine runs the inner transform in its own buffers, so it
    // needs a Stockham plan of m whatever its size.
    auto inner = std::make_shared<Plan<S>>();
    inner->n = m;
    fill_lane_cut(*inner, m);
    // fft_any fuses the chirp and filter products into the first and last
    // passes, which it runs with the radices of a 2,3,5-smooth length.
    const cx_plan_desc<S>& d = inner->d;
    bool fused = d.npasses >= 2;
    for (int i = 0; i < d.npasses; ++i) {
      const int R = d.passes[i].radix;
      fused = fused && cx_lane_fixed_radix(R);
    }
    TORCH_CHECK(fused, "complexext: Bluestein length ", m, " for ", n,
                " has passes the fused products do not take");
    fill_back(*inner);
    P.inner = inner;
  }
  P.d.bluestein = 1;
  P.d.n = n;
  P.d.m = m;
  P.d.chirp = P.chirp.data();
  P.d.filter = P.filter.data();
  P.d.inner = P.large ? nullptr : &P.inner->d;
  P.d.work = m;
}

// Rader's cut of L = n - 1 for a prime n: L 13-smooth with two factors or
// more among cx_lane_fixed_radices, which then take the first and last
// passes (the fused ones); the others run between them. Returns the number
// of passes, or 0 where Rader does not apply.
static int rader_radices(int64_t n, int* radices) {
  if (n < 5 || n > kLaneMax || cx_largest_prime_factor(n) != n) return 0;
  const int np = lane_radices(n - 1, radices);  // 0: not 13-smooth
  int fixed[CX_MAX_PASSES], other[CX_MAX_PASSES], nf = 0, no = 0;
  for (int i = 0; i < np; ++i) {
    if (cx_lane_fixed_radix(radices[i])) fixed[nf++] = radices[i];
    else other[no++] = radices[i];
  }
  if (nf < 2) return 0;
  int k = 0;
  for (int i = 0; i < nf - 1; ++i) radices[k++] = fixed[i];
  for (int i = 0; i < no; ++i) radices[k++] = other[i];
  radices[k++] = fixed[nf - 1];
  return np;
}

// Rader where rader_radices cuts n - 1 (d.lane, bluestein = 4; rader in
// lane_bluestein.h): a cyclic convolution of length L = n - 1 instead of
// Bluestein's m >= 2n - 1, the orders g^r mod n riding on the first pass's
// reads and the last pass's stores. One thread, AVX2, ms per 4 Mi values,
// Bluestein (two levels where it takes them) : Rader, median of 4 runs: 97
// 18.0 : 11.4, 257 21.4 : 11.3, 641 22.0 : 12.2, 1153 21.3 : 13.9, 2161
// 27.0 : 14.0, 3457 25.3 : 14.8, 7681 27.8 : 17.6, 12289 30.5 : 18.4, so
// it is taken wherever it applies.
template <class S>
void fill_rader(Plan<S>& P) {
  const int64_t n = P.d.n, L = n - 1;
  int radices[CX_MAX_PASSES];
  const int np = P.large || P.d.lane ? 0 : rader_radices(n, radices);
  if (np == 0) return;
  auto sub = std::make_shared<Plan<S>>();
  sub->n = L;
  fill_passes(*sub, L, radices, np);
  fill_back(*sub);
  // g: the least generator of the multiplicative group mod n (g^(L/f) != 1
  // for every prime f | L).
  auto pow_mod = [n](int64_t b, int64_t e) {
    int64_t r = 1;
    for (b %= n; e; e >>= 1, b = b * b % n)
      if (e & 1) r = r * b % n;
    return r;
  };
  int64_t g = 2;
  for (;; ++g) {
    bool gen = true;
    for (int64_t f = 2, rest = L; rest > 1; ++f)
      if (rest % f == 0) {
        gen = gen && pow_mod(g, L / f) != 1;
        while (rest % f == 0) rest /= f;
      }
    if (gen) break;
  }
  auto rp = std::make_shared<Plan<S>>();
  rp->n = n;
  rp->perm.resize(2 * L);
  const int64_t ginv = pow_mod(g, L - 1);
  for (int64_t r = 0, gi = 1, go = 1; r < L; ++r, gi = gi * g % n, go = go * ginv % n) {
    rp->perm[r] = (int)gi;
    rp->perm[L + r] = (int)go;
  }
  // F = DFT_L(b) / L, b[s] = w_n^(g^-s), in double.
  std::vector<cx<double>> b(L), F(L), w(L);
  for (int64_t k = 0; k < L; ++k) {
    b[k] = root(rp->perm[L + k], n);
    w[k] = root(k, L);
  }
  dft_double(b.data(), 1, F.data(), L, L, w);
  rp->filter.resize(L);
  for (int64_t k = 0; k < L; ++k)
    rp->filter[k] = round_to<S>(cx_make<double>(F[k].re / (double)L, F[k].im / (double)L));
  rp->inner = sub;
  rp->d.n = n;
  rp->d.bluestein = 4;
  rp->d.filter = rp->filter.data();
  rp->d.inner = &sub->d;
  rp->d.perm_in = rp->perm.data();
  rp->d.perm_out = rp->perm.data() + L;
  rp->d.work = n;
  P.lane = rp;
  P.d.lane = &rp->d;
}

// Bluestein's transforms of m in two levels (d.lane, bluestein = 3; the
// kernel is bluestein_blocked in lane_bluestein.h): m = R * m2 with R the
// first of 8, 9, 5, 4, 3, 2 that divides m. The R rows of m2 are each
// transformed, multiplied by the filter and transformed back while they are
// in L1 or L2, and only the first and last passes sweep the two buffers of
// m vectors, where a pass of m sweeps them every time. Taken where those
// buffers are past 64 KiB (AVX2 fp32: m > 512). One thread, AVX2, ms per
// 4 Mi values, one level : two, median of 5 or 6 runs: 521 (m = 1080)
// 22.8 : 21.3, 1021 (2048) 21.6 : 19.5, 2053 (4320) 27.5 : 25.1, 4099
// (8640) 33.8 : 27.1, 8198 (16875) 35.4 : 28.3, 10007 (20250) 36.4 : 30.1,
// 14371 = 7 * 2053 29.4 : 26.8, 6126 = 6 * 1021 23.6 : 21.9; the same
// within noise at 131 (m = 288, one level) and 257 (540, two).
constexpr int64_t kBlockedBluesteinBytes = 64 << 10;

// The outer radix of the two levels: the first of 8, 9, 5, 4, 3, 2 that
// divides m.
static int blocked_radix(int64_t m) {
  for (int r : {8, 9, 5, 4, 3, 2})
    if (m % r == 0) return r;
  return 1;
}

// The cost of the two levels' sweeps for a convolution of length m, in
// vector-sweeps weighted by radix: the outer radix R's two sweeps of m
// (1.25 x, as they leave L2) and, for m2 = m / R, the forward transform,
// the middle pass and the transform back, each pass a sweep of m2 for each
// of the R rows. The weights, time a vector a pass against a radix-8 one,
// are AVX-512's (one thread), fitted to 13 pairs of Bluestein lengths timed
// side by side (docs/measurements.md).
static double blocked_cost(int64_t m) {
  auto weight = [](int r) {
    switch (r) {
      case 2: return 1.2;
      case 3: return 0.8;
      case 4: return 0.85;
      case 5: return 0.9;
      case 9: return 1.3;
      case 15: return 2.0;
      default: return 1.0;
    }
  };
  const int R = blocked_radix(m);
  int radices[CX_MAX_PASSES];
  const int np = lane_radices(m / R, radices);
  double sweeps = 2 * 1.25 * weight(R) - weight(radices[np - 1]);
  for (int i = 0; i < np; ++i) sweeps += 2 * weight(radices[i]);
  return (double)m * sweeps;
}

// Bluestein's length m for the two levels, m0 its smallest (the plan's
// d.m): the 2,3,5-smooth length up to 7 % past m0 of the least
// blocked_cost, where that is at most 0.93 x m0's; m0 on instruction sets
// other than AVX-512, whose weights were not measured. AVX-512, one
// thread, 4 Mi values, time with the length chosen / with m0, medians of
// 6-8 rounds side by side: 997 (2048 against 2000) 0.82, 599 (1280, 1200)
// 0.83, 1237 (2560, 2500) 0.83, 10007 (20480, 20250) 0.84 (rfft 0.87),
// 1999 (4096, 4000) 0.85, 3079 (6400, 6250) 0.89, 1307 (2880, 2700)
// 0.94, 2531 (5184, 5120), 9619 (20480, 19440) and 1031 (2304, 2160)
// 0.96, 1741 (3840, 3600) 0.975, 5197 (11520, 10800) 0.98, 5003 (10240,
// 10125) 0.99, 13403 = 13 * 1031 1.00. Kept at m0: 4099, 1021, 8198,
// 8209, 509; and 2053, whose 4608 (a cost of 0.945) measured 0.99, and
// 1.015 as the q of 14371 = 7 * 2053.
static int64_t blocked_length(int64_t m0) {
  if (!isa().takes_radix15()) return m0;
  const double c0 = blocked_cost(m0);
  int64_t best = m0;
  double cost = c0;
  for (int64_t m = m0 + 1; m <= m0 + m0 * 7 / 100; ++m) {
    if (cx_next_smooth(m) != m) continue;
    const double c = blocked_cost(m);
    if (c < cost) {
      best = m;
      cost = c;
    }
  }
  return cost <= 0.93 * c0 ? best : m0;
}

template <class S>
void fill_blocked_bluestein(Plan<S>& P) {
  const int64_t n = P.d.n;
  const int64_t lane_bytes = 2 * (int64_t)sizeof(S) * isa().lanes(sizeof(S) == 8);
  if (P.large || P.d.lane || 2 * P.d.m * lane_bytes <= kBlockedBluesteinBytes) return;
  const int64_t m = blocked_length(P.d.m);
  // The filter of m where it is not the plan's own (the chirp is n's).
  std::vector<cx<S>> filter_m;
  if (m != P.d.m) {
    std::vector<cx<double>> c, B;
    bluestein_tables_of(n, m, c, B);
    filter_m.resize(m);
    for (int64_t k = 0; k < m; ++k) filter_m[k] = round_to<S>(B[k]);
  }
  const cx<S>* filter = m != P.d.m ? filter_m.data() : P.filter.data();
  const int R = blocked_radix(m);
  const int64_t m2 = m / R;
  auto L = std::make_shared<Plan<S>>();
  L->n = n;
  auto sub = std::make_shared<Plan<S>>();
  sub->n = m2;
  fill_lane_cut(*sub, m2);
  TORCH_CHECK(sub->d.npasses >= 2 && cx_lane_fixed_radix(sub->d.passes[0].radix) &&
                  cx_lane_fixed_radix(sub->d.passes[sub->d.npasses - 1].radix),
              "complexext: no two-level Bluestein plan of ", m, " for ", n);
  fill_back(*sub);
  L->inner = sub;
  L->tw.resize(m2 * (R - 1));
  for (int64_t i2 = 0; i2 < m2; ++i2)
    for (int k1 = 1; k1 < R; ++k1) L->tw[i2 * (R - 1) + k1 - 1] = round_to<S>(root(i2 * k1, m));
  L->filter.resize(m);
  for (int k1 = 0; k1 < R; ++k1)
    for (int64_t k2 = 0; k2 < m2; ++k2) L->filter[k1 * m2 + k2] = filter[k1 + R * k2];
  L->d.n = n;
  L->d.m = m;
  L->d.npasses = 1;
  L->d.passes[0].radix = R;
  L->d.passes[0].ns = 1;
  L->d.tw = L->tw.data();
  L->d.bluestein = 3;
  L->d.chirp = P.chirp.data();
  L->d.filter = L->filter.data();
  L->d.inner = &sub->d;
  L->d.work = m;
  P.lane = L;
  P.d.lane = &L->d;
  P.d.work = std::max(P.d.work, m);
}

// Whether fill_split_bluestein's cut pays for n = c * q, m = n's own
// Bluestein length: where Rader transforms q (fill_rader: n - 1 points
// against m's 2n and more), and else unless c = 2 and q pads worse than n
// (m_q / q > m / n), where the pass of 2 costs what the shorter inner transforms save (one
// thread, AVX2, ms per 4 Mi values, n's own Bluestein : the cut: 8198 =
// 2 * 4099 32.1 : 32.9, 326 = 2 * 163 20.4 : 20.8; and where the cut is
// taken, 6126 = 6 * 1021 30.7 : 23.2, 3927 = 231 * 17 27.4 : 16.3, 13403 =
// 13 * 1031 29.1 : 27.1, 14371 = 7 * 2053 38.0 : 29.9, and a tie at 12297 =
// 3 * 4099, 30.7 : 31.6; docs/measurements.md).
static bool split_bluestein_pays(int64_t n, int64_t c, int64_t q, int64_t m) {
  const int64_t mq = cx_next_smooth(2 * q - 1);
  int radices[CX_MAX_PASSES];
  return c >= 3 || rader_radices(q, radices) > 0 || mq * n <= m * q;
}

// n = c * q with c > 1 the 13-smooth part: the lane engine's cut (d.lane)
// that transforms the c decimated rows of q by Bluestein in its first pass
// and runs c's radices after it (fft_any in lane_bluestein.h), where its
// Bluestein transforms are shorter than n's own. Scratch: n vectors, the
// skew, and q's work, in each of the two buffers.
template <class S>
void fill_split_bluestein(Plan<S>& P) {
  const int64_t n = P.d.n;
  const int64_t c = cx_smooth_part(n), q = n / c;
  if (c == 1 || !split_bluestein_pays(n, c, q, P.d.m)) return;
  auto L = std::make_shared<Plan<S>>();
  L->n = n;
  L->inner = get_plan<S>(q);
  TORCH_CHECK(L->inner->d.bluestein == 1 && !L->inner->large,
              "complexext: no lane Bluestein plan for ", q, " in ", n);
  int radices[CX_MAX_PASSES];
  radices[0] = (int)q;
  const int np = 1 + lane_radices(c, radices + 1);
  fill_passes(*L, n, radices, np, 1);
  L->d.bluestein = 2;
  L->d.inner = &L->inner->d;
  L->d.work = n + CX_LANE_SKEW + L->inner->d.work;
  P.lane = L;
  P.d.lane = &L->d;
  P.d.work = std::max(P.d.work, L->d.work);
}

template void fill_bluestein<float>(Plan<float>&, int64_t);
template void fill_bluestein<double>(Plan<double>&, int64_t);
template void fill_split_bluestein<float>(Plan<float>&);
template void fill_split_bluestein<double>(Plan<double>&);
template void fill_rader<float>(Plan<float>&);
template void fill_rader<double>(Plan<double>&);
template void fill_blocked_bluestein<float>(Plan<float>&);
template void fill_blocked_bluestein<double>(Plan<double>&);

}  // namespace plan_fill
}  // namespace complexext
