// The register FFT kernels (csrc/core/cx_reg_fft.h) run on the CPU: each
// block's threads are real threads meeting at real barriers, and every
// global and shared access they make is counted per warp, as the hardware
// would serve it:
//
//   global: the 32-byte sectors a warp's access touches, against the fewest
//           its distinct bytes need from where the lowest of them lies
//           (ceil((lowest address % 32 + bytes) / 32): a row that starts
//           mid-sector, such as an stft frame of n/2 + 1 bins, cannot do
//           better); and the distinct sectors a launch loads and stores, the
//           DRAM traffic of an L2 that keeps what the launch touches (an stft
//           reads each sample once however much its frames overlap);
//   shared: bank wavefronts (32 banks of 4 bytes; 8- and 16-byte accesses
//           served by half and quarter warps), against one per group;
//   races:  a shared word written by one thread and read or written by
//           another between the same two barriers.
//
// The counters add up over launches until read (torch.ops.complexext.
// _gpu_emulation_counters, benchmarks/cuda_emulation.py).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "../core/cx_reg_fft.h"

namespace complexext {
namespace regemu {

struct Counters {
  double launches = 0, blocks = 0, barriers = 0;
  double gld_bytes = 0, gst_bytes = 0, g_accesses = 0, g_sectors = 0, g_min_sectors = 0;
  double s_accesses = 0, s_wavefronts = 0, s_ideal = 0;
  double races = 0, divergent = 0;
  double g_unique_ld_bytes = 0, g_unique_st_bytes = 0;  // distinct sectors x 32, per launch
};

Counters& counters();
void reset();

// Runs an emulated launch of reg_fft_kernel<n, mode, S, Ti, To> (ti, to: 0
// fp16, 1 fp32, 2 fp64 storage). False if no such kernel is compiled.
bool launch_f32(const cx_reg_args<float>& A, int n, int mode, int ti, int to);
bool launch_f64(const cx_reg_args<double>& A, int n, int mode);

// The launch itself: bt threads, blocks in turn, body(tid, block) each.
void run_pool(int bt, int blocks, const std::function<void(int, int)>& body);

// Under COMPLEXEXT_REG_EMU_FEW (the sanitized build, below), the kernels
// compiled: those that .ci/sanitize's tests launch, found by logging every
// launch of the whole list on the full table. With the same storage on both
// sides (fp16, fp32 or fp64: the tests' three dtypes), by length: 16 staged and
// in a column tile (a strided axis); 64 one row a thread and staged; 480 one
// row a thread (idle butterflies); 400 and 1000 one row a thread, columns, r2c,
// c2r and a complex signal's frames; 4096 the same but the frames, and
// Bluestein's (2039); 256 every mode. Mixed storage (fp16 in and fp32 out, or
// the reverse) only at 256: the two passes of 65536 and the frames of the stft
// and istft. A kernel left out here makes its launch return false, so the op
// takes the block kernels and a test that counts the register kernels' launches
// fails: add the kernel here when the list grows.
template <int N, int MODE, typename S, typename Ti, typename To>
constexpr bool cx_reg_emu_kept() {
#ifdef COMPLEXEXT_REG_EMU_FEW
  if (!cx_reg_same_t<Ti, To>::value) return N == 256;
  constexpr int m = MODE;
  switch (N) {
    case 16: return m == CX_REG_STAGED || m == CX_REG_COLUMNS;
    case 64: return m == CX_REG_DIRECT || m == CX_REG_STAGED;
    case 480: return m == CX_REG_DIRECT;
    case 400:
    case 1000:
      return m == CX_REG_DIRECT || m == CX_REG_COLUMNS || m == CX_REG_R2C ||
             m == CX_REG_C2R || m == CX_REG_FRAMES;
    case 4096:
      return m == CX_REG_DIRECT || m == CX_REG_COLUMNS || m == CX_REG_R2C ||
             m == CX_REG_C2R || m == CX_REG_BLUESTEIN;
    default: return true;
  }
#else
  return true;
#endif
}

// reg_fft_kernel<n, mode, S, Ti, To>'s blocks through run_pool; false when
// that kernel is not compiled (the CUDA files compile the same list; the
// sanitized build fewer, cx_reg_emu_kept).
template <int N, int MODE, typename S, typename Ti, typename To>
bool run_kernel(const cx_reg_args<S>& A) {
  if constexpr (!cx_reg_aot(N, MODE) || !cx_reg_types_ok<N, MODE, S, Ti, To>() ||
                !cx_reg_emu_kept<N, MODE, S, Ti, To>()) {
    return false;
  } else {
    constexpr int RPB = cx_reg_rpb(N, MODE);
    using Sh = cx_reg_shape<N, RPB, MODE>;
    std::vector<cx<S>> smem((size_t)RPB * Sh::PITCH);
    run_pool(Sh::BT, (A.nrows + RPB - 1) / RPB, [&](int tid, int b) {
      cx_reg_fft_thread<Sh, MODE, S, Ti, To>(A, tid, b, smem.data());
    });
    return true;
  }
}

// The lengths emulated: the whole table, or under COMPLEXEXT_REG_EMU_FEW (the
// sanitized build of .ci/sanitize, where compiling the whole table under ASan
// and UBSan takes most of the CI time) one length of each kind: a staged and a
// one-row-a-thread length, powers of two in one and two passes, and the
// composites 400 and 1000. Other lengths then take the block kernels.
//
// Beside the table, a few lengths that no CUDA file instantiates and the
// binding compiles at first use (NVRTC, from the same template): a staged
// row of radices 24 and 4 (96), an odd length (243 = 27 x 9), an odd one
// with idle butterflies (105 = 15 x 7 on 7 threads, staged) and three
// passes with idle ones (1920 = 8 x 15 x 16 on 128 threads). The emulation
// runs them as a GPU with NVRTC would; any other length outside the table
// takes the block kernels here.
#define CX_REG_RTC_SAMPLES(X) X(96) X(105) X(243) X(1920)
#ifdef COMPLEXEXT_REG_EMU_FEW
#define CX_REG_EMU_LENGTHS(X) X(16) X(64) X(256) X(400) X(1000) X(4096) X(480)
#else
#define CX_REG_EMU_LENGTHS(X) CX_REG_LENGTHS(X) CX_REG_RTC_SAMPLES(X)
#endif

template <typename S, typename Ti, typename To>
bool dispatch(const cx_reg_args<S>& A, int n, int mode) {
#define CX_REG_EMU_CASE(N)                                                       \
  if (n == N) {                                                                  \
    if (mode == CX_REG_DIRECT) return run_kernel<N, CX_REG_DIRECT, S, Ti, To>(A); \
    if (mode == CX_REG_STAGED) return run_kernel<N, CX_REG_STAGED, S, Ti, To>(A); \
    if (mode == CX_REG_R2C) return run_kernel<N, CX_REG_R2C, S, Ti, To>(A);       \
    if (mode == CX_REG_C2R) return run_kernel<N, CX_REG_C2R, S, Ti, To>(A);       \
    if (mode == CX_REG_COLS_TW) return run_kernel<N, CX_REG_COLS_TW, S, Ti, To>(A); \
    if (mode == CX_REG_FLAT_COLS) return run_kernel<N, CX_REG_FLAT_COLS, S, Ti, To>(A); \
    if (mode == CX_REG_BLUESTEIN) return run_kernel<N, CX_REG_BLUESTEIN, S, Ti, To>(A); \
    if (mode == CX_REG_FRAMES) return run_kernel<N, CX_REG_FRAMES, S, Ti, To>(A);  \
    return run_kernel<N, CX_REG_COLUMNS, S, Ti, To>(A);                          \
  }
  CX_REG_EMU_LENGTHS(CX_REG_EMU_CASE)
#undef CX_REG_EMU_CASE
  return false;
}

// One instantiation set per file (reg_emu_*.cpp: each pair of storage types
// on its own, about equal in size), so they build in parallel.
bool dispatch_f32_hh(const cx_reg_args<float>& A, int n, int mode);
bool dispatch_f32_hf(const cx_reg_args<float>& A, int n, int mode);
bool dispatch_f32_fh(const cx_reg_args<float>& A, int n, int mode);
bool dispatch_f32_ff(const cx_reg_args<float>& A, int n, int mode);

}  // namespace regemu
}  // namespace complexext
