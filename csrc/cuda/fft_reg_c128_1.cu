// Register FFT kernels in fp64, part 1's lengths (fft_reg_launch.cuh; part 0
// in fft_reg_c128.cu).
#include "fft_reg_launch.cuh"

int cx_reg_f64_1(const cx_reg_args<double>& A, int n, int mode, cudaStream_t s) {
  return reg_dispatch_part<double, double, double, 1>(A, n, mode, s);
}
