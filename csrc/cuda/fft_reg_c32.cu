// Register FFT kernels with fp16 storage on both sides (complex32 rows), the
// lengths of part 0 (fft_reg_launch.cuh; part 1 in fft_reg_c32_1.cu), and
// the entry point of every fp16 pairing (the mixed ones in fft_reg_c32_*.cu,
// so that their instantiations compile in parallel).
#include "fft_reg_launch.cuh"

int cx_reg_f32_half_half_1(const cx_reg_args<float>& A, int n, int mode, cudaStream_t s);
int cx_reg_f32_half_float(const cx_reg_args<float>& A, int n, int mode, cudaStream_t s);
int cx_reg_f32_float_half(const cx_reg_args<float>& A, int n, int mode, cudaStream_t s);

extern "C" int cx_cuda_reg_f32_half(const cx_reg_args<float>* A, int n, int mode, int ti,
                                    int to, void* stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (ti == 0 && to == 0)
    return cx_reg_part(n) == 0 ? reg_dispatch_part<float, cx_half_t, cx_half_t, 0>(*A, n, mode, s)
                               : cx_reg_f32_half_half_1(*A, n, mode, s);
  if (ti == 0) return cx_reg_f32_half_float(*A, n, mode, s);
  return cx_reg_f32_float_half(*A, n, mode, s);
}
