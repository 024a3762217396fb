// Arguments of the one-kernel shared-memory FFT (fft_block.cu), plain data
// filled by the binding from a plan and the tensors' geometry.
#pragma once
#include <cuda_runtime.h>

#include "../core/cx_block.h"

template <typename S>
struct cx_fft_block_args {
  cx_i64 n;                      // transform length
  int npasses;                   // passes of the (inner, for Bluestein) plan
  cx_pass passes[CX_MAX_PASSES];
  const cx<S>* tw;               // device copies of the plan's tables
  const cx<S>* roots;
  int bluestein;
  cx_i64 m;                      // Bluestein's convolution length
  const cx<S>* chirp;
  const cx<S>* filter;
  const void* in;                // storage: fp16 pairs, fp32 pairs, fp64 pairs
  void* out;
  cx_i64 in_stride, out_stride;  // along the transform, in complex elements
  cx_rows rows;                  // batch geometry
  cx_i64 nrows;
  int conj;                      // conjugate on load and store: inverse transform
  S scale;
  int tpr;                       // threads per row
  int rows_per_block;
};

cudaError_t cx_launch_fft_block_f32(const cx_fft_block_args<float>& A, int in_half, int out_half,
                                    cudaStream_t stream);
cudaError_t cx_launch_fft_block_f64(const cx_fft_block_args<double>& A, cudaStream_t stream);
