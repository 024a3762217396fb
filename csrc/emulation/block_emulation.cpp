// The per-block code of the GPU FFT kernels (csrc/core/cx_block.h), run on
// the CPU: every thread of a block in turn, phase by phase, the barrier
// being the end of a phase. Threads run in a shuffled order in each phase,
// so a kernel that read what another thread writes in the same phase
// (a missing barrier) would give seed-dependent, wrong results.
#include <ATen/ATen.h>
#include <torch/library.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>

#include "../core/cx_block.h"
#include "../cuda/ops_driver.h"
#include "../cuda/stft_driver.h"
#include "../cpu/plan.h"
#include "reg_emulation.h"

namespace complexext {
namespace {

template <class S, class T>
void emulate_rows(const at::Tensor& x, at::Tensor& y, const Plan<S>& P, int tpr, bool forward,
                  uint64_t seed) {
  const cx_i64 n = x.size(1);
  const cx_plan_desc<S>& d = P.d;
  const cx_plan_desc<S>& inner = d.bluestein ? *d.inner : d;
  const cx_i64 len = d.bluestein ? d.m : n;
  std::vector<cx<S>> a(len), b(len);
  std::mt19937_64 rng(seed);
  std::vector<int> order(tpr);
  std::iota(order.begin(), order.end(), 0);
  const int conj = forward ? 0 : 1;
  auto phase = [&](auto&& body) {
    std::shuffle(order.begin(), order.end(), rng);
    for (int t : order) body(t);
  };
  auto passes = [&](cx<S>*& cur, cx<S>*& other) {
    for (int i = 0; i < inner.npasses; ++i) {
      phase([&](int t) {
        cx_block_pass<S>(t, tpr, len, inner.passes[i], inner.tw, inner.roots, cur, other);
      });
      std::swap(cur, other);
    }
  };
  for (int64_t row = 0; row < x.size(0); ++row) {
    const T* in = (const T*)x.const_data_ptr() + 2 * row * n;
    T* out = (T*)y.mutable_data_ptr() + 2 * row * n;
    cx<S>* cur = a.data();
    cx<S>* other = b.data();
    if (!d.bluestein) {
      phase([&](int t) { cx_block_load<S, T>(t, tpr, n, in, 1, conj, cur); });
      passes(cur, other);
      phase([&](int t) { cx_block_store<S, T>(t, tpr, n, cur, out, 1, conj, (S)1); });
      continue;
    }
    phase([&](int t) { cx_block_load_chirp<S, T>(t, tpr, n, len, in, 1, conj, d.chirp, cur); });
    passes(cur, other);
    phase([&](int t) { cx_block_pointwise<S>(t, tpr, len, d.filter, cur); });
    passes(cur, other);
    phase([&](int t) { cx_block_store_chirp<S, T>(t, tpr, n, cur, out, 1, conj, d.chirp, (S)1); });
  }
}

at::Tensor block_fft_emulated(const at::Tensor& self, int64_t threads_per_row, bool forward,
                              int64_t seed) {
  TORCH_CHECK(self.dim() == 2 && self.is_complex(),
              "_block_fft_emulated: expected a complex (rows, n) tensor");
  TORCH_CHECK(threads_per_row >= 1, "_block_fft_emulated: threads_per_row must be >= 1");
  const at::Tensor x = self.contiguous();
  at::Tensor y = at::empty_like(x);
  const int64_t n = x.size(1);
  const int tpr = (int)threads_per_row;
  if (x.scalar_type() == at::kComplexDouble) {
    auto P = get_plan<double>(n);
    TORCH_CHECK(!P->large, "_block_fft_emulated: n = ", n, " takes more than one block");
    emulate_rows<double, double>(x, y, *P, tpr, forward, (uint64_t)seed);
  } else {
    auto P = get_plan<float>(n);
    TORCH_CHECK(!P->large, "_block_fft_emulated: n = ", n, " takes more than one block");
    if (x.scalar_type() == at::kComplexHalf)
      emulate_rows<float, cx_half_t>(x, y, *P, tpr, forward, (uint64_t)seed);
    else
      emulate_rows<float, float>(x, y, *P, tpr, forward, (uint64_t)seed);
  }
  return y;
}

// ---- the CUDA ops' driver (csrc/cuda/*_driver.h) over emulated launches ----
// Each launch runs with threads in a shuffled order per phase: the block
// kernel's blocks in its launch shape (cx_block_shape, cx_block_thread_phase,
// a barrier after each phase) and the multi-pass row phases
// (cx_job_row_phase, one launch each, `threads` threads per row).
// Tables are the host copies; smem is the shared memory a block may use, so
// small values force the four-step and Bluestein paths at small lengths.
struct EmuExec {
  int64_t smem;
  int tpr;
  std::mt19937_64 rng;
  std::vector<int> order;

  EmuExec(int64_t smem_, int tpr_, uint64_t seed) : smem(smem_), tpr(tpr_), rng(seed), order(tpr_) {
    std::iota(order.begin(), order.end(), 0);
  }
  template <class F>
  void phase(F&& body) {
    std::shuffle(order.begin(), order.end(), rng);
    for (int t : order) body(t);
  }
  template <class S>
  gpu::PlanRef<S> plan(int64_t n, bool real_even) {
    std::shared_ptr<const gpu::GpuPlan<S>> P = gpu::make_plan<S>(n, real_even, smem);
    return gpu::PlanRef<S>{P, P->table.data()};
  }
  // The register kernels, emulated thread by thread with their accesses
  // counted (reg_emulation.h); COMPLEXEXT_CUDA_REG=0 leaves them out, as
  // on the GPU.
  static bool reg_enabled() {
    const char* e = std::getenv("COMPLEXEXT_CUDA_REG");
    return e == nullptr || std::strcmp(e, "0") != 0;
  }
  bool reg(const cx_reg_args<float>& A, int n, int mode, int ti, int to) {
    return reg_enabled() && regemu::launch_f32(A, n, mode, ti, to);
  }
  bool reg(const cx_reg_args<double>& A, int n, int mode, int, int) {
    return reg_enabled() && regemu::launch_f64(A, n, mode);
  }
  template <class T>
  struct Tag {
    using type = T;
  };
  // f(Tag<Ti>, Tag<To>) with the storage types of codes ti, to.
  template <class S, class F>
  static void dispatch(int ti, int to, F&& f) {
    if (std::is_same<S, double>::value) {
      TORCH_CHECK(ti == 2 && to == 2, "emulation: fp64 compute needs fp64 storage");
      f(Tag<double>(), Tag<double>());
    } else if (ti == 0 && to == 0) {
      f(Tag<cx_half_t>(), Tag<cx_half_t>());
    } else if (ti == 0) {
      f(Tag<cx_half_t>(), Tag<float>());
    } else if (to == 0) {
      f(Tag<float>(), Tag<cx_half_t>());
    } else {
      f(Tag<float>(), Tag<float>());
    }
  }
  // The block kernel's launch: blocks of tpr * rows_per_block threads (the
  // kernel's own shape, tpr here its thread limit per block), every thread
  // of a block shuffled in each phase, one shared array per block.
  template <class S>
  void block(const cx_block_job<S>& J, int ti, int to) {
    const int64_t buflen = cx_block_buflen(J);
    TORCH_CHECK(gpu::block_bytes(J.bluestein ? J.m : J.len, sizeof(cx<S>)) <= smem,
                "emulation: a block job exceeds its shared memory");
    int tpr_, rpb;
    cx_block_shape(J.bluestein ? J.m : J.len, J.nrows, 2 * buflen * (int64_t)sizeof(cx<S>), tpr,
                   &tpr_, &rpb);
    std::vector<cx<S>> shared(2 * buflen * rpb);
    std::vector<int> threads(tpr_ * rpb);
    std::iota(threads.begin(), threads.end(), 0);
    dispatch<S>(ti, to, [&](auto ti_, auto to_) {
      using Ti = typename decltype(ti_)::type;
      using To = typename decltype(to_)::type;
      for (int64_t b = 0; b * rpb < J.nrows; ++b)
        for (int p = 0; p < cx_block_nphases(J); ++p) {
          std::shuffle(threads.begin(), threads.end(), rng);
          for (int th : threads)
            cx_block_thread_phase<S, Ti, To>(J, p, th, tpr_, rpb, b, shared.data());
        }
    });
  }
  template <class S>
  void rows(const cx_block_job<S>& J, int ph, int io, cx<S>* work, int64_t ldw) {
    dispatch<S>(io, io, [&](auto ti_, auto to_) {
      using Ti = typename decltype(ti_)::type;
      using To = typename decltype(to_)::type;
      for (int64_t row = 0; row < J.nrows; ++row)
        phase([&](int t) { cx_job_row_phase<S, Ti, To>(J, ph, t, tpr, row, work + row * ldw); });
    });
  }
  template <class S>
  void envelope(const S* w, int64_t n_fft, int64_t hop, int64_t T, double* env, int64_t count) {
    for (int64_t s = 0; s < count; ++s) env[s] = cx_envelope_at<S>(s, w, n_fft, hop, T);
  }
  template <class S>
  void ola(const S* frames, const double* env, void* y, int out_type, int64_t B, int64_t T,
           int64_t n_fft, int64_t hop, int64_t start, int64_t length, int comps) {
    const int64_t count = B * length * comps;
    dispatch<S>(std::is_same<S, double>::value ? 2 : 1, out_type, [&](auto, auto to_) {
      using To = typename decltype(to_)::type;
      for (int64_t e = 0; e < count; ++e)
        cx_ola_element<S, To>(e, frames, env, (To*)y, T, n_fft, hop, start, length, comps);
    });
  }
  // The two-sided r2c's upper half (cx_mirror.h), element by element in a
  // shuffled order, as the GPU's threads would run it.
  template <class S>
  void mirror(const cx_reg_args<S>& A, int n, int to) {
    const int64_t count = cx_mirror_count(A.nrows, n);
    if (count <= 0) return;
    const cx_fastdiv m = cx_fastdiv_make((cx_u32)(n / 2 - 1));
    std::vector<cx_u32> es((size_t)count);
    std::iota(es.begin(), es.end(), 0u);
    std::shuffle(es.begin(), es.end(), rng);
    dispatch<S>(std::is_same<S, double>::value ? 2 : 1, to, [&](auto, auto to_) {
      using To = typename decltype(to_)::type;
      for (cx_u32 e : es) cx_mirror_element<S, To>(A, n, m, e);
    });
  }
  bool capturing() const { return false; }
};

bool wants_double(const at::Tensor& x) {
  return x.scalar_type() == at::kDouble || x.scalar_type() == at::kComplexDouble;
}

at::Tensor emu_c2c(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                   bool forward, int64_t smem, int64_t threads, int64_t seed) {
  EmuExec ex(smem, (int)threads, (uint64_t)seed);
  return wants_double(self) ? gpu::fft_c2c<double>(ex, self, dim, normalization, forward)
                            : gpu::fft_c2c<float>(ex, self, dim, normalization, forward);
}
at::Tensor emu_r2c(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                   bool onesided, int64_t smem, int64_t threads, int64_t seed) {
  EmuExec ex(smem, (int)threads, (uint64_t)seed);
  return wants_double(self) ? gpu::fft_r2c<double>(ex, self, dim, normalization, onesided)
                            : gpu::fft_r2c<float>(ex, self, dim, normalization, onesided);
}
at::Tensor emu_c2r(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                   int64_t last_dim_size, int64_t smem, int64_t threads, int64_t seed) {
  EmuExec ex(smem, (int)threads, (uint64_t)seed);
  return wants_double(self) ? gpu::fft_c2r<double>(ex, self, dim, normalization, last_dim_size)
                            : gpu::fft_c2r<float>(ex, self, dim, normalization, last_dim_size);
}
at::Tensor emu_stft(const at::Tensor& self, const at::Tensor& window, int64_t n_fft, int64_t hop,
                    int64_t normalization, bool onesided, int64_t pad, c10::string_view pad_mode,
                    int64_t smem, int64_t threads, int64_t seed) {
  EmuExec ex(smem, (int)threads, (uint64_t)seed);
  const int mode = stft_pad_mode(pad_mode);
  return wants_double(self)
             ? gpu::stft<double>(ex, self, window, n_fft, hop, normalization, onesided, pad, mode)
             : gpu::stft<float>(ex, self, window, n_fft, hop, normalization, onesided, pad, mode);
}
at::Tensor emu_istft(const at::Tensor& self, const at::Tensor& window, int64_t n_fft, int64_t hop,
                     int64_t normalization, bool onesided, int64_t start, int64_t length,
                     int64_t smem, int64_t threads, int64_t seed) {
  EmuExec ex(smem, (int)threads, (uint64_t)seed);
  return wants_double(self) ? gpu::istft<double>(ex, self, window, n_fft, hop, normalization,
                                                 onesided, start, length)
                            : gpu::istft<float>(ex, self, window, n_fft, hop, normalization,
                                                onesided, start, length);
}

// The emulation's access counters since the last reset (reg_emulation.h),
// in the order of regemu::Counters; reset=True zeroes them after reading.
std::vector<double> emu_counters(bool reset) {
  const regemu::Counters c = regemu::counters();
  if (reset) regemu::reset();
  return {c.launches, c.blocks, c.barriers, c.gld_bytes, c.gst_bytes, c.g_accesses,
          c.g_sectors, c.g_min_sectors, c.s_accesses, c.s_wavefronts, c.s_ideal, c.races,
          c.divergent, c.g_unique_ld_bytes, c.g_unique_st_bytes};
}

// The register kernel's plan of n (cx_reg_fft.h), or [] when n has none:
// [values a thread holds (the most of any pass), threads per row, rows per
// block in the direct, staged and column modes (0: no kernel in that mode),
// radices..., butterflies a thread in each pass...].
std::vector<int64_t> reg_plan(int64_t n) {
  const cx_rplan p = cx_reg_plan_host(n < 0 || n > 16384 ? 0 : (int)n);
  if (p.np == 0) return {};
  std::vector<int64_t> out = {p.e, p.t};
  for (int mode : {CX_REG_DIRECT, CX_REG_STAGED, CX_REG_COLUMNS})
    out.push_back(cx_reg_mode_ok_of(p, mode) ? cx_reg_rpb_of(p, mode) : 0);
  for (int i = 0; i < p.np; ++i) out.push_back(p.r[i]);
  for (int i = 0; i < p.np; ++i) out.push_back(p.b[i]);
  return out;
}

// Bluestein's register length for a c2c of n (gpu_plan.h: a length without
// a register plan, up to 4096), or 0 where the register kernels leave it.
int64_t reg_bluestein(int64_t n) {
  if (n < 2 || n > 4096 || cx_reg_plan_host((int)n).np != 0) return 0;
  return cx_reg_blue_len((int)n);
}

// The two register passes of a length above 16384: [n1, n2], or [] where
// the two-pass kernels do not take it (cx_reg_split_host).
std::vector<int64_t> reg_split(int64_t n) {
  const cx_reg_split sp = cx_reg_split_host(n);
  if (sp.n1 == 0) return {};
  return {sp.n1, sp.n2};
}

// Whether n's register kernel is compiled ahead of time (CX_REG_LENGTHS);
// other lengths with a plan are compiled at first use on a GPU.
bool reg_ahead_of_time(int64_t n) { return n >= 1 && n <= 16384 && cx_reg_has((int)n); }

}  // namespace

// The schemas of the test-only ops below are in ops.cpp.
TORCH_LIBRARY_IMPL(complexext, CompositeExplicitAutograd, m) {
  m.impl("_gpu_emulation_counters", &emu_counters);
  m.impl("_gpu_reg_plan", &reg_plan);
  m.impl("_gpu_reg_ahead_of_time", &reg_ahead_of_time);
  m.impl("_gpu_reg_split", &reg_split);
  m.impl("_gpu_reg_bluestein", &reg_bluestein);
}

TORCH_LIBRARY_IMPL(complexext, CPU, m) {
  m.impl("_block_fft_emulated", &block_fft_emulated);
  m.impl("_gpu_emulated_fft_c2c", &emu_c2c);
  m.impl("_gpu_emulated_fft_r2c", &emu_r2c);
  m.impl("_gpu_emulated_fft_c2r", &emu_c2r);
  m.impl("_gpu_emulated_stft", &emu_stft);
  m.impl("_gpu_emulated_istft", &emu_istft);
}

}  // namespace complexext
