// The NVRTC program of one register FFT kernel, for a length that was not
// compiled ahead of time (docs/cuda.md, "Lengths at first use").
//
// The program is the same kernel templates the CUDA files instantiate
// (csrc/cuda/reg_kernels.cuh over csrc/core/cx_reg_fft.h), from copies of
// those headers embedded in the binary at build time (setup.py writes
// them), so a kernel compiled at first use is the kernel nvcc would have
// compiled for that length. Plain C++: built into every backend, so that a
// CPU machine can compile these programs (NVRTC needs no GPU) and read
// their code (tests/test_rtc.py).
#pragma once
#include <string>
#include <vector>

namespace complexext {
namespace rtc {

struct RegProgram {
  std::string source;      // the translation unit: includes reg_kernels.cuh
  std::string source_name; // its file name, for NVRTC's messages
  std::vector<std::string> header_names, header_texts;  // as the includes spell them
  std::string expression;  // the kernel's name expression, e.g. reg_fft_kernel<480, 30, ...>
  std::vector<std::string> options;  // without the target architecture
  // launch shape
  int rows_per_block = 0, threads = 0;
  long long smem = 0;  // dynamic shared memory of a block, bytes
};

// Whether the register kernel of length n (c2c of n; the real transforms of
// 2n samples) exists in mode (CX_REG_*): n has a register plan, n <= 16384
// and the mode is one the kernels take for n (cx_reg_mode_ok).
bool reg_program_possible(int n, int mode);

// The program of reg_fft_kernel (modes DIRECT, STAGED, COLUMNS) or
// reg_real_kernel (R2C, C2R) of length n with compute type scalar (0
// float, 1 double) and storage ti, to (0 fp16, 1 fp32, 2 fp64). Throws
// (TORCH_CHECK) when !reg_program_possible(n, mode) or the types do not
// pair (fp64 compute takes fp64 storage and only it).
RegProgram reg_program(int n, int mode, int scalar, int ti, int to);

// The embedded headers (name as included, text): their count and entries.
int embedded_header_count();
const char* embedded_header_name(int i);
const char* embedded_header_text(int i);

}  // namespace rtc
}  // namespace complexext
