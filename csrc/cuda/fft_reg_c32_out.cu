// Register FFT kernels reading fp32 and writing fp16 pairs (the last axis of
// a multi-axis complex32 transform), part 0's lengths (fft_reg_launch.cuh;
// part 1 in fft_reg_c32_out_1.cu).
#include "fft_reg_launch.cuh"

int cx_reg_f32_float_half_1(const cx_reg_args<float>& A, int n, int mode, cudaStream_t s);

int cx_reg_f32_float_half(const cx_reg_args<float>& A, int n, int mode, cudaStream_t s) {
  return cx_reg_part(n) == 0 ? reg_dispatch_part<float, float, cx_half_t, 0>(A, n, mode, s)
                             : cx_reg_f32_float_half_1(A, n, mode, s);
}
