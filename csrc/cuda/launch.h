// The CUDA kernels' launchers, as the binding sees them: plain functions
// taking jobs (plain data, csrc/core/cx_block_job.h), pointers, sizes and
// the stream as void* (a cudaStream_t). No CUDA header here, so the binding
// compiles against a CPU build of torch. Each returns a cudaError_t value
// (0: success); cx_cuda_error_string names it.
//
// Launches are asynchronous on the given stream; none synchronises with
// the host, none allocates, so all of them can be captured in a CUDA graph.
#pragma once
#include "../core/cx_block_job.h"
#include "../core/cx_reg_fft.h"

extern "C" {

// The one-pass block kernel: every row of J in shared memory. in_type,
// out_type: 0 fp16, 1 fp32 (fp64 jobs always read and write fp64).
int cx_cuda_block_f32(const cx_block_job<float>* J, int in_type, int out_type, void* stream);
int cx_cuda_block_f64(const cx_block_job<double>* J, void* stream);

// The register-resident kernel of length n in access mode `mode`
// (csrc/core/cx_reg_fft.h, fft_reg_*.cu): fp32 compute with fp16 storage on
// at least one side (ti, to as above), fp32 storage, or fp64. Returns -1
// when no kernel of that length and mode is compiled.
int cx_cuda_reg_f32_half(const cx_reg_args<float>* A, int n, int mode, int ti, int to,
                         void* stream);
int cx_cuda_reg_f32_float(const cx_reg_args<float>* A, int n, int mode, void* stream);
int cx_cuda_reg_f64(const cx_reg_args<double>* A, int n, int mode, void* stream);

// Register kernels compiled at first use (NVRTC, csrc/rtc/; rtc_launch.cu):
// the current device's compute capability (10 * major + minor); a kernel
// loaded from a cubin or PTX image, by its mangled name (*handle: kept for
// the process); a launch of it on blocks x threads with smem bytes of
// dynamic shared memory, its one argument the cx_reg_args at args.
int cx_cuda_device_arch(int* arch);
int cx_cuda_rtc_load(const void* image, const char* lowered, void** handle);
int cx_cuda_rtc_launch(void* handle, const void* args, long long blocks, int threads,
                       long long smem, void* stream);

// One row phase (CX_PH_LOAD, _CHIRP_IN, _POINTWISE, _CHIRP_OUT, _STORE) of
// every row of J, row r's buffer at work + r*ldw; io_type the storage read
// (load) or written (store).
int cx_cuda_rows_f32(const cx_block_job<float>* J, int phase, int io_type, cx<float>* work,
                     long long ldw, void* stream);
int cx_cuda_rows_f64(const cx_block_job<double>* J, int phase, cx<double>* work, long long ldw,
                     void* stream);

// ISTFT: env[s] for s < count (window w of the compute type), and the
// overlap-add into y (out_type 0 fp16, 1 fp32, 2 fp64; comps 1 real, 2 complex).
int cx_cuda_envelope_f32(const float* w, long long n_fft, long long hop, long long T, double* env,
                         long long count, void* stream);
int cx_cuda_envelope_f64(const double* w, long long n_fft, long long hop, long long T,
                         double* env, long long count, void* stream);
int cx_cuda_ola_f32(const float* frames, const double* env, void* y, int out_type, long long B,
                    long long T, long long n_fft, long long hop, long long start, long long length,
                    int comps, void* stream);
int cx_cuda_ola_f64(const double* frames, const double* env, void* y, int out_type, long long B,
                    long long T, long long n_fft, long long hop, long long start, long long length,
                    int comps, void* stream);

// The two-sided spectrum of real rows (csrc/core/cx_mirror.h): bins
// n/2 + 1 .. n - 1 of the rows A describes, from the onesided bins the r2c
// kernel wrote. out_type 0 fp16, 1 fp32 (fp64 rows: the f64 launcher).
int cx_cuda_mirror_f32(const cx_reg_args<float>* A, int n, int out_type, void* stream);
int cx_cuda_mirror_f64(const cx_reg_args<double>* A, int n, void* stream);

// Shared memory a block of this device may use (the opt-in maximum).
int cx_cuda_max_shared(int device, long long* bytes);
// Whether the stream is being captured into a CUDA graph.
int cx_cuda_stream_capturing(void* stream, int* capturing);
const char* cx_cuda_error_string(int code);

}  // extern "C"
