// Emulated register FFT kernels with fp16 storage on both sides.
#include "reg_emulation.h"

namespace complexext {
namespace regemu {
bool dispatch_f32_hh(const cx_reg_args<float>& A, int n, int mode) {
  return dispatch<float, cx_half_t, cx_half_t>(A, n, mode);
}
}  // namespace regemu
}  // namespace complexext
