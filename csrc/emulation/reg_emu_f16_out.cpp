// Emulated register FFT kernels that read fp32 and write fp16.
#include "reg_emulation.h"

namespace complexext {
namespace regemu {
bool dispatch_f32_fh(const cx_reg_args<float>& A, int n, int mode) {
  return dispatch<float, float, cx_half_t>(A, n, mode);
}
}  // namespace regemu
}  // namespace complexext
