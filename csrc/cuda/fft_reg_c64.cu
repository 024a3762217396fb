// Register FFT kernels with fp32 storage (complex64, and the middle axes of
// a multi-axis complex32 transform), part 0's lengths (fft_reg_launch.cuh;
// part 1 in fft_reg_c64_1.cu).
#include "fft_reg_launch.cuh"

int cx_reg_f32_float_float_1(const cx_reg_args<float>& A, int n, int mode, cudaStream_t s);

extern "C" int cx_cuda_reg_f32_float(const cx_reg_args<float>* A, int n, int mode,
                                     void* stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  return cx_reg_part(n) == 0 ? reg_dispatch_part<float, float, float, 0>(*A, n, mode, s)
                             : cx_reg_f32_float_float_1(*A, n, mode, s);
}
