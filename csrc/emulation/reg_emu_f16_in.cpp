// Emulated register FFT kernels that read fp16 and write fp32.
#include "reg_emulation.h"

namespace complexext {
namespace regemu {
bool dispatch_f32_hf(const cx_reg_args<float>& A, int n, int mode) {
  return dispatch<float, cx_half_t, float>(A, n, mode);
}
}  // namespace regemu
}  // namespace complexext
