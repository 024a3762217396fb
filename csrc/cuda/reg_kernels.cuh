// The register FFT kernels themselves (csrc/core/cx_reg_fft.h), device code
// only: the CUDA files instantiate them ahead of time for the lengths of
// CX_REG_LENGTHS (fft_reg_launch.cuh), and the binding compiles them with
// NVRTC for other lengths at first use (csrc/rtc/, csrc/cuda/rtc_launch.cu).
// Both take this file and the core headers as they are, so a kernel
// compiled at first use is the kernel nvcc builds: setup.py embeds copies
// of them in the binary for NVRTC (csrc/rtc/reg_program.cpp).
//
// Includes nothing but the core, whose only outside header, cuda_fp16.h, it
// leaves out under NVRTC (cx_half.h). In a CUDA file the kernels sit in an
// unnamed namespace (one copy per file); NVRTC's programs have them at
// global scope, so that their names, and so their images, come out the
// same at every compile (an unnamed namespace's name there is a fresh one).
#pragma once
#include "../core/cx_reg_fft.h"

#if !defined(__CUDACC_RTC__)
namespace {
#endif

// N and EPT lead the template arguments: benchmarks/cuda_static.py reads
// them from the kernel's name to report instructions per element.
template <int N, int EPT, int RPB, int MODE, typename S, typename Ti, typename To>
__global__ void __launch_bounds__(RPB * cx_rplan_of(N, MODE).t)
    reg_fft_kernel(const cx_reg_args<S> A) {
  using Sh = cx_reg_shape<N, RPB, MODE>;
  static_assert(Sh::E == EPT, "reg_fft_kernel: EPT does not match the plan");
  extern __shared__ __align__(16) unsigned char smem_raw[];
  cx_reg_fft_thread<Sh, MODE, S, Ti, To>(A, (int)threadIdx.x, (int)blockIdx.x,
                                         reinterpret_cast<cx<S>*>(smem_raw));
}

// The real transforms of 2N samples (MODE CX_REG_R2C or CX_REG_C2R) on the
// complex kernel of length N; a name of their own, since their elements are
// not the c2c kernels' (benchmarks/cuda_static.py).
template <int N, int EPT, int RPB, int MODE, typename S, typename Ti, typename To>
__global__ void __launch_bounds__(RPB * cx_rplan_of(N, MODE).t)
    reg_real_kernel(const cx_reg_args<S> A) {
  using Sh = cx_reg_shape<N, RPB, MODE>;
  static_assert(Sh::E == EPT, "reg_real_kernel: EPT does not match the plan");
  extern __shared__ __align__(16) unsigned char smem_raw[];
  cx_reg_fft_thread<Sh, MODE, S, Ti, To>(A, (int)threadIdx.x, (int)blockIdx.x,
                                         reinterpret_cast<cx<S>*>(smem_raw));
}

// Bluestein's kernels (MODE CX_REG_BLUESTEIN): a name of their own, for
// their launch bounds. They run the passes in a loop (two FFTs, one copy of
// the code), and ptxas then takes registers up to the bound's limit (146 at
// N = 1024: 12 warps an SM); asking for 16 warps holds them to 128. (The
// other kernels keep the plain bound: a minimum of one block lets ptxas take
// more registers than its own heuristic does, 8-12 warps an SM for several
// column tiles.)
template <int N, int EPT, int RPB, int MODE, typename S, typename Ti, typename To>
__global__ void __launch_bounds__(RPB * cx_rplan_of(N, MODE).t,
                                  (512 + RPB * cx_rplan_of(N, MODE).t - 1) /
                                      (RPB * cx_rplan_of(N, MODE).t))
    reg_blue_kernel(const cx_reg_args<S> A) {
  using Sh = cx_reg_shape<N, RPB, MODE>;
  static_assert(Sh::E == EPT, "reg_blue_kernel: EPT does not match the plan");
  extern __shared__ __align__(16) unsigned char smem_raw[];
  cx_reg_fft_thread<Sh, MODE, S, Ti, To>(A, (int)threadIdx.x, (int)blockIdx.x,
                                         reinterpret_cast<cx<S>*>(smem_raw));
}

#if !defined(__CUDACC_RTC__)
}  // namespace
#endif
