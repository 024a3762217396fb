// What every backend's planner takes from the host plans (implemented by
// the CPU plans, csrc/cpu/plan.cpp): the governance of the plan caches
// (complexext.backends.plan_cache) and Bluestein's tables. A backend
// includes this header, never csrc/cpu/ itself.
#pragma once
#include <cstdint>
#include <vector>

#include "../core/cx_complex.h"

namespace complexext {

// The plan caches, CPU plans and every member below together.
int64_t plan_cache_size();
int64_t plan_cache_max_size();
void plan_cache_set_max_size(int64_t n);
void plan_cache_clear();

// Other caches of plans that backends.plan_cache governs with the CPU plans
// (the CUDA device tables, cuda/binding.cpp): their size counts in
// plan_cache_size(), each keeps at most plan_cache_max_size() entries
// (trim(max) evicts its least recently used ones; called on
// plan_cache_set_max_size), and plan_cache_clear() clears them. The
// functions are called without the CPU cache's lock held.
struct PlanCacheMember {
  int64_t (*size)();
  void (*trim)(int64_t max_size);
  void (*clear)();
};
void add_plan_cache_member(PlanCacheMember m);

// Bluestein's tables for a row of n on a convolution of length m >= 2n - 1:
// the chirp c[k] = exp(-pi i k^2 / n), k < n, and the spectrum
// B = DFT_m(b) / m of b[k] = conj(c[k]) = b[m - k] (zero between), in double.
void bluestein_tables(int64_t n, int64_t m, std::vector<cx<double>>& c,
                      std::vector<cx<double>>& B);

// The same tables of the host plan of n (cached there; its m, the smooth
// length the host chose), rounded once to S (float or double).
template <class S>
void bluestein_chirp_filter(int64_t n, std::vector<cx<S>>& chirp, std::vector<cx<S>>& filter);

}  // namespace complexext
