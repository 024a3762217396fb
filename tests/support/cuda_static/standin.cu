// Stand-in kernels for tests/test_cuda_static.py: compiled by
// benchmarks/cuda_static.py to check that each of its checks can fail and
// can pass. Not part of the build (setup.py takes csrc/cuda/*.cu only).
#include <cuda_fp16.h>

// Three deliberate violations: a local array indexed at run time (stack
// frame, LDL/STL), 16-bit global loads (one __half each) and a 64-bit
// division (a call of the s64 division helper).
__global__ void __launch_bounds__(128) bad_kernel(const __half* x, const long long* d, float* y,
                                                  int k) {
  float a[32];
  const int t = threadIdx.x;
  for (int i = 0; i < 32; ++i) a[(i * k + t) & 31] = __half2float(x[t * 32 + i]);
  const long long q = d[t] / d[t + 1];
  y[t] = a[(k + t) & 31] + (float)q;
}

// Register spills: 2 blocks of 1024 threads leave 32 registers a thread,
// fewer than the 64 values kept live here.
__global__ void __launch_bounds__(1024, 2) spill_kernel(const float4* x, float* y, int n) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  float4 v[16];
#pragma unroll
  for (int i = 0; i < 16; ++i) v[i] = x[t + i * n];
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < 16; ++i)
#pragma unroll
    for (int j = 0; j < 16; ++j) s += v[i].x * v[j].y - v[i].z * v[j].w;
  y[t] = s;
}

// Clean: N = 256, EPT = 16 values a thread in registers, all loads (32-bit
// __half2) issued before the first butterfly, no stack, 32-bit indices.
template <int N, int EPT, typename T>
__global__ void __launch_bounds__(N / EPT * 4) reg_fft_kernel(const __half2* __restrict__ x,
                                                              __half2* __restrict__ y) {
  constexpr int kThreads = N / EPT * 4;  // four rows a block
  __shared__ float2 tile[kThreads];
  const int t = threadIdx.x;
  const __half2* row = x + blockIdx.x * (N * 4) + t;
  __half2 h[EPT];
  float2 v[EPT];
#pragma unroll
  for (int i = 0; i < EPT; ++i) h[i] = row[i * kThreads];
#pragma unroll
  for (int i = 0; i < EPT; ++i) v[i] = __half22float2(h[i]);
#pragma unroll
  for (int s = 1; s < EPT; s <<= 1) {
#pragma unroll
    for (int i = 0; i < EPT; ++i) {
      if ((i & s) == 0) {
        const float2 a = v[i], b = v[i + s];
        v[i] = make_float2(a.x + b.x, a.y + b.y);
        v[i + s] = make_float2(a.x - b.x, a.y - b.y);
      }
    }
  }
  tile[t] = v[0];
  __syncthreads();
  v[0] = tile[(t + 1) % kThreads];
  __half2* out = y + blockIdx.x * (N * 4) + t;
#pragma unroll
  for (int i = 0; i < EPT; ++i) out[i * kThreads] = __float22half2_rn(v[i]);
}

template __global__ void reg_fft_kernel<256, 16, float>(const __half2*, __half2*);
// A float64 instantiation: reported, never checked.
template __global__ void reg_fft_kernel<256, 16, double>(const __half2*, __half2*);
