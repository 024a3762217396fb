// Register FFT kernels with fp32 storage (complex64, and the middle axes of
// a multi-axis complex32 transform).
#include "fft_reg_launch.cuh"

extern "C" int cx_cuda_reg_f32_float(const cx_reg_args<float>* A, int n, int mode,
                                     void* stream) {
  return reg_dispatch<float, float, float>(*A, n, mode, static_cast<cudaStream_t>(stream));
}
