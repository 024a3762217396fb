// The plan builders' shared pieces, private to the two files that build the
// host plans: plan.cpp (the Stockham and lane cuts, the four-step split,
// build and the cache) and plan_convolution.cpp (the cuts of lengths with a
// prime factor above 13: Bluestein, Rader, Bluestein in two levels, the
// split). Include it nowhere else.
#pragma once
#include <cstdint>
#include <vector>

#include "plan.h"
#include "../host_root.h"

namespace complexext {
namespace plan_fill {

inline cx<double> root(int64_t k, int64_t n) {
  cx<double> z;
  exact_root(k, n, &z.re, &z.im);
  return z;
}

template <class S>
cx<S> round_to(cx<double> z) {
  return cx_make<S>((S)z.re, (S)z.im);
}

// (plan.cpp) The radices of the lane engine's own cuts; 0 where n is not
// 13-smooth.
int lane_radices(int64_t n, int* radices, bool rows = false);
// (plan.cpp) The passes of the given radices, with their tables from pass
// `first` on.
template <class S>
void fill_passes(Plan<S>& P, int64_t n, const int* radices, int np, int first = 0);
// (plan.cpp) The Stockham passes of n cut for the lane engine.
template <class S>
void fill_lane_cut(Plan<S>& P, int64_t n, bool rows = false);

// (plan_convolution.cpp) Bluestein's chirp c (n) and filter spectrum B (m)
// in double.
void bluestein_tables_of(int64_t n, int64_t m, std::vector<cx<double>>& c,
                         std::vector<cx<double>>& B);
// (plan_convolution.cpp) A length with a prime factor above 13, in the
// order build runs them: Bluestein's tables and inner plan, then the lane
// engine's cut where one applies (d.lane): the split n = c * q, Rader, or
// Bluestein in two levels.
template <class S>
void fill_bluestein(Plan<S>& P, int64_t n);
template <class S>
void fill_split_bluestein(Plan<S>& P);
template <class S>
void fill_rader(Plan<S>& P);
template <class S>
void fill_blocked_bluestein(Plan<S>& P);

}  // namespace plan_fill
}  // namespace complexext
