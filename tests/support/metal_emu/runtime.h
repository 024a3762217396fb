// Runs kernels compiled from Metal source on the CPU: every threadgroup in
// turn, its threads as fibres (ucontext). In each round every live thread
// runs until its next threadgroup_barrier or its end, the threads taken in
// a shuffled order, so that code relying on an order between barriers, or
// missing a barrier, sees a different interleaving at each seed. A round
// in which some threads end while others wait at a barrier is reported as
// divergent barriers (undefined behaviour on a GPU).
#pragma once
#include <ucontext.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <numeric>
#include <random>
#include <vector>

namespace emu {

enum State { READY, WAITING, DONE };

struct Fibre {
  ucontext_t ctx;
  std::vector<char> stack;
  State state = READY;
};

struct Group {
  std::vector<Fibre> fibres;
  ucontext_t sched;
  int current = -1;
  const std::function<void(unsigned)>* body = nullptr;
};

inline Group& group() {
  static Group g;
  return g;
}

inline void entry() {
  Group& g = group();
  const int me = g.current;
  (*g.body)((unsigned)me);
  g.fibres[me].state = DONE;  // then back to the scheduler (uc_link)
}

inline void barrier() {
  Group& g = group();
  if (g.current < 0) {
    std::fprintf(stderr, "threadgroup_barrier outside a kernel\n");
    std::abort();
  }
  Fibre& f = g.fibres[g.current];
  f.state = WAITING;
  swapcontext(&f.ctx, &g.sched);
}

// One threadgroup of nt threads; 0, or -1 on divergent barriers.
inline int run_group(unsigned nt, std::mt19937_64& rng, const std::function<void(unsigned)>& fn) {
  Group& g = group();
  if (g.fibres.size() < nt) g.fibres.resize(nt);
  g.body = &fn;
  for (unsigned t = 0; t < nt; ++t) {
    Fibre& f = g.fibres[t];
    f.stack.resize(1 << 16);
    getcontext(&f.ctx);
    f.ctx.uc_stack.ss_sp = f.stack.data();
    f.ctx.uc_stack.ss_size = f.stack.size();
    f.ctx.uc_link = &g.sched;
    makecontext(&f.ctx, (void (*)())entry, 0);
    f.state = READY;
  }
  std::vector<unsigned> order(nt);
  std::iota(order.begin(), order.end(), 0u);
  for (;;) {
    std::shuffle(order.begin(), order.end(), rng);
    for (unsigned t : order) {
      if (g.fibres[t].state == DONE) continue;
      g.current = (int)t;
      g.fibres[t].state = READY;
      swapcontext(&g.sched, &g.fibres[t].ctx);
    }
    g.current = -1;
    unsigned done = 0;
    for (unsigned t = 0; t < nt; ++t) done += g.fibres[t].state == DONE;
    if (done == nt) return 0;
    if (done) return -1;
  }
}

// A 1-d dispatch of `threads` threads in groups of `group_size` (the last
// group may be partial, as with Metal's dispatchThreads).
// kernel(thread_index_in_threadgroup, threadgroup_position_in_grid,
//        thread_position_in_grid, threads_per_threadgroup).
inline int dispatch(long threads, long group_size, uint64_t seed,
                    const std::function<void(unsigned, unsigned, unsigned, unsigned)>& kernel) {
  std::mt19937_64 rng(seed);
  const long groups = (threads + group_size - 1) / group_size;
  for (long gi = 0; gi < groups; ++gi) {
    const unsigned nt = (unsigned)std::min(group_size, threads - gi * group_size);
    const std::function<void(unsigned)> fn = [&](unsigned t) {
      kernel(t, (unsigned)gi, (unsigned)(gi * group_size + t), (unsigned)group_size);
    };
    if (run_group(nt, rng, fn)) return -1;
  }
  return 0;
}

}  // namespace emu
