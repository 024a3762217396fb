// Emulated register FFT kernels in fp64.
#include "reg_emulation.h"

namespace complexext {
namespace regemu {
bool launch_f64(const cx_reg_args<double>& A, int n, int mode) {
  return dispatch<double, double, double>(A, n, mode);
}
}  // namespace regemu
}  // namespace complexext
