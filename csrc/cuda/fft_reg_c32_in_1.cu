// Register FFT kernels reading fp16 pairs and writing fp32, part 1's lengths
// (fft_reg_launch.cuh; part 0 in fft_reg_c32_in.cu).
#include "fft_reg_launch.cuh"

int cx_reg_f32_half_float_1(const cx_reg_args<float>& A, int n, int mode, cudaStream_t s) {
  return reg_dispatch_part<float, cx_half_t, float, 1>(A, n, mode, s);
}
