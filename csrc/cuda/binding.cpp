// CUDA kernels of fft_c2c, fft_r2c, fft_c2r, stft and istft: the ops'
// code (ops_driver.h, stft_driver.h) over an executor that launches the
// kernels of fft_block.cu and ola.cu through the plain launchers of
// launch.h.
//
// Compiles against a CPU build of torch: only ATen and generic c10 headers,
// no c10/cuda or ATen/cuda. The current stream comes from the generic
// device guard interface (Stream::native_handle() is the cudaStream_t), the
// device is set with c10::DeviceGuard, buffers come from at::empty on the
// input's device (torch's caching allocator, stream-ordered, graph-safe).
//
// Tables: a plan's tables (twiddles, roots, chirps, filters) are built on
// the host in double, rounded once, and uploaded once per device, length
// and compute type, then kept in a cache that complexext.backends.plan_cache
// governs with the CPU plans (its size counts them; max_size bounds them,
// least recently used first; clear() drops them). An op holds the tables it
// uses until it returns, so an eviction by another thread frees them only
// then, to the caching allocator, marked with the op's stream. The upload is a
// copy from pinned memory on the current stream (no host sync) with an
// event recorded after it; a later call on another stream makes its stream
// wait for that event (on the GPU). No upload can happen while the stream
// is captured into a CUDA graph (the copy would run only at replay): a
// transform whose tables are missing then raises, and one run before
// capturing (the usual warm-up) uploads them. Under capture the event wait
// is left out; the warm-up's stream must be ordered before the capture
// (torch.cuda.graphs' warm-up pattern does this).
#include <ATen/ATen.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/Event.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/library.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

#include "../rtc/nvrtc.h"
#include "../rtc/reg_program.h"
#include "launch.h"
#include "ops_driver.h"
#include "stft_driver.h"

namespace complexext {
namespace {

struct Tables {
  std::shared_ptr<const void> plan;  // GpuPlan<float> or GpuPlan<double>
  at::Tensor device;                 // its table, on the device
  c10::StreamId stream;              // the stream that uploaded it
  std::shared_ptr<c10::Event> uploaded;
  uint64_t used = 0;                 // tick of its last use (LRU)
};
// (device index, fp64, n, real_even)
using TableKey = std::tuple<int, bool, int64_t, bool>;
// Never destroyed: destroying it at exit frees device memory and events
// after the CUDA runtime has shut down, which aborted every process that
// had run an FFT on a GPU (c10 throws from SetDevice in a destructor).
std::mutex& tables_mu = *new std::mutex;
std::map<TableKey, Tables>& tables_cache = *new std::map<TableKey, Tables>;
uint64_t tables_tick = 0;

// Evicts the least recently used tables until at most max_size are kept;
// tables_mu held.
void trim_tables(int64_t max_size) {
  while ((int64_t)tables_cache.size() > std::max<int64_t>(max_size, 0)) {
    auto oldest = tables_cache.begin();
    for (auto it = tables_cache.begin(); it != tables_cache.end(); ++it)
      if (it->second.used < oldest->second.used) oldest = it;
    tables_cache.erase(oldest);
  }
}

const bool tables_governed = [] {
  add_plan_cache_member(PlanCacheMember{
      [] {
        std::lock_guard<std::mutex> g(tables_mu);
        return (int64_t)tables_cache.size();
      },
      [](int64_t max_size) {
        std::lock_guard<std::mutex> g(tables_mu);
        trim_tables(max_size);
      },
      [] {
        std::lock_guard<std::mutex> g(tables_mu);
        tables_cache.clear();
      }});
  return true;
}();

// Register kernels of the lengths outside CX_REG_LENGTHS, compiled with
// NVRTC at first use (csrc/rtc/: from the same headers, cached on disk),
// one per (architecture, length, mode, compute and storage types). A
// kernel that cannot be compiled or loaded (no libnvrtc, an old driver) is
// remembered as missing, with one warning, and its length stays on the
// block kernels. COMPLEXEXT_CUDA_RTC=0 switches this off (read at each call,
// like COMPLEXEXT_CUDA_REG). Never destroyed, as tables_cache above.
struct RtcEntry {
  void* handle = nullptr;  // null: could not be built
  int rows_per_block = 0, threads = 0;
  long long smem = 0;
};
using RtcKey = std::tuple<int, int, int, int, int, int>;  // arch, n, mode, fp64, ti, to
std::mutex& rtc_mu = *new std::mutex;
std::map<RtcKey, RtcEntry>& rtc_cache = *new std::map<RtcKey, RtcEntry>;

struct CudaExec {
  const char* name;
  c10::Device device;
  c10::Stream current;
  void* stream;
  int64_t smem;
  // The device tables this op uses, held until it returns (an eviction by
  // another thread then cannot free them under its launches).
  std::vector<at::Tensor> held;

  CudaExec(const char* name_, const at::Tensor& x)
      : name(name_),
        device(x.device()),
        current(c10::impl::getDeviceGuardImpl(c10::DeviceType::CUDA)->getStream(x.device())) {
    TORCH_CHECK(device.is_cuda(), name, ": expected a CUDA tensor, got ", device);
    stream = current.native_handle();
    long long bytes = 0;
    check(cx_cuda_max_shared(device.index(), &bytes));
    smem = bytes;
  }
  void check(int code) const {
    TORCH_CHECK(code == 0, name, ": CUDA error on ", device, ": ", cx_cuda_error_string(code));
  }
  bool capturing() const {
    int c = 0;
    check(cx_cuda_stream_capturing(stream, &c));
    return c != 0;
  }
  template <class S>
  gpu::PlanRef<S> plan(int64_t n, bool real_even) {
    const bool dbl = std::is_same<S, double>::value;
    const TableKey key(device.index(), dbl, n, real_even);
    const bool capture = capturing();
    std::lock_guard<std::mutex> g(tables_mu);
    auto it = tables_cache.find(key);
    if (it == tables_cache.end()) {
      TORCH_CHECK(!capture, name, ": the FFT tables for length ", n, " (",
                  dbl ? "fp64" : "fp32", ") are not on ", device,
                  " yet and cannot be uploaded while the stream is captured into a CUDA graph; "
                  "run the same transform once before capturing (a warm-up run)");
      std::shared_ptr<gpu::GpuPlan<S>> P;
      try {
        P = gpu::make_plan<S>(n, real_even, smem);
      } catch (const c10::Error& e) {
        TORCH_CHECK(false, name, ": ", e.msg());  // the planner's message, named by the op
      }
      const auto real = dbl ? at::kDouble : at::kFloat;
      at::Tensor host = at::empty({(int64_t)P->table.size() * 2},
                                  at::TensorOptions(real).pinned_memory(true));
      if (!P->table.empty())
        std::memcpy(host.mutable_data_ptr(), P->table.data(), P->table.size() * sizeof(cx<S>));
      at::Tensor dev = at::empty({host.numel()}, at::TensorOptions(real).device(device));
      dev.copy_(host, /*non_blocking=*/true);  // ordered on the current stream
      auto ev = std::make_shared<c10::Event>(c10::DeviceType::CUDA);
      ev->record(current);
      it = tables_cache.emplace(key, Tables{P, dev, current.id(), ev}).first;
    } else if (!capture && it->second.stream != current.id()) {
      it->second.uploaded->block(current);  // a GPU-side wait, usually long satisfied
      // freed after an eviction, the memory must wait for this stream's work too
      it->second.device.record_stream(current);
    }
    it->second.used = ++tables_tick;
    auto P = std::static_pointer_cast<const gpu::GpuPlan<S>>(it->second.plan);
    at::Tensor dev = it->second.device;
    held.push_back(dev);
    trim_tables(plan_cache_max_size());  // max_size 0: the op's hold keeps them until it returns
    return gpu::PlanRef<S>{P, (const cx<S>*)dev.const_data_ptr()};
  }
  // The register kernels, unless COMPLEXEXT_CUDA_REG=0 (the block kernels
  // then take every length: benchmarks/gpu.py times both in one run, so it
  // is read at each call).
  static bool reg_enabled() {
    const char* e = std::getenv("COMPLEXEXT_CUDA_REG");
    return e == nullptr || std::strcmp(e, "0") != 0;
  }
  bool reg(const cx_reg_args<float>& A, int n, int mode, int ti, int to) {
    if (!reg_enabled()) return false;
    const int code = ti == 1 && to == 1 ? cx_cuda_reg_f32_float(&A, n, mode, stream)
                                        : cx_cuda_reg_f32_half(&A, n, mode, ti, to, stream);
    if (code == -1) return rtc_reg(&A, A.nrows, n, mode, 0, ti, to);
    check(code);
    return true;
  }
  bool reg(const cx_reg_args<double>& A, int n, int mode, int, int) {
    if (!reg_enabled()) return false;
    const int code = cx_cuda_reg_f64(&A, n, mode, stream);
    if (code == -1) return rtc_reg(&A, A.nrows, n, mode, 1, 2, 2);
    check(code);
    return true;
  }
  static bool rtc_enabled() {
    const char* e = std::getenv("COMPLEXEXT_CUDA_RTC");
    return e == nullptr || std::strcmp(e, "0") != 0;
  }
  // The kernel of (n, mode, types) compiled at first use, launched on the
  // rows of args; false (nothing launched) where there is none. While the
  // stream is captured into a graph a kernel is not compiled: the length
  // then takes the block kernels (warm up before capturing, as for tables).
  bool rtc_reg(const void* args, int64_t nrows, int n, int mode, int f64, int ti, int to) {
    if (!rtc_enabled() || !rtc::reg_program_possible(n, mode)) return false;
    int arch = 0;
    check(cx_cuda_device_arch(&arch));
    const RtcKey key(arch, n, mode, f64, ti, to);
    RtcEntry e;
    {
      std::lock_guard<std::mutex> g(rtc_mu);
      auto it = rtc_cache.find(key);
      if (it == rtc_cache.end()) {
        if (capturing()) return false;
        it = rtc_cache.emplace(key, rtc_build(n, mode, f64, ti, to, arch)).first;
        rtc::note_kernel(arch, n, mode, f64, ti, to, it->second.handle != nullptr);
      }
      e = it->second;
    }
    if (!e.handle) return false;
    check(cx_cuda_rtc_launch(e.handle, args, (nrows + e.rows_per_block - 1) / e.rows_per_block,
                             e.threads, e.smem, stream));
    return true;
  }
  RtcEntry rtc_build(int n, int mode, int f64, int ti, int to, int arch) const {
    RtcEntry e;
    const rtc::RegProgram P = rtc::reg_program(n, mode, f64, ti, to);
    rtc::Image im;
    std::string err;
    int code = 0;
    if (rtc::compile(P, arch, false, im, &err)) {
      code = cx_cuda_rtc_load(im.data.data(), im.lowered.c_str(), &e.handle);
      if (code != 0) err = std::string("loading it: ") + cx_cuda_error_string(code);
    }
    if (!e.handle) {
      TORCH_WARN(name, ": the register kernel of length ", n, " (mode ", mode,
                 ") could not be compiled at first use on ", device, "; the block kernels take "
                 "this length. ", err);
      return RtcEntry{};
    }
    e.rows_per_block = P.rows_per_block;
    e.threads = P.threads;
    e.smem = P.smem;
    return e;
  }
  void block(const cx_block_job<float>& J, int ti, int to) {
    check(cx_cuda_block_f32(&J, ti, to, stream));
  }
  void block(const cx_block_job<double>& J, int, int) { check(cx_cuda_block_f64(&J, stream)); }
  void rows(const cx_block_job<float>& J, int ph, int io, cx<float>* w, int64_t ldw) {
    check(cx_cuda_rows_f32(&J, ph, io, w, ldw, stream));
  }
  void rows(const cx_block_job<double>& J, int ph, int, cx<double>* w, int64_t ldw) {
    check(cx_cuda_rows_f64(&J, ph, w, ldw, stream));
  }
  void envelope(const float* w, int64_t n, int64_t hop, int64_t T, double* env, int64_t c) {
    check(cx_cuda_envelope_f32(w, n, hop, T, env, c, stream));
  }
  void envelope(const double* w, int64_t n, int64_t hop, int64_t T, double* env, int64_t c) {
    check(cx_cuda_envelope_f64(w, n, hop, T, env, c, stream));
  }
  void ola(const float* f, const double* env, void* y, int ot, int64_t B, int64_t T, int64_t n,
           int64_t hop, int64_t start, int64_t length, int comps) {
    check(cx_cuda_ola_f32(f, env, y, ot, B, T, n, hop, start, length, comps, stream));
  }
  void ola(const double* f, const double* env, void* y, int ot, int64_t B, int64_t T, int64_t n,
           int64_t hop, int64_t start, int64_t length, int comps) {
    check(cx_cuda_ola_f64(f, env, y, ot, B, T, n, hop, start, length, comps, stream));
  }
  void mirror(const cx_reg_args<float>& A, int n, int to) {
    check(cx_cuda_mirror_f32(&A, n, to, stream));
  }
  void mirror(const cx_reg_args<double>& A, int n, int) {
    check(cx_cuda_mirror_f64(&A, n, stream));
  }
};

bool fp64(const at::Tensor& x) { return gpu::is_double(x.scalar_type()); }

at::Tensor fft_c2c(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                   bool forward) {
  c10::DeviceGuard guard(self.device());
  CudaExec ex("fft_c2c", self);
  return fp64(self) ? gpu::fft_c2c<double>(ex, self, dim, normalization, forward)
                    : gpu::fft_c2c<float>(ex, self, dim, normalization, forward);
}

at::Tensor fft_r2c(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                   bool onesided) {
  c10::DeviceGuard guard(self.device());
  CudaExec ex("fft_r2c", self);
  return fp64(self) ? gpu::fft_r2c<double>(ex, self, dim, normalization, onesided)
                    : gpu::fft_r2c<float>(ex, self, dim, normalization, onesided);
}

at::Tensor fft_c2r(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                   int64_t last_dim_size) {
  c10::DeviceGuard guard(self.device());
  CudaExec ex("fft_c2r", self);
  return fp64(self) ? gpu::fft_c2r<double>(ex, self, dim, normalization, last_dim_size)
                    : gpu::fft_c2r<float>(ex, self, dim, normalization, last_dim_size);
}

at::Tensor stft(const at::Tensor& self, const at::Tensor& window, int64_t n_fft, int64_t hop,
                int64_t normalization, bool onesided, int64_t pad, c10::string_view pad_mode) {
  c10::DeviceGuard guard(self.device());
  CudaExec ex("stft", self);
  const int mode = stft_pad_mode(pad_mode);
  return fp64(self) ? gpu::stft<double>(ex, self, window, n_fft, hop, normalization, onesided,
                                        pad, mode)
                    : gpu::stft<float>(ex, self, window, n_fft, hop, normalization, onesided,
                                       pad, mode);
}

at::Tensor istft(const at::Tensor& self, const at::Tensor& window, int64_t n_fft, int64_t hop,
                 int64_t normalization, bool onesided, int64_t start, int64_t length) {
  c10::DeviceGuard guard(self.device());
  CudaExec ex("istft", self);
  return fp64(self) ? gpu::istft<double>(ex, self, window, n_fft, hop, normalization, onesided,
                                         start, length)
                    : gpu::istft<float>(ex, self, window, n_fft, hop, normalization, onesided,
                                        start, length);
}

}  // namespace

TORCH_LIBRARY_IMPL(complexext, CUDA, m) {
  m.impl("fft_c2c", &fft_c2c);
  m.impl("fft_r2c", &fft_r2c);
  m.impl("fft_c2r", &fft_c2r);
  m.impl("stft", &stft);
  m.impl("istft", &istft);
}

}  // namespace complexext
