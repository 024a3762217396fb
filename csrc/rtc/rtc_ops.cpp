// Ops of the kernels compiled at first use: the library search, and
// test-only views of the programs and of what NVRTC makes of them (no GPU
// needed: tests/test_rtc.py, benchmarks/cuda_rtc.py).
#include <ATen/ATen.h>
#include <torch/library.h>

#include <cstring>
#include <tuple>

#include "nvrtc.h"
#include "reg_program.h"

namespace complexext {
namespace {

void set_candidates(c10::List<std::string> paths) {
  std::vector<std::string> v;
  for (const std::string& p : paths) v.push_back(p);
  rtc::set_library_candidates(v);
}

std::tuple<int64_t, std::string, std::vector<int64_t>> nvrtc_info() {
  std::string where;
  const int v = rtc::nvrtc_version(&where);
  std::vector<int64_t> archs;
  for (int a : rtc::supported_archs()) archs.push_back(a);
  return {v, where, archs};
}

std::tuple<std::string, std::vector<std::string>, std::vector<std::string>, std::string,
           std::vector<std::string>, std::vector<int64_t>>
program(int64_t n, int64_t mode, int64_t scalar, int64_t ti, int64_t to) {
  const rtc::RegProgram P = rtc::reg_program((int)n, (int)mode, (int)scalar, (int)ti, (int)to);
  return {P.source, P.header_names, P.header_texts, P.expression, P.options,
          {P.rows_per_block, P.threads, P.smem}};
}

std::tuple<bool, std::string, std::string, bool, bool, std::string, at::Tensor> compile(
    int64_t n, int64_t mode, int64_t scalar, int64_t ti, int64_t to, int64_t arch, bool verbose) {
  const rtc::RegProgram P = rtc::reg_program((int)n, (int)mode, (int)scalar, (int)ti, (int)to);
  rtc::Image im;
  std::string err;
  const bool ok = rtc::compile(P, (int)arch, verbose, im, &err);
  at::Tensor bytes = at::empty({(int64_t)im.data.size()}, at::kByte);
  if (!im.data.empty()) std::memcpy(bytes.mutable_data_ptr(), im.data.data(), im.data.size());
  return {ok, ok ? im.log : err, im.lowered, im.cubin, im.from_disk, im.path, bytes};
}

}  // namespace

// The schemas are in ops.cpp.
TORCH_LIBRARY_IMPL(complexext, CompositeExplicitAutograd, m) {
  m.impl("_rtc_set_library_candidates", &set_candidates);
  m.impl("_rtc_nvrtc", &nvrtc_info);
  m.impl("_rtc_program", &program);
  m.impl("_rtc_compile", &compile);
  m.impl("_rtc_cache_dir", [] { return rtc::cache_dir(); });
  m.impl("_cuda_rtc_kernels", [] {
    std::vector<int64_t> out;
    for (long long v : rtc::noted_kernels()) out.push_back(v);
    return out;
  });
}

}  // namespace complexext
