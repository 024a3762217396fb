// Launchers of the register-resident FFT kernels (csrc/core/cx_reg_fft.h)
// for one pair of storage types, included by fft_reg_*.cu (two files per
// pair, each with half of the lengths, cx_reg_part: their instantiations,
// about 100 kernels and three minutes of ptxas a pair, compile in
// parallel, so a build on many cores waits for the slowest half). Every length of
// CX_REG_LENGTHS in each of the three access modes of the c2c kernels, and
// as the half length of the real transforms (R2C, C2R); the lengths of
// CX_REG_SPLIT_LENGTHS in the two passes of the transforms above 16384
// (CX_REG_COLS_TW, CX_REG_FLAT_COLS). cx_reg_aot says which.
#pragma once
#include <cuda_runtime.h>

#include "launch.h"
#include "reg_kernels.cuh"
#include "smem_limit.cuh"

namespace {

template <int N, int EPT, int RPB, int MODE, typename S, typename Ti, typename To>
auto reg_kernel_of() {
  if constexpr (cx_reg_is_real(MODE)) {
    return reg_real_kernel<N, EPT, RPB, MODE, S, Ti, To>;
  } else if constexpr (MODE == CX_REG_BLUESTEIN) {
    return reg_blue_kernel<N, EPT, RPB, MODE, S, Ti, To>;
  } else {
    return reg_fft_kernel<N, EPT, RPB, MODE, S, Ti, To>;
  }
}

template <int N, int MODE, typename S, typename Ti, typename To>
int reg_launch(const cx_reg_args<S>& A, cudaStream_t stream) {
  if constexpr (!cx_reg_aot(N, MODE) || !cx_reg_types_ok<N, MODE, S, Ti, To>()) {
    return -1;  // not compiled ahead of time: the binding compiles it at first use
  } else {
  constexpr int E = cx_rplan_of(N, MODE).e, RPB = cx_reg_rpb(N, MODE);
  using Sh = cx_reg_shape<N, RPB, MODE>;
  auto kernel = reg_kernel_of<N, E, RPB, MODE, S, Ti, To>();
  const size_t smem = (size_t)RPB * Sh::PITCH * sizeof(cx<S>);
  if (smem > 48 * 1024) {
    static int raised[kCxSmemMaxDevices];
    const int e = cx_raise_smem_limit(kernel, (int)smem, raised);
    if (e != 0) return e;
  }
  const unsigned blocks = (unsigned)((A.nrows + RPB - 1) / RPB);
  kernel<<<blocks, RPB * Sh::T, smem, stream>>>(A);
  return (int)cudaGetLastError();
  }
}

// Which of a pair's two files compiles length n: alternate entries of
// CX_REG_LENGTHS (small and large lengths on both sides).
constexpr int cx_reg_part(int n) {
  int i = 0, at = -1;
#define CX_REG_INDEX(N) \
  if (n == N) at = i;   \
  ++i;
  CX_REG_LENGTHS(CX_REG_INDEX)
#undef CX_REG_INDEX
  return at < 0 ? 0 : at % 2;
}

// The launch of kernel (n, mode) for the lengths of part PART; -1 when it
// is not compiled here (another part's length, or not ahead of time).
template <typename S, typename Ti, typename To, int PART>
int reg_dispatch_part(const cx_reg_args<S>& A, int n, int mode, cudaStream_t stream) {
  if (A.nrows <= 0) return 0;
#define CX_REG_CASE(N)                                                                \
  if (n == N) {                                                                       \
    if constexpr (cx_reg_part(N) != PART) return -1; else {                           \
    if (mode == CX_REG_DIRECT) return reg_launch<N, CX_REG_DIRECT, S, Ti, To>(A, stream);  \
    if (mode == CX_REG_STAGED) return reg_launch<N, CX_REG_STAGED, S, Ti, To>(A, stream);  \
    if (mode == CX_REG_R2C) return reg_launch<N, CX_REG_R2C, S, Ti, To>(A, stream);        \
    if (mode == CX_REG_C2R) return reg_launch<N, CX_REG_C2R, S, Ti, To>(A, stream);        \
    if (mode == CX_REG_COLS_TW) return reg_launch<N, CX_REG_COLS_TW, S, Ti, To>(A, stream);  \
    if (mode == CX_REG_FLAT_COLS)                                                       \
      return reg_launch<N, CX_REG_FLAT_COLS, S, Ti, To>(A, stream);                     \
    if (mode == CX_REG_BLUESTEIN)                                                       \
      return reg_launch<N, CX_REG_BLUESTEIN, S, Ti, To>(A, stream);                     \
    if (mode == CX_REG_FRAMES) return reg_launch<N, CX_REG_FRAMES, S, Ti, To>(A, stream);  \
    return reg_launch<N, CX_REG_COLUMNS, S, Ti, To>(A, stream);                       \
  } }
  CX_REG_LENGTHS(CX_REG_CASE)
#undef CX_REG_CASE
  return -1;  // no kernel for this length: the binding does not ask for one
}

}  // namespace
