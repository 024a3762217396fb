// Register FFT kernels reading fp16 pairs and writing fp32 (the first axis
// of a multi-axis complex32 transform).
#include "fft_reg_launch.cuh"

int cx_reg_f32_half_float(const cx_reg_args<float>& A, int n, int mode, cudaStream_t s) {
  return reg_dispatch<float, cx_half_t, float>(A, n, mode, s);
}
