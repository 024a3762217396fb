// The emulated launch of a register FFT kernel (reg_emulation.h): a pool of
// one host thread per GPU thread of the block, a barrier that analyses the
// accesses of the phase it closes, and the block loop.
#include "reg_emulation.h"

#include <ATen/ATen.h>
#include <torch/library.h>

#include <algorithm>
#include <cstdint>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace complexext {
namespace regemu {
namespace {

// One access: its kind, address and width, and its site (the return address
// of the call into cx_emu_note: one per access instruction of the kernel).
struct Access {
  int kind;
  uintptr_t addr;
  int bytes;
  uintptr_t site;
};

std::mutex counters_mu;
Counters totals;

// One launch: bt threads, each running every block in turn.
struct Launch {
  int bt = 0;
  std::vector<std::vector<Access>> acc;  // accesses since the last barrier, per thread
  std::vector<int> at_end;               // thread reached the end of its block
  std::mutex mu;
  std::condition_variable cv;
  int arrived = 0;
  long generation = 0;
  Counters c;
  std::set<uintptr_t> ld_sectors, st_sectors;  // every sector the launch touches

  void analyse();
  void arrive(int tid, bool end);
};

thread_local Launch* tl_launch = nullptr;
thread_local int tl_tid = 0;

// Closes a phase: barrier divergence, races, then each warp's accesses:
// sectors (global) or wavefronts (shared).
void Launch::analyse() {
  c.barriers += 1;
  int ends = 0;
  for (int v : at_end) ends += v;
  if (ends != 0 && ends != bt) c.divergent += 1;  // some threads left, others wait
  // races: per 4-byte shared word, who wrote and who read it in this phase
  std::map<uintptr_t, std::pair<int, int>> writer;  // word -> (first writer, second writer or -1)
  std::map<uintptr_t, int> reader;                  // word -> a reader (or -2: several)
  for (int t = 0; t < bt; ++t)
    for (const Access& a : acc[t]) {
      if (a.kind < 2) continue;
      for (uintptr_t w = a.addr / 4; w < (a.addr + a.bytes + 3) / 4; ++w) {
        if (a.kind == 3) {
          auto it = writer.find(w);
          if (it == writer.end()) writer[w] = {t, -1};
          else if (it->second.first != t) it->second.second = t;
        } else {
          auto it = reader.find(w);
          if (it == reader.end()) reader[w] = t;
          else if (it->second != t) it->second = -2;
        }
      }
    }
  for (const auto& w : writer) {
    if (w.second.second >= 0) c.races += 1;
    auto r = reader.find(w.first);
    if (r != reader.end() && (r->second == -2 || r->second != w.second.first)) c.races += 1;
  }
  // A warp's access: the k-th execution of one site by its lanes (a lane
  // whose access was predicated off simply has fewer).
  for (int w0 = 0; w0 < bt; w0 += 32) {
    const int w1 = std::min(bt, w0 + 32);
    std::map<std::pair<uintptr_t, size_t>, std::vector<std::pair<int, const Access*>>> warp;
    for (int t = w0; t < w1; ++t) {
      std::map<uintptr_t, size_t> seen;
      for (const Access& a : acc[t]) warp[{a.site, seen[a.site]++}].push_back({t - w0, &a});
    }
    for (const auto& w : warp) {
      const int kind = w.second.front().second->kind;
      std::set<uintptr_t> sectors;
      double bytes = 0;
      uintptr_t lowest = UINTPTR_MAX;
      std::vector<std::pair<uintptr_t, uintptr_t>> spans;  // [begin, end) of each lane's bytes
      std::map<int, std::map<int, std::set<uintptr_t>>> groups;  // group -> bank -> words
      for (const auto& la : w.second) {
        const Access& a = *la.second;
        if (kind < 2) {
          for (uintptr_t s = a.addr / 32; s <= (a.addr + a.bytes - 1) / 32; ++s) {
            sectors.insert(s);
            (a.kind == 0 ? ld_sectors : st_sectors).insert(s);
          }
          spans.push_back({a.addr, a.addr + a.bytes});
          lowest = std::min(lowest, a.addr);
          (a.kind == 0 ? c.gld_bytes : c.gst_bytes) += a.bytes;
        } else {
          const int per_group = a.bytes >= 4 ? 128 / a.bytes : 32;
          auto& banks = groups[la.first / per_group];
          for (uintptr_t q = a.addr / 4; q < (a.addr + a.bytes + 3) / 4; ++q)
            banks[(int)(q % 32)].insert(q);
        }
      }
      if (kind < 2) {
        // distinct bytes: lanes reading the same values (a window shared by
        // the rows of a warp) need them once
        std::sort(spans.begin(), spans.end());
        uintptr_t end = 0;
        for (const auto& sp : spans) {
          const uintptr_t b = std::max(sp.first, end);
          if (sp.second > b) bytes += (double)(sp.second - b);
          end = std::max(end, sp.second);
        }
        c.g_accesses += 1;
        c.g_sectors += (double)sectors.size();
        c.g_min_sectors += (double)((int64_t)(lowest % 32 + bytes + 31) / 32);
      } else {
        c.s_accesses += 1;
        for (const auto& g : groups) {
          size_t wf = 0;
          for (const auto& b : g.second) wf = std::max(wf, b.second.size());
          c.s_wavefronts += (double)wf;
          c.s_ideal += 1;
        }
      }
    }
  }
  for (auto& a : acc) a.clear();
}

void Launch::arrive(int tid, bool end) {
  std::unique_lock<std::mutex> g(mu);
  at_end[tid] = end ? 1 : 0;
  const long gen = generation;
  if (++arrived == bt) {
    analyse();
    arrived = 0;
    ++generation;
    std::fill(at_end.begin(), at_end.end(), 0);
    cv.notify_all();
  } else {
    cv.wait(g, [&] { return generation != gen; });
  }
}

}  // namespace

void run_pool(int bt, int blocks, const std::function<void(int, int)>& body) {
  Launch L;
  L.bt = bt;
  L.acc.resize(bt);
  L.at_end.assign(bt, 0);
  std::vector<std::thread> pool;
  pool.reserve(bt);
  for (int tid = 0; tid < bt; ++tid)
    pool.emplace_back([&, tid] {
      tl_launch = &L;
      tl_tid = tid;
      for (int b = 0; b < blocks; ++b) {
        body(tid, b);
        L.arrive(tid, true);  // the end of the block: every thread is there
      }
      tl_launch = nullptr;
    });
  for (auto& th : pool) th.join();
  L.c.launches = 1;
  L.c.blocks = blocks;
  L.c.g_unique_ld_bytes = 32.0 * (double)L.ld_sectors.size();
  L.c.g_unique_st_bytes = 32.0 * (double)L.st_sectors.size();
  std::lock_guard<std::mutex> g(counters_mu);
  Counters& T = totals;
  const Counters& c = L.c;
  T.launches += c.launches; T.blocks += c.blocks; T.barriers += c.barriers;
  T.gld_bytes += c.gld_bytes; T.gst_bytes += c.gst_bytes; T.g_accesses += c.g_accesses;
  T.g_sectors += c.g_sectors; T.g_min_sectors += c.g_min_sectors;
  T.s_accesses += c.s_accesses; T.s_wavefronts += c.s_wavefronts; T.s_ideal += c.s_ideal;
  T.races += c.races; T.divergent += c.divergent;
  T.g_unique_ld_bytes += c.g_unique_ld_bytes; T.g_unique_st_bytes += c.g_unique_st_bytes;
}

bool launch_f32(const cx_reg_args<float>& A, int n, int mode, int ti, int to) {
  if (ti == 0 && to == 0) return dispatch_f32_hh(A, n, mode);
  if (ti == 0 && to == 1) return dispatch_f32_hf(A, n, mode);
  if (ti == 1 && to == 0) return dispatch_f32_fh(A, n, mode);
  if (ti == 1 && to == 1) return dispatch_f32_ff(A, n, mode);
  return false;
}

Counters& counters() { return totals; }
void reset() {
  std::lock_guard<std::mutex> g(counters_mu);
  totals = Counters();
}

}  // namespace regemu
}  // namespace complexext

void cx_emu_barrier() {
  using namespace complexext::regemu;
  if (tl_launch != nullptr) tl_launch->arrive(tl_tid, false);
}

void cx_emu_note(int kind, const void* addr, int bytes) {
  using namespace complexext::regemu;
  if (tl_launch != nullptr)
    tl_launch->acc[tl_tid].push_back(
        Access{kind, (uintptr_t)addr, bytes, (uintptr_t)__builtin_return_address(0)});
}
