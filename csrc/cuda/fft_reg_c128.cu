// Register FFT kernels in fp64 (complex128), part 0's lengths
// (fft_reg_launch.cuh; part 1 in fft_reg_c128_1.cu).
#include "fft_reg_launch.cuh"

int cx_reg_f64_1(const cx_reg_args<double>& A, int n, int mode, cudaStream_t s);

extern "C" int cx_cuda_reg_f64(const cx_reg_args<double>* A, int n, int mode, void* stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  return cx_reg_part(n) == 0 ? reg_dispatch_part<double, double, double, 0>(*A, n, mode, s)
                             : cx_reg_f64_1(*A, n, mode, s);
}
