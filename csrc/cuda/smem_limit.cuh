// Raising a kernel's dynamic shared memory limit above the default 48 KiB,
// once per kernel instantiation and device (an attribute, no stream work,
// so legal while a stream is captured into a CUDA graph).
#pragma once
#include <cuda_runtime.h>

constexpr int kCxSmemMaxDevices = 64;

// kernel's limit set to bytes (the device's opt-in maximum when bytes <= 0);
// raised[] remembers the devices done (one array per instantiation).
template <typename Kernel>
int cx_raise_smem_limit(Kernel kernel, int bytes, int* raised) {
  int dev = 0;
  cudaError_t e = cudaGetDevice(&dev);
  if (e != cudaSuccess) return (int)e;
  if (dev < kCxSmemMaxDevices && raised[dev]) return 0;
  if (bytes <= 0) e = cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
  if (e == cudaSuccess)
    e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
  if (e != cudaSuccess) return (int)e;
  if (dev < kCxSmemMaxDevices) raised[dev] = 1;
  return 0;
}
