// CUDA kernels of the ISTFT's last steps: the window envelope (in double)
// and the overlap-add gather (csrc/core/cx_block_job.h, the code the CPU
// tests emulate); and the mirror that completes a two-sided r2c
// (csrc/core/cx_mirror.h). Grid-stride loops over the output elements; every output
// element sums the frames covering it, so no atomics and no dependence on
// the launch shape. Never synchronises, never allocates.
#include <cuda_runtime.h>

#include "../core/cx_block_job.h"
#include "../core/cx_mirror.h"
#include "launch.h"

namespace {

constexpr int kThreads = 256;

inline unsigned grid_for(cx_i64 count) {
  cx_i64 g = (count + kThreads - 1) / kThreads;
  if (g > 65535) g = 65535;
  return (unsigned)(g < 1 ? 1 : g);
}

template <typename S>
__global__ void envelope_kernel(const S* w, cx_i64 n_fft, cx_i64 hop, cx_i64 T, double* env,
                                cx_i64 count) {
  for (cx_i64 s = blockIdx.x * (cx_i64)blockDim.x + threadIdx.x; s < count;
       s += (cx_i64)gridDim.x * blockDim.x)
    env[s] = cx_envelope_at<S>(s, w, n_fft, hop, T);
}

template <typename S, typename To>
__global__ void ola_kernel(const S* frames, const double* env, To* y, cx_i64 T, cx_i64 n_fft,
                           cx_i64 hop, cx_i64 start, cx_i64 length, int comps, cx_i64 count) {
  for (cx_i64 e = blockIdx.x * (cx_i64)blockDim.x + threadIdx.x; e < count;
       e += (cx_i64)gridDim.x * blockDim.x)
    cx_ola_element<S, To>(e, frames, env, y, T, n_fft, hop, start, length, comps);
}

template <typename S>
int envelope(const S* w, cx_i64 n_fft, cx_i64 hop, cx_i64 T, double* env, cx_i64 count,
             void* stream) {
  if (count <= 0) return 0;
  envelope_kernel<S><<<grid_for(count), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      w, n_fft, hop, T, env, count);
  return (int)cudaGetLastError();
}

template <typename S, typename To>
int ola(const S* frames, const double* env, void* y, cx_i64 B, cx_i64 T, cx_i64 n_fft, cx_i64 hop,
        cx_i64 start, cx_i64 length, int comps, void* stream) {
  const cx_i64 count = B * length * comps;
  if (count <= 0) return 0;
  ola_kernel<S, To><<<grid_for(count), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      frames, env, static_cast<To*>(y), T, n_fft, hop, start, length, comps, count);
  return (int)cudaGetLastError();
}

// CX_MIRROR_V bins a thread, loads first (cx_mirror_thread); the grid
// covers the count (below 2^31: the driver's rule), so the index stays
// 32-bit.
template <typename S, typename To>
__global__ void __launch_bounds__(kThreads) mirror_kernel(cx_reg_args<S> A, int n, cx_fastdiv m,
                                                          cx_u32 count) {
  cx_mirror_thread<S, To>(A, n, m, blockIdx.x * (cx_u32)(kThreads * CX_MIRROR_V) + threadIdx.x,
                          kThreads, count);
}

template <typename S, typename To>
int mirror(const cx_reg_args<S>* A, int n, void* stream) {
  const cx_i64 count = cx_mirror_count(A->nrows, n);
  if (count <= 0) return 0;
  const cx_i64 per_block = (cx_i64)kThreads * CX_MIRROR_V;
  const unsigned grid = (unsigned)((count + per_block - 1) / per_block);
  mirror_kernel<S, To><<<grid, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      *A, n, cx_fastdiv_make((cx_u32)(n / 2 - 1)), (cx_u32)count);
  return (int)cudaGetLastError();
}

}  // namespace

extern "C" {

int cx_cuda_mirror_f32(const cx_reg_args<float>* A, int n, int out_type, void* stream) {
  if (out_type == 0) return mirror<float, cx_half_t>(A, n, stream);
  return mirror<float, float>(A, n, stream);
}

int cx_cuda_mirror_f64(const cx_reg_args<double>* A, int n, void* stream) {
  return mirror<double, double>(A, n, stream);
}

int cx_cuda_envelope_f32(const float* w, long long n_fft, long long hop, long long T, double* env,
                         long long count, void* stream) {
  return envelope<float>(w, n_fft, hop, T, env, count, stream);
}

int cx_cuda_envelope_f64(const double* w, long long n_fft, long long hop, long long T,
                         double* env, long long count, void* stream) {
  return envelope<double>(w, n_fft, hop, T, env, count, stream);
}

int cx_cuda_ola_f32(const float* frames, const double* env, void* y, int out_type, long long B,
                    long long T, long long n_fft, long long hop, long long start, long long length,
                    int comps, void* stream) {
  if (out_type == 0)
    return ola<float, cx_half_t>(frames, env, y, B, T, n_fft, hop, start, length, comps, stream);
  return ola<float, float>(frames, env, y, B, T, n_fft, hop, start, length, comps, stream);
}

int cx_cuda_ola_f64(const double* frames, const double* env, void* y, int out_type, long long B,
                    long long T, long long n_fft, long long hop, long long start, long long length,
                    int comps, void* stream) {
  (void)out_type;  // fp64 compute writes fp64
  return ola<double, double>(frames, env, y, B, T, n_fft, hop, start, length, comps, stream);
}

}  // extern "C"
