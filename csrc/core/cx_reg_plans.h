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
