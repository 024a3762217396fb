// CUDA FFT kernels: the one-pass block kernel and the multi-pass row
// phases, both running the portable per-row code of csrc/core/cx_block_job.h
// (the code the CPU tests emulate, thread by thread).
//
//   block kernel: rows_per_block rows per block, tpr threads per row, each
//     row in two shared buffers; for p in phases: phase(p); __syncthreads()
//     (load -> Stockham passes [-> Bluestein] -> store: one read and one
//     write of the data, fp16 <-> fp32 conversion fused into them)
//   row phases: one launch per phase over work rows in global memory
//     (grid x: threads along a row, grid y: rows)
//
// Includes only CUDA headers and the core (CPU wheels of torch lack some of
// torch's CUDA headers); the binding passes jobs, pointers and the stream.
// Launches on the stream it is given; never synchronises, never allocates.
#include <cuda_runtime.h>

#include "../core/cx_block_job.h"
#include "launch.h"
#include "smem_limit.cuh"

namespace {

constexpr int kBlockThreads = 256;

template <typename S, typename Ti, typename To>
__global__ void __launch_bounds__(kBlockThreads)
    block_kernel(const cx_block_job<S> J, int tpr, int rows_per_block) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  cx<S>* smem = reinterpret_cast<cx<S>*>(smem_raw);
  const int nphases = cx_block_nphases(J);
  for (int p = 0; p < nphases; ++p) {
    cx_block_thread_phase<S, Ti, To>(J, p, (int)threadIdx.x, tpr, rows_per_block, blockIdx.x,
                                     smem);
    __syncthreads();
  }
}

template <typename S, typename Ti, typename To>
int launch_block(const cx_block_job<S>& J, cudaStream_t stream) {
  if (J.nrows <= 0) return 0;
  const cx_i64 row_bytes = 2 * cx_block_buflen(J) * (cx_i64)sizeof(cx<S>);
  int tpr, rpb;
  cx_block_shape(J.bluestein ? J.m : J.len, J.nrows, row_bytes, kBlockThreads, &tpr, &rpb);
  const size_t smem = (size_t)(rpb * row_bytes);
  auto kernel = block_kernel<S, Ti, To>;
  if (smem > 48 * 1024) {
    static int raised[kCxSmemMaxDevices];  // to the device's opt-in maximum
    const int e = cx_raise_smem_limit(kernel, 0, raised);
    if (e != 0) return e;
  }
  const cx_i64 blocks = (J.nrows + rpb - 1) / rpb;
  if (blocks > 0x7fffffff) return (int)cudaErrorInvalidConfiguration;
  kernel<<<(unsigned)blocks, (unsigned)(tpr * rpb), smem, stream>>>(J, tpr, rpb);
  return (int)cudaGetLastError();
}

template <typename S, typename T>
__global__ void __launch_bounds__(kBlockThreads)
    rows_kernel(const cx_block_job<S> J, int phase, cx<S>* work, cx_i64 ldw) {
  const int tpr = (int)(gridDim.x * blockDim.x);
  const int t = (int)(blockIdx.x * blockDim.x + threadIdx.x);
  for (cx_i64 row = blockIdx.y; row < J.nrows; row += gridDim.y)
    cx_job_row_phase<S, T, T>(J, phase, t, tpr, row, work + row * ldw);
}

template <typename S, typename T>
int launch_rows(const cx_block_job<S>& J, int phase, cx<S>* work, cx_i64 ldw,
                cudaStream_t stream) {
  if (J.nrows <= 0) return 0;
  cx_i64 gx = (ldw + 4 * kBlockThreads - 1) / (4 * kBlockThreads);
  if (gx > 1024) gx = 1024;
  const cx_i64 gy = J.nrows < 65535 ? J.nrows : 65535;
  rows_kernel<S, T><<<dim3((unsigned)gx, (unsigned)gy), kBlockThreads, 0, stream>>>(J, phase, work,
                                                                                    ldw);
  return (int)cudaGetLastError();
}

}  // namespace

extern "C" {

int cx_cuda_block_f32(const cx_block_job<float>* J, int in_type, int out_type, void* stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (in_type == 0 && out_type == 0) return launch_block<float, cx_half_t, cx_half_t>(*J, s);
  if (in_type == 0) return launch_block<float, cx_half_t, float>(*J, s);
  if (out_type == 0) return launch_block<float, float, cx_half_t>(*J, s);
  return launch_block<float, float, float>(*J, s);
}

int cx_cuda_block_f64(const cx_block_job<double>* J, void* stream) {
  return launch_block<double, double, double>(*J, static_cast<cudaStream_t>(stream));
}

int cx_cuda_rows_f32(const cx_block_job<float>* J, int phase, int io_type, cx<float>* work,
                     long long ldw, void* stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (io_type == 0) return launch_rows<float, cx_half_t>(*J, phase, work, ldw, s);
  return launch_rows<float, float>(*J, phase, work, ldw, s);
}

int cx_cuda_rows_f64(const cx_block_job<double>* J, int phase, cx<double>* work, long long ldw,
                     void* stream) {
  return launch_rows<double, double>(*J, phase, work, ldw, static_cast<cudaStream_t>(stream));
}

int cx_cuda_max_shared(int device, long long* bytes) {
  int v = 0;
  cudaError_t e = cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  *bytes = v;
  return (int)e;
}

int cx_cuda_stream_capturing(void* stream, int* capturing) {
  cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
  cudaError_t e = cudaStreamIsCapturing(static_cast<cudaStream_t>(stream), &st);
  *capturing = st != cudaStreamCaptureStatusNone;
  return (int)e;
}

const char* cx_cuda_error_string(int code) { return cudaGetErrorString((cudaError_t)code); }

}  // extern "C"
