// NVRTC, loaded at run time, and the cache on disk of what it compiles.
//
// libnvrtc is opened with dlopen on first use, never linked: a build runs
// where it is missing (the register kernels of other lengths then stay on
// the block kernels). Where to look: the paths the Python package hands in
// (complexext/_rtc.py: the NVIDIA wheels beside torch, CUDA_HOME), then
// COMPLEXEXT_NVRTC (a file), then the loader's own search by soname.
//
// A compiled image is kept in a file named by a hash of everything that
// determines it (program text, headers, name expression, options, target,
// NVRTC's version), so a process compiles a kernel once per machine, not
// once per run. The folder: $COMPLEXEXT_CACHE_DIR, else
// $XDG_CACHE_HOME/complexext, else ~/.cache/complexext, with kernels/ under
// it. Files are written whole and renamed into place; one that does not
// read back as written (truncated, another version) is compiled again.
// COMPLEXEXT_CACHE_DIR=off keeps nothing on disk.
//
// Plain C++ (no CUDA headers): NVRTC needs no GPU, so the CPU build
// compiles programs too, for the tests.
#pragma once
#include <string>
#include <vector>

#include "reg_program.h"

namespace complexext {
namespace rtc {

// Candidate paths of libnvrtc, tried in order before the soname search.
void set_library_candidates(const std::vector<std::string>& paths);

// NVRTC's version (major * 1000 + minor * 10, like CUDA's), 0 if no library
// loads; *where receives the path or soname that loaded, or why none did.
int nvrtc_version(std::string* where = nullptr);

// The architectures NVRTC can compile cubins for (e.g. 75, 80, 90, 100).
std::vector<int> supported_archs();

struct Image {
  std::string data;     // cubin, or PTX text with its terminating NUL
  std::string lowered;  // the kernel's mangled name
  bool cubin = false;   // false: PTX, which the driver compiles at load time
  int arch = 0;         // the target it was compiled for
  bool from_disk = false;
  std::string path;     // its cache file ("" when not cached)
  std::string log;      // NVRTC's log (ptxas figures with verbose)
};

// Compiles P for a GPU of compute capability arch (10 * major + minor): a
// cubin when NVRTC supports arch, else PTX of the newest architecture it
// supports below arch. verbose adds ptxas -v (register and stack figures
// in the log) and bypasses the cache. False with *err set on failure (no
// library, a compile error with its log, no usable architecture).
bool compile(const RegProgram& P, int arch, bool verbose, Image& out, std::string* err);

// The cache folder ("" when switched off).
std::string cache_dir();

// The kernels the CUDA binding has compiled at first use in this process,
// as it notes them: (arch, n, mode, fp64, ti, to, built) each, flat
// (_cuda_rtc_kernels; empty in a build without CUDA).
void note_kernel(int arch, int n, int mode, int f64, int ti, int to, bool built);
std::vector<long long> noted_kernels();

}  // namespace rtc
}  // namespace complexext
