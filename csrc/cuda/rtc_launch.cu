// Loading and launching the register kernels that NVRTC compiled at first
// use (csrc/rtc/). Host code only. A library is loaded context-independently
// (cudaLibraryLoadData, CUDA 12+): the driver loads it into each device's
// context when a kernel first launches there, so one handle serves every
// device of the architecture it was compiled for. Libraries stay loaded for
// the life of the process (the binding keeps their handles).
#include <cuda_runtime.h>

#include "launch.h"
#include "smem_limit.cuh"

namespace {

struct RtcKernel {
  cudaLibrary_t lib;
  cudaKernel_t kernel;
  int raised[kCxSmemMaxDevices];
};

}  // namespace

extern "C" int cx_cuda_device_arch(int* arch) {
  int dev = 0, major = 0, minor = 0;
  cudaError_t e = cudaGetDevice(&dev);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
  if (e != cudaSuccess) return (int)e;
  *arch = 10 * major + minor;
  return 0;
}

extern "C" int cx_cuda_rtc_load(const void* image, const char* lowered, void** handle) {
  RtcKernel* k = new RtcKernel{};
  cudaError_t e = cudaLibraryLoadData(&k->lib, image, nullptr, nullptr, 0, nullptr, nullptr, 0);
  if (e == cudaSuccess) {
    e = cudaLibraryGetKernel(&k->kernel, k->lib, lowered);
    if (e != cudaSuccess) cudaLibraryUnload(k->lib);
  }
  if (e != cudaSuccess) {
    delete k;
    cudaGetLastError();  // not left for the next launch's check to find
    return (int)e;
  }
  *handle = k;
  return 0;
}

extern "C" int cx_cuda_rtc_launch(void* handle, const void* args, long long blocks, int threads,
                                  long long smem, void* stream) {
  RtcKernel* k = static_cast<RtcKernel*>(handle);
  const void* fn = reinterpret_cast<const void*>(k->kernel);
  if (smem > 48 * 1024) {
    const int e = cx_raise_smem_limit(fn, (int)smem, k->raised);
    if (e != 0) return e;
  }
  void* argv[] = {const_cast<void*>(args)};
  cudaError_t e = cudaLaunchKernel(fn, dim3((unsigned)blocks), dim3((unsigned)threads), argv,
                                   (size_t)smem, static_cast<cudaStream_t>(stream));
  if (e == cudaSuccess) e = cudaGetLastError();
  return (int)e;
}
