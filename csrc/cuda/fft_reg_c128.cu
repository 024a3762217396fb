// Register FFT kernels in fp64 (complex128).
#include "fft_reg_launch.cuh"

extern "C" int cx_cuda_reg_f64(const cx_reg_args<double>* A, int n, int mode, void* stream) {
  return reg_dispatch<double, double, double>(*A, n, mode, static_cast<cudaStream_t>(stream));
}
