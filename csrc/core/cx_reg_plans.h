// The register kernels' plans on the host, once per length: cx_rplan_choose
// searches plans with idle butterflies (cx_reg_fft.h), up to some 10^5
// steps for lengths of four exact passes or more, which a transform should
// not pay at every call. Host code only (the binding's driver, the
// emulation, the NVRTC programs); the kernels take their plan at compile
// time.
#pragma once
#include <mutex>
#include <unordered_map>

#include "cx_reg_fft.h"

// The plan of n (np = 0: none, as cx_rplan_choose).
inline cx_rplan cx_reg_plan_host(int n) {
  static std::mutex& mu = *new std::mutex;  // never destroyed: used until exit
  static std::unordered_map<int, cx_rplan>& memo = *new std::unordered_map<int, cx_rplan>;
  if (n < 2 || n > 16384) return cx_rplan{};
  {
    std::lock_guard<std::mutex> g(mu);
    auto it = memo.find(n);
    if (it != memo.end()) return it->second;
  }
  const cx_rplan p = cx_rplan_choose(n);  // outside the lock: a pure function
  std::lock_guard<std::mutex> g(mu);
  memo.emplace(n, p);
  return p;
}

// The plan of the kernel of n in mode `mode` (cx_rplan_of): the plan of n,
// but where a mode has a plan of its own (Bluestein's 8192).
inline cx_rplan cx_reg_plan_host_of(int n, int mode) {
  if (mode == CX_REG_BLUESTEIN && n == 8192) return cx_rplan_of(n, mode);
  return cx_reg_plan_host(n);
}

// The split L = n1 x n2 (L above 16384) of the two-pass register transform
// (cx_reg_fft.h, "two passes"): n1 with a column tile that carries the
// twiddles (CX_REG_COLS_TW), n2 with the flat-in, tile-out kernel
// (CX_REG_FLAT_COLS), both at most 16384. Splits whose two kernels are
// compiled ahead of time come first, then the most even (the smaller larger
// factor), then n1 <= n2. {0, 0}: none (a prime factor above 13, a factor
// without a tile, or L above 2^28). Once per L.
struct cx_reg_split {
  int n1 = 0, n2 = 0;
};
inline cx_reg_split cx_reg_split_host(long long L) {
  static std::mutex& mu = *new std::mutex;  // never destroyed: used until exit
  static std::unordered_map<long long, cx_reg_split>& memo =
      *new std::unordered_map<long long, cx_reg_split>;
  cx_reg_split best;
  if (L <= 16384 || L > 16384LL * 16384LL) return best;
  {
    std::lock_guard<std::mutex> g(mu);
    auto it = memo.find(L);
    if (it != memo.end()) return it->second;
  }
  long long best_key = -1;
  for (int a = 2; a <= 16384; ++a) {
    if (L % a != 0 || L / a > 16384) continue;
    const int b = (int)(L / a);
    const cx_rplan pa = cx_reg_plan_host(a), pb = cx_reg_plan_host(b);
    if (pa.np == 0 || pb.np == 0 || !cx_reg_mode_ok_of(pa, CX_REG_COLS_TW) ||
        !cx_reg_mode_ok_of(pb, CX_REG_FLAT_COLS))
      continue;
    const bool aot = cx_reg_split_has(a) && cx_reg_split_has(b);
    const long long key = (aot ? 0 : 1LL << 40) + (long long)(a > b ? a : b) * 2 + (a > b ? 1 : 0);
    if (best_key < 0 || key < best_key) {
      best_key = key;
      best.n1 = a;
      best.n2 = b;
    }
  }
  std::lock_guard<std::mutex> g(mu);
  memo.emplace(L, best);
  return best;
}
