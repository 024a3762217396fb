// CUDA FFT for lengths whose row fits in shared memory: one kernel, one read
// and one write of the data. Each block transforms rows_per_block rows, with
// tpr threads per row running the per-block phases of csrc/core/cx_block.h
// (the same code the CPU tests emulate) with a barrier after each phase.
//
//   for each row of the block:  a = load(x)            (fp16 -> fp32 here)
//                               for pass: b = pass(a); swap
//                               y = store(a * scale)   (fp32 -> fp16 here)
//
// Includes only CUDA headers and the core (CPU wheels of torch lack some of
// torch's CUDA headers); a thin binding passes pointers, sizes and the
// stream. Launches on the stream it is given and never synchronises.
#include <cuda_runtime.h>

#include "../core/cx_block.h"
#include "fft_block.h"

namespace {

template <typename S, typename Ti, typename To>
__global__ void fft_block_kernel(const cx_fft_block_args<S> A) {
  extern __shared__ unsigned char smem_raw[];
  const cx_i64 len = A.bluestein ? A.m : A.n;
  const int local = (int)threadIdx.x / A.tpr;
  const int t = (int)threadIdx.x % A.tpr;
  const cx_i64 row = (cx_i64)blockIdx.x * A.rows_per_block + local;
  // Threads past the last row still reach every barrier.
  const bool active = local < A.rows_per_block && row < A.nrows;
  cx<S>* a = reinterpret_cast<cx<S>*>(smem_raw) + (cx_i64)local * 2 * len;
  cx<S>* b = a + len;
  const Ti* x = static_cast<const Ti*>(A.in) + (active ? 2 * cx_row_in_offset(A.rows, row) : 0);
  To* y = static_cast<To*>(A.out) + (active ? 2 * cx_row_out_offset(A.rows, row) : 0);

  if (active) {
    if (A.bluestein)
      cx_block_load_chirp<S, Ti>(t, A.tpr, A.n, len, x, A.in_stride, A.conj, A.chirp, a);
    else
      cx_block_load<S, Ti>(t, A.tpr, A.n, x, A.in_stride, A.conj, a);
  }
  __syncthreads();
  const int rounds = A.bluestein ? 2 : 1;
  for (int round = 0; round < rounds; ++round) {
    for (int i = 0; i < A.npasses; ++i) {
      if (active) cx_block_pass<S>(t, A.tpr, len, A.passes[i], A.tw, A.roots, a, b);
      __syncthreads();
      cx<S>* tmp = a;
      a = b;
      b = tmp;
    }
    if (A.bluestein && round == 0) {
      if (active) cx_block_pointwise<S>(t, A.tpr, len, A.filter, a);
      __syncthreads();
    }
  }
  if (!active) return;
  if (A.bluestein)
    cx_block_store_chirp<S, To>(t, A.tpr, A.n, a, y, A.out_stride, A.conj, A.chirp, A.scale);
  else
    cx_block_store<S, To>(t, A.tpr, A.n, a, y, A.out_stride, A.conj, A.scale);
}

template <typename S, typename Ti, typename To>
cudaError_t launch(const cx_fft_block_args<S>& A, cudaStream_t stream) {
  const cx_i64 len = A.bluestein ? A.m : A.n;
  const size_t smem = (size_t)A.rows_per_block * 2 * len * sizeof(cx<S>);
  auto kernel = fft_block_kernel<S, Ti, To>;
  if (smem > 48 * 1024) {
    cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)smem);
    if (e != cudaSuccess) return e;
  }
  const cx_i64 blocks = (A.nrows + A.rows_per_block - 1) / A.rows_per_block;
  kernel<<<(unsigned)blocks, (unsigned)(A.tpr * A.rows_per_block), smem, stream>>>(A);
  return cudaGetLastError();
}

}  // namespace

cudaError_t cx_launch_fft_block_f32(const cx_fft_block_args<float>& A, int in_half, int out_half,
                                    cudaStream_t stream) {
  if (in_half && out_half) return launch<float, cx_half_t, cx_half_t>(A, stream);
  if (in_half) return launch<float, cx_half_t, float>(A, stream);
  if (out_half) return launch<float, float, cx_half_t>(A, stream);
  return launch<float, float, float>(A, stream);
}

cudaError_t cx_launch_fft_block_f64(const cx_fft_block_args<double>& A, cudaStream_t stream) {
  return launch<double, double, double>(A, stream);
}
