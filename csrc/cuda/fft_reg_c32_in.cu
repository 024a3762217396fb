// Register FFT kernels reading fp16 pairs and writing fp32 (the first axis
// of a multi-axis complex32 transform), part 0's lengths (fft_reg_launch.cuh;
// part 1 in fft_reg_c32_in_1.cu).
#include "fft_reg_launch.cuh"

int cx_reg_f32_half_float_1(const cx_reg_args<float>& A, int n, int mode, cudaStream_t s);

int cx_reg_f32_half_float(const cx_reg_args<float>& A, int n, int mode, cudaStream_t s) {
  return cx_reg_part(n) == 0 ? reg_dispatch_part<float, cx_half_t, float, 0>(A, n, mode, s)
                             : cx_reg_f32_half_float_1(A, n, mode, s);
}
