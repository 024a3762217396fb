// Register FFT kernels with fp16 storage on both sides, the lengths of part 1
// (fft_reg_launch.cuh; the entry point and part 0 in fft_reg_c32.cu).
#include "fft_reg_launch.cuh"

int cx_reg_f32_half_half_1(const cx_reg_args<float>& A, int n, int mode, cudaStream_t s) {
  return reg_dispatch_part<float, cx_half_t, cx_half_t, 1>(A, n, mode, s);
}
