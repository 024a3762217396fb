// Register FFT kernels reading fp32 and writing fp16 pairs, part 1's lengths
// (fft_reg_launch.cuh; part 0 in fft_reg_c32_out.cu).
#include "fft_reg_launch.cuh"

int cx_reg_f32_float_half_1(const cx_reg_args<float>& A, int n, int mode, cudaStream_t s) {
  return reg_dispatch_part<float, float, cx_half_t, 1>(A, n, mode, s);
}
