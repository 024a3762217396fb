// Large CPU outputs come from a small cache of recently freed blocks.
//
// A fresh multi-megabyte buffer costs one page fault per 4 KiB page on its
// first touch: for a 2.5 MiB STFT output, ~600 faults, measured at ~0.75 ms
// on a 2-core VM, as long as the transform itself. glibc hands back freed
// memory of that size to the kernel (mmap chunks) or keeps it only while no
// other allocation intervenes, so a loop that calls other ops between two
// calls of ours (a training step, a benchmark taking turns) faulted on every
// call. Blocks freed here are kept, up to max_bytes in all (least recently
// freed go first), and a later output of the same rounded size reuses one
// with no fault. Blocks of >= 2 MiB are 2 MiB aligned, and the whole
// 2 MiB pages inside the output advised as transparent huge pages, so even
// a fresh one takes a fault per 2 MiB there, and writing it takes two TLB
// entries rather than a thousand: the 4.1 MiB complex32 stft output at
// 512/128 went 1.75-1.88x -> 1.95-2.04x torch.stft (benchmarks/stft.py,
// three runs each, alternating) when it got them (it was under the old
// 4 MiB threshold).
//
// The tensors are ordinary resizable CPU tensors; only their allocator is
// ours. Controls: complexext.backends.output_cache (size, max_size, clear).
#include <ATen/EmptyTensor.h>
#include <ATen/ops/empty.h>
#include <c10/core/Allocator.h>
#include <c10/util/Exception.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "output_pool.h"

#if defined(__linux__) || defined(__APPLE__)
#include <pthread.h>
#include <sys/mman.h>
#define CX_POOL_MMAP 1
#endif

namespace complexext {
namespace {

constexpr size_t kMin = size_t(1) << 20;    // smaller outputs: at::empty
constexpr size_t kHuge = size_t(2) << 20;   // huge page size and alignment
constexpr size_t kSmallGrain = size_t(64) << 10;
constexpr size_t kMaxBlocks = 16;

size_t rounded(size_t n) {
  const size_t g = n >= kHuge ? kHuge : kSmallGrain;
  return (n + g - 1) / g * g;
}

#if CX_POOL_MMAP
struct Block {
  void* p;
  size_t size;
};

class OutputPool final : public c10::Allocator {
 public:
  c10::DataPtr allocate(size_t n) override {
    const size_t size = rounded(n < 1 ? 1 : n);
    void* p = take(size);
    if (!p) p = map(size, n);
    return {p, new Block{p, size}, &OutputPool::release, c10::Device(c10::DeviceType::CPU)};
  }
  void copy_data(void* dest, const void* src, std::size_t count) const override {
    if (count) std::memcpy(dest, src, count);
  }

  int64_t cached() {
    std::lock_guard<std::mutex> g(mu_);
    return (int64_t)bytes_;
  }
  int64_t max_bytes() {
    std::lock_guard<std::mutex> g(mu_);
    return (int64_t)max_;
  }
  void set_max_bytes(int64_t m) {
    std::vector<Block> drop;
    {
      std::lock_guard<std::mutex> g(mu_);
      max_ = (size_t)m;
      trim(drop);
    }
    unmap(drop);
  }
  // Tests only: holds the lock for ms milliseconds (a fork in that time
  // must still give a child whose cache works).
  void hold_lock(int64_t ms) {
    std::lock_guard<std::mutex> g(mu_);
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  }
  void clear() {
    std::vector<Block> drop;
    {
      std::lock_guard<std::mutex> g(mu_);
      drop.swap(free_);
      bytes_ = 0;
    }
    unmap(drop);
  }

 private:
  static void release(void* ctx) {
    Block* b = static_cast<Block*>(ctx);
    const Block blk = *b;
    delete b;
    pool().give(blk);
  }
  void* take(size_t size) {
    std::lock_guard<std::mutex> g(mu_);
    for (size_t i = free_.size(); i-- > 0;) {  // most recently freed first
      if (free_[i].size == size) {
        void* p = free_[i].p;
        free_.erase(free_.begin() + (std::ptrdiff_t)i);
        bytes_ -= size;
        return p;
      }
    }
    return nullptr;
  }
  void give(const Block& b) {
    std::vector<Block> drop;
    {
      std::lock_guard<std::mutex> g(mu_);
      if (b.size <= max_) {
        free_.push_back(b);
        bytes_ += b.size;
      } else {
        drop.push_back(b);
      }
      trim(drop);
    }
    unmap(drop);
  }
  // Oldest blocks out until the bounds hold (mu_ held).
  void trim(std::vector<Block>& drop) {
    size_t i = 0;
    while (i < free_.size() && (bytes_ > max_ || free_.size() - i > kMaxBlocks)) {
      bytes_ -= free_[i].size;
      drop.push_back(free_[i++]);
    }
    free_.erase(free_.begin(), free_.begin() + (std::ptrdiff_t)i);
  }
  // A fresh block of `size` bytes for an output of n <= size bytes.
  static void* map(size_t size, size_t n) {
    const bool huge = size >= kHuge;
    const size_t extra = huge ? kHuge : 0;
    void* raw = mmap(nullptr, size + extra, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                     -1, 0);
    TORCH_CHECK(raw != MAP_FAILED, "complexext: out of memory for an output of ", size, " bytes");
    if (!huge) return raw;
    // keep the 2 MiB aligned part, so that every 2 MiB of it can be a huge page
    const uintptr_t b = reinterpret_cast<uintptr_t>(raw);
    const uintptr_t a = (b + kHuge - 1) & ~(uintptr_t)(kHuge - 1);
    if (a > b) munmap(raw, a - b);
    if (b + extra > a) munmap(reinterpret_cast<void*>(a + size), b + extra - a);
#if defined(MADV_HUGEPAGE)
    // only the huge pages that lie wholly inside the n bytes asked for: the
    // tail stays in 4 KiB pages, so the memory touched is n, not size
    const size_t whole = n / kHuge * kHuge;
    if (whole) (void)madvise(reinterpret_cast<void*>(a), whole, MADV_HUGEPAGE);  // THP off: ignored
#endif
    return reinterpret_cast<void*>(a);
  }
  static void unmap(const std::vector<Block>& drop) {
    for (const Block& b : drop) munmap(b.p, b.size);
  }

 public:
  static OutputPool& pool() {
    // never destroyed: tensors freed at interpreter exit still find it
    static OutputPool* p = [] {
      OutputPool* q = new OutputPool();
      // A fork while another thread holds the lock (a DataLoader worker
      // forked while a Python thread frees an output) would leave the
      // child's copy locked forever: the lock is taken around fork.
      pthread_atfork([] { pool().mu_.lock(); }, [] { pool().mu_.unlock(); },
                     [] { pool().mu_.unlock(); });
      return q;
    }();
    return *p;
  }

 private:
  std::mutex mu_;
  std::vector<Block> free_;  // oldest first
  size_t bytes_ = 0;
  size_t max_ = size_t(64) << 20;
};
#else
// No mmap here: outputs come from at::empty and nothing is cached.
struct OutputPool {
  static OutputPool& pool() {
    static OutputPool p;
    return p;
  }
  int64_t cached() { return 0; }
  int64_t max_bytes() { return 0; }
  void set_max_bytes(int64_t) {}
  void hold_lock(int64_t) {}
  void clear() {}
};
#endif

}  // namespace

at::Tensor new_output(at::IntArrayRef shape, const at::TensorOptions& options) {
#if CX_POOL_MMAP
  if (options.device().is_cpu() && !options.pinned_memory()) {
    int64_t numel = 1;
    for (int64_t s : shape) numel *= s;
    const size_t bytes = (size_t)numel * c10::elementSize(options.dtype().toScalarType());
    if (bytes >= kMin) {
      return at::detail::empty_generic(shape, &OutputPool::pool(),
                                       c10::DispatchKeySet(c10::DispatchKey::CPU),
                                       options.dtype().toScalarType(), std::nullopt);
    }
  }
#endif
  return at::empty(shape, options);
}

int64_t output_cache_size() { return OutputPool::pool().cached(); }
int64_t output_cache_max_size() { return OutputPool::pool().max_bytes(); }

void output_cache_set_max_size(int64_t n) {
  TORCH_CHECK(n >= 0, "complexext.backends.output_cache.max_size must be >= 0, got ", n);
  OutputPool::pool().set_max_bytes(n);
}

void output_cache_hold_lock(int64_t ms) { OutputPool::pool().hold_lock(ms); }
void output_cache_clear() { OutputPool::pool().clear(); }

}  // namespace complexext
