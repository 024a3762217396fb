// Register FFT kernels with fp32 storage, part 1's lengths
// (fft_reg_launch.cuh; part 0 in fft_reg_c64.cu).
#include "fft_reg_launch.cuh"

int cx_reg_f32_float_float_1(const cx_reg_args<float>& A, int n, int mode, cudaStream_t s) {
  return reg_dispatch_part<float, float, float, 1>(A, n, mode, s);
}
