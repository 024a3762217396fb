// Emulated register FFT kernels with fp32 storage.
#include "reg_emulation.h"

namespace complexext {
namespace regemu {
bool dispatch_f32_ff(const cx_reg_args<float>& A, int n, int mode) {
  return dispatch<float, float, float>(A, n, mode);
}
}  // namespace regemu
}  // namespace complexext
