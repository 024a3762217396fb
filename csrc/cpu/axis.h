// Runs cx_axis_jobs on the CPU: scratch, threads, and the choice of ISA.
#pragma once
#include <ATen/core/Tensor.h>

#include <cstdlib>
#include <functional>

#include "axis_job.h"
#include "output_pool.h"

namespace complexext {

// Per-thread scratch, grown on demand and kept, so a transform of the same
// size touches no new pages. A large row runs jobs inside a job (four-step),
// so each nesting level has its own buffer; the object holds one level.
class Scratch {
 public:
  explicit Scratch(size_t bytes);
  ~Scratch() { --depth; }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  void* p;

 private:
  struct Buf {
    void* p = nullptr;
    size_t size = 0;
    ~Buf() { std::free(p); }
  };
  static constexpr int kLevels = 8;
  static thread_local Buf bufs[kLevels];
  static thread_local int depth;
};

// f over [0, n) in chunks of at least grain items, taken by the threads from
// a shared counter: a thread slowed by other work on its core takes fewer
// chunks (at::parallel_for splits statically). Each item's result does not
// depend on the thread that computes it. Serial inside a parallel region.
void parallel_dynamic(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& f);

// Run every row of J, in parallel over groups of rows; `also`, if given,
// runs as one more item of the same parallel loop (the first), so a small
// job beside J needs no parallel region of its own.
void run_job(cx_axis_job& J, const std::function<void()>& also = nullptr);

// Transform along `axis` of `in` into `out` (same shape but along the
// axis). Fills the geometry of J from the tensors, picks the plan for the
// job's kind and n, and runs it. J.kind, n, in_len, out_len, inverse and
// scale must be set.
void run_axis(cx_axis_job J, const at::Tensor& in, const at::Tensor& out, int64_t axis);

// Run J whose geometry (pointers, storage types, strides, rows) is already
// filled: picks the plan for its kind and n. `also` as for run_job.
void run_rows(cx_axis_job J, const std::function<void()>& also = nullptr);

int storage_of(c10::ScalarType t);

}  // namespace complexext
