// Host-side FFT plans and their cache.
//
// A plan for length n is one of
//  - lane:  Stockham passes (maybe inside Bluestein) run on W transforms at
//           once in cache-sized buffers, for n <= kLaneMax;
//  - large: a four-step split n = n1*n2 (column FFTs, twiddle, row FFTs)
//           or, for a large prime factor, Bluestein around a large plan.
// Tables are computed in double and rounded once to the compute type
// (plan.cpp, with the cache); the large plans run through four_step.cpp.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "../plan/host_plans.h"  // the cache's governance, Bluestein's tables
#include "axis_job.h"

namespace complexext {

constexpr int64_t kLaneMax = 16384;

template <class S>
struct Plan {
  int64_t n = 0;
  bool large = false;
  cx_plan_desc<S> d{};  // lane plans
  std::vector<cx<S>> tw, roots, chirp, filter;
  std::shared_ptr<const Plan<S>> inner;   // Bluestein's length-m plan
  int64_t n1 = 0, n2 = 0;                 // four-step split
  std::shared_ptr<const Plan<S>> p1, p2;
  std::vector<cx<S>> big_tw;              // exp(-2*pi*i*k/n), k < n
  std::vector<S> lane_re, lane_im;        // exp(-2*pi*i*k*l/n), [k < n1][l < 16]
  std::shared_ptr<const Plan<S>> row;     // n = 16*m: the plan of m (d.row)
  std::vector<S> row_re, row_im;          // exp(-2*pi*i*b*c/n), [c < m][b < 16]
  std::shared_ptr<const Plan<S>> lane;    // n cut for the lane engine (d.lane)
  std::vector<int> perm;                  // Rader's input, then output order (d.perm_*)
  std::shared_ptr<const Plan<S>> back;    // first and last radices swapped (d.back)
};

// exp(-2*pi*i*k/n) for k <= n/2 (the even real-transform twiddles): w as
// pairs; re and im the same values apart, zero-padded to n/2 + 16 for the
// row kernels' 16-wide loads.
template <class S>
struct RealTwiddles {
  std::vector<cx<S>> w;
  std::vector<S> re, im;
};

template <class S>
std::shared_ptr<const Plan<S>> get_plan(int64_t n);

template <class S>
std::shared_ptr<const RealTwiddles<S>> get_real_twiddles(int64_t n);
// A Stockham lane plan whatever the length (n = 16*m, m <= kLaneMax), for
// the row kernels (lane_rowm.h), which read only its row fields (d.row:
// the plan of m, and the twiddles), so that lengths past kLaneMax run one
// row at a time where they can instead of four-step.
template <class S>
std::shared_ptr<const Plan<S>> get_row_plan(int64_t n);
// A four-step plan whatever the length (n must have a divisor > 1 and no
// prime factor above 13): for a few rows, where W lanes would mostly repeat
// one row, the four-step split keeps every lane busy.
template <class S>
std::shared_ptr<const Plan<S>> get_four_step_plan(int64_t n);

// The cache holds both kinds above, for both compute types: bounded LRU,
// safe to use from several threads (its size and governance:
// plan/host_plans.h).
void plan_cache_hold_lock(int64_t ms);  // tests: the cache's lock held for ms

// One row of a c2c transform where it lies: the four-step plan reads and
// writes it directly. conj gives the inverse transform.
struct StridedRow {
  const void* in;
  int in_type;
  int64_t in_stride;  // in elements
  void* out;
  int out_type;
  int64_t out_stride;
  bool conj;
  double scale;
};
template <class S>
void four_step(const Plan<S>& P, const StridedRow& row);
// One row of a Bluestein plan (P.d.bluestein: its chirp, filter and m),
// its two transforms of m as one-row jobs: for few rows, where the lane
// engine would fill one or two of its lanes.
template <class S>
void bluestein_row(const Plan<S>& P, const StridedRow& row);
// One or two real rows of odd length n (rows[0..count)) as one complex row
// z = x0 + i x1, transformed by a one-row c2c job of n and split into the
// rows' out_len bins: for few rows, which the lane engine takes two to a
// lane of W. The reals past in_len are zeros; no conjugation.
template <class S>
void r2c_rows_as_c2c(const StridedRow* rows, int count, int64_t n, int64_t in_len,
                     int64_t out_len);
// Its inverse: one or two half spectra of odd length n (in_len bins each,
// zeros after) as one complex row F0 + i F1 of their Hermitian spectra,
// inverse-transformed by a one-row c2c job; the rows' n reals are its real
// and imaginary parts. Im of bin 0 is dropped, as a real signal has none.
template <class S>
void c2r_rows_as_c2c(const StridedRow* rows, int count, int64_t n, int64_t in_len);

// In-place transform of one contiguous row with a large plan (the
// large_fft hook of cx_axis_job).
template <class S>
void large_fft(const void* plan, void* buf);

}  // namespace complexext
