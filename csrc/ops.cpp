// Every op schema of complexext, in one place. Kernels are registered per
// backend (cpu/, cuda/) and, for MPS and fake tensors, from Python. The
// Python module itself (PyInit__C) is py_entry.cpp.
#include <ATen/core/LegacyTypeDispatch.h>  // at::AutoDispatchBelowADInplaceOrView
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/library.h>
#include <torch/version.h>

#include "cpu/axis.h"
#include "cpu/isa.h"
#include "cpu/plan.h"

namespace complexext {

std::string built_with() {
  return std::string("torch=") + TORCH_VERSION +
#ifdef COMPLEXEXT_WITH_CUDA
         " cuda=1"
#else
         " cuda=0"
#endif
#ifdef COMPLEXEXT_REG_EMU_FEW
         // the register kernels' emulation at a few lengths only (the
         // sanitized build, the device check's; csrc/emulation/reg_emulation.h)
         " reg_emu=few"
#endif
      ;
}

TORCH_LIBRARY(complexext, m) {
  // Shaped like aten::_fft_c2c, _fft_r2c and _fft_c2r. normalization: 0 none,
  // 1 by 1/sqrt(N), 2 by 1/N, N the product of the signal sizes.
  m.def("fft_c2c(Tensor self, int[] dim, int normalization, bool forward) -> Tensor");
  m.def("fft_r2c(Tensor self, int[] dim, int normalization, bool onesided) -> Tensor");
  m.def("fft_c2r(Tensor self, int[] dim, int normalization, int last_dim_size) -> Tensor");
  // Their out= forms (CPU): out of the shape and dtype the op would
  // return, contiguous, sharing no memory with self; written directly. Ops
  // of their own, not overloads: an overload would change the messages of
  // the ops above for a bad argument ("failed to match any schema").
  m.def("fft_c2c_out(Tensor self, int[] dim, int normalization, bool forward, *, "
        "Tensor(a!) out) -> Tensor(a!)");
  m.def("fft_r2c_out(Tensor self, int[] dim, int normalization, bool onesided, *, "
        "Tensor(a!) out) -> Tensor(a!)");
  m.def("fft_c2r_out(Tensor self, int[] dim, int normalization, int last_dim_size, *, "
        "Tensor(a!) out) -> Tensor(a!)");

  // Shaped like aten::convolution; complex input, a weight of the same dtype
  // or of its real counterpart, bias optional (complex or real).
  m.def("convolution(Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding, "
        "int[] dilation, bool transposed, int[] output_padding, int groups) -> Tensor");
  // Its weight gradient: sum of conj(input) * grad_output at each tap.
  m.def("convolution_weight_grad(Tensor grad_output, Tensor input, SymInt[] weight_size, "
        "bool real_weight, int[] stride, int[] padding, int[] dilation, bool transposed, "
        "int[] output_padding, int groups) -> Tensor");

  // Fused STFT of a (batch, time) signal padded by `pad` samples at both
  // ends in pad_mode (constant, reflect, replicate, circular: torch's
  // F.pad values; the padded signal is never made): frames of n_fft every
  // hop_length samples, windowed on the load; out (batch, freq, frames).
  // normalization: 0 none, 1 by 1/sqrt(n_fft).
  m.def("stft(Tensor self, Tensor window, int n_fft, int hop_length, int normalization, "
        "bool onesided, int pad=0, str pad_mode=\"constant\") -> Tensor");
  // Fused ISTFT of a (batch, freq, frames) spectrum: inverse DFT of each
  // frame (c2r if onesided), windowed on the store, overlap-added and
  // divided by the window envelope; returns samples [start, start+length)
  // of the overlap-added signal. normalization: 1 by 1/sqrt(n_fft), 2 by
  // 1/n_fft.
  m.def("istft(Tensor self, Tensor window, int n_fft, int hop_length, int normalization, "
        "bool onesided, int start, int length) -> Tensor");

  // Batched complex matrix product (B, M, K) x (B, K, N) -> (B, M, N) of one
  // complex dtype: fp32 accumulation for complex32 (fp64 for complex128),
  // one rounding (cpu/matmul_ops.cpp, cuda/matmul_cuda.cpp).
  m.def("bmm(Tensor self, Tensor mat2) -> Tensor");

  // The GPU kernels' per-block FFT code run on the CPU, thread by thread
  // between barriers (tests only): unnormalised c2c along the last dim.
  m.def("_block_fft_emulated(Tensor self, int threads_per_row, bool forward, int seed) -> Tensor");
  // A cached plan's pass list and tables as tensors (csrc/cpu/plan_tables.cpp),
  // for kernels launched from Python (Metal).
  m.def("_plan_tables(int n, bool f64) -> (Tensor, Tensor, Tensor, Tensor, Tensor, int)");
  // A length's plan shape, from the planner's integer code (core/cx_factor.h),
  // for the Metal planner: [Bluestein's length m (0 when n has no prime factor
  // above 13), n1 of the four-step split n = n1 * n2, n's largest prime factor].
  m.def("_plan_shape(int n) -> int[]");
  // The CPU lane engine's cut of n (csrc/cpu/plan_convolution.cpp): q of a
  // split n = c * q, Rader's n - 1, and the two levels' R and m, each 0
  // where not taken (tests only; plan_tables.cpp).
  m.def("_lane_cut(int n) -> int[]");

  // Tests only (csrc/emulation/block_emulation.cpp): the CUDA ops' code run on the
  // CPU (the CUDA schemas with the emulation's shared memory per block,
  // threads per row and seed), its counters and the register kernels' plans.
  m.def("_gpu_emulated_fft_c2c(Tensor self, int[] dim, int normalization, bool forward, "
        "int smem, int threads, int seed) -> Tensor");
  m.def("_gpu_emulated_fft_r2c(Tensor self, int[] dim, int normalization, bool onesided, "
        "int smem, int threads, int seed) -> Tensor");
  m.def("_gpu_emulated_fft_c2r(Tensor self, int[] dim, int normalization, int last_dim_size, "
        "int smem, int threads, int seed) -> Tensor");
  m.def("_gpu_emulated_stft(Tensor self, Tensor window, int n_fft, int hop_length, "
        "int normalization, bool onesided, int pad, str pad_mode, int smem, int threads, "
        "int seed) -> Tensor");
  m.def("_gpu_emulated_istft(Tensor self, Tensor window, int n_fft, int hop_length, "
        "int normalization, bool onesided, int start, int length, int smem, int threads, "
        "int seed) -> Tensor");
  m.def("_gpu_emulation_counters(bool reset) -> float[]");
  m.def("_gpu_reg_plan(int n) -> int[]");
  m.def("_gpu_reg_ahead_of_time(int n) -> bool");
  m.def("_gpu_reg_split(int n) -> int[]");
  m.def("_gpu_reg_bluestein(int n) -> int");

  // Internal ops of the CUDA convolution (csrc/conv_cuda/conv_cuda.cpp): its
  // layouts on any device, the method named (tests, benchmarks/gpu.py); the
  // method the CUDA kernel would take (tests, benchmarks/conv_table.py).
  m.def("_conv_real_layout(Tensor input, Tensor weight, Tensor? bias, int[] stride, "
        "int[] padding, int[] dilation, bool transposed, int[] output_padding, int groups, "
        "str method) -> Tensor");
  m.def("_conv_weight_grad_real_layout(Tensor grad_output, Tensor input, int[] weight_size, "
        "bool real_weight, int[] stride, int[] padding, int[] dilation, bool transposed, "
        "int[] output_padding, int groups) -> Tensor");
  m.def("_conv_cuda_method(Tensor input, Tensor weight, Tensor? bias, int[] stride, "
        "int[] padding, int[] dilation, bool transposed, int[] output_padding, int groups, "
        "str? table=None) -> str");

  // NVRTC and the register kernels compiled at first use (csrc/rtc/rtc_ops.cpp):
  // where libnvrtc is looked for, the one that loads, a length's program and
  // what NVRTC makes of it (tests, benchmarks/cuda_rtc.py), the disk cache's
  // folder, the kernels this process compiled on a GPU.
  m.def("_rtc_set_library_candidates(str[] paths) -> ()");
  m.def("_rtc_nvrtc() -> (int, str, int[])");
  m.def("_rtc_program(int n, int mode, int scalar, int ti, int to) -> "
        "(str, str[], str[], str, str[], int[])");
  m.def("_rtc_compile(int n, int mode, int scalar, int ti, int to, int arch, bool verbose) -> "
        "(bool, str, str, bool, bool, str, Tensor)");
  m.def("_rtc_cache_dir() -> str");
  m.def("_cuda_rtc_kernels() -> int[]");

  // Plan cache controls and build facts (no tensors: one kernel for all).
  m.def("plan_cache_size() -> int", &plan_cache_size);
  m.def("plan_cache_max_size() -> int", &plan_cache_max_size);
  m.def("plan_cache_set_max_size(int n) -> ()", &plan_cache_set_max_size);
  m.def("plan_cache_clear() -> ()", &plan_cache_clear);
  m.def("output_cache_size() -> int", &output_cache_size);
  m.def("output_cache_max_size() -> int", &output_cache_max_size);
  m.def("output_cache_set_max_size(int n) -> ()", &output_cache_set_max_size);
  m.def("output_cache_clear() -> ()", &output_cache_clear);
  // Tests only: hold the output cache's or the plan cache's lock for ms
  // milliseconds.
  m.def("_output_cache_hold_lock(int ms) -> ()", &output_cache_hold_lock);
  m.def("_plan_cache_hold_lock(int ms) -> ()", &plan_cache_hold_lock);
  m.def("built_with() -> str", &built_with);
  m.def("cpu_isa() -> str", []() { return std::string(isa().name); });
}

namespace {

// The out= forms write `out` in place. As torch's own out= ops do (in their
// ADInplaceOrView kernels), they bump its version counter, so that a
// backward that saved `out` before it was overwritten raises ("modified by
// an inplace operation") instead of computing a wrong gradient. Inference
// tensors have no version counter (and cannot be saved for backward).
using FftFlagOut = at::Tensor&(const at::Tensor&, at::IntArrayRef, int64_t, bool, at::Tensor&);
using FftLenOut = at::Tensor&(const at::Tensor&, at::IntArrayRef, int64_t, int64_t, at::Tensor&);

template <class Fn>
c10::TypedOperatorHandle<Fn> handle(const char* name) {
  return c10::Dispatcher::singleton().findSchemaOrThrow(name, "").typed<Fn>();
}

template <class Fn, class Arg>
at::Tensor& out_then_bump(const c10::TypedOperatorHandle<Fn>& op, c10::DispatchKeySet ks,
                          const at::Tensor& self, at::IntArrayRef dim, int64_t normalization,
                          Arg arg, at::Tensor& out) {
  {
    at::AutoDispatchBelowADInplaceOrView below;
    op.redispatch(ks & c10::after_ADInplaceOrView_keyset, self, dim, normalization, arg, out);
  }
  if (!out.is_inference()) torch::autograd::impl::bump_version(out);
  return out;
}

at::Tensor& fft_c2c_out_bump(c10::DispatchKeySet ks, const at::Tensor& self, at::IntArrayRef dim,
                             int64_t normalization, bool forward, at::Tensor& out) {
  static const auto op = handle<FftFlagOut>("complexext::fft_c2c_out");
  return out_then_bump(op, ks, self, dim, normalization, forward, out);
}
at::Tensor& fft_r2c_out_bump(c10::DispatchKeySet ks, const at::Tensor& self, at::IntArrayRef dim,
                             int64_t normalization, bool onesided, at::Tensor& out) {
  static const auto op = handle<FftFlagOut>("complexext::fft_r2c_out");
  return out_then_bump(op, ks, self, dim, normalization, onesided, out);
}
at::Tensor& fft_c2r_out_bump(c10::DispatchKeySet ks, const at::Tensor& self, at::IntArrayRef dim,
                             int64_t normalization, int64_t last_dim_size, at::Tensor& out) {
  static const auto op = handle<FftLenOut>("complexext::fft_c2r_out");
  return out_then_bump(op, ks, self, dim, normalization, last_dim_size, out);
}

}  // namespace

TORCH_LIBRARY_IMPL(complexext, ADInplaceOrView, m) {
  m.impl("fft_c2c_out", TORCH_FN(fft_c2c_out_bump));
  m.impl("fft_r2c_out", TORCH_FN(fft_r2c_out_bump));
  m.impl("fft_c2r_out", TORCH_FN(fft_c2r_out_bump));
}

}  // namespace complexext
