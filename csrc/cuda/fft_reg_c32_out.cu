// Register FFT kernels reading fp32 and writing fp16 pairs (the last axis of
// a multi-axis complex32 transform).
#include "fft_reg_launch.cuh"

int cx_reg_f32_float_half(const cx_reg_args<float>& A, int n, int mode, cudaStream_t s) {
  return reg_dispatch<float, float, cx_half_t>(A, n, mode, s);
}
