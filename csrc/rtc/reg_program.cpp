#include "reg_program.h"

#include <c10/util/Exception.h>

#include "../core/cx_reg_fft.h"
#include "../core/cx_reg_plans.h"

namespace complexext {
namespace rtc {
namespace {

struct Embedded {
  const char* name;
  const char* text;
};
// {include name, text} of reg_kernels.cuh and the core headers it reaches,
// written by setup.py (write_rtc_sources) from the files in csrc/.
const Embedded kEmbedded[] = {
#include "complexext_rtc_sources.inc"
};
constexpr int kEmbeddedCount = (int)(sizeof(kEmbedded) / sizeof(kEmbedded[0]));

const char* storage_name(int code) {
  return code == 0 ? "cx_half_t" : code == 1 ? "float" : "double";
}

}  // namespace

int embedded_header_count() { return kEmbeddedCount; }
const char* embedded_header_name(int i) { return kEmbedded[i].name; }
const char* embedded_header_text(int i) { return kEmbedded[i].text; }

bool reg_program_possible(int n, int mode) {
  if (n < 2 || n > 16384 || mode < CX_REG_DIRECT || mode > CX_REG_FRAMES) return false;
  const cx_rplan p = cx_reg_plan_host_of(n, mode);
  return p.np != 0 && cx_reg_mode_ok_of(p, mode);
}

RegProgram reg_program(int n, int mode, int scalar, int ti, int to) {
  TORCH_CHECK(reg_program_possible(n, mode), "complexext: no register kernel of length ", n,
              " in mode ", mode);
  TORCH_CHECK(scalar == 0 || scalar == 1, "complexext: compute type code ", scalar);
  TORCH_CHECK(ti >= 0 && ti <= 2 && to >= 0 && to <= 2, "complexext: storage codes ", ti, ", ",
              to);
  TORCH_CHECK(scalar == 1 ? (ti == 2 && to == 2) : (ti != 2 && to != 2),
              "complexext: fp64 compute takes fp64 storage, and only it");
  const cx_rplan p = cx_reg_plan_host_of(n, mode);
  const int rpb = cx_reg_rpb_of(p, mode);
  const int pitch = cx_reg_pitch_p(p, cx_reg_access(mode));
  RegProgram P;
  P.rows_per_block = rpb;
  P.threads = rpb * p.t;
  P.smem = (long long)rpb * pitch * (scalar == 1 ? 16 : 8);
  P.source_name = "complexext_reg_kernel.cu";
  P.source = "#include \"reg_kernels.cuh\"\n";
  for (int i = 0; i < kEmbeddedCount; ++i) {
    P.header_names.push_back(kEmbedded[i].name);
    P.header_texts.push_back(kEmbedded[i].text);
  }
  P.expression = std::string(cx_reg_is_real(mode)            ? "reg_real_kernel<"
                             : mode == CX_REG_BLUESTEIN ? "reg_blue_kernel<"
                                                        : "reg_fft_kernel<") +
                 std::to_string(n) + ", " + std::to_string(p.e) + ", " + std::to_string(rpb) +
                 ", " + std::to_string(mode) + ", " + (scalar == 1 ? "double" : "float") + ", " +
                 storage_name(ti) + ", " + storage_name(to) + ">";
  // nvcc's settings for csrc/cuda/*.cu (setup.py: -O3, C++17); NVRTC's
  // default optimisation is ptxas -O3. -default-device: the kernels' generic
  // lambdas (cx_reg_each's bodies) carry no execution space, and NVRTC 13.0
  // (torch 2.11's) takes them for host functions and refuses the program
  // ("host functions are not allowed in JIT mode"); 13.5 took them as device
  // code. The program holds device code only, so nothing else changes.
  P.options = {"-std=c++17", "-default-device"};
  return P;
}

}  // namespace rtc
}  // namespace complexext
