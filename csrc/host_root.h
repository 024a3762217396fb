// exp(-2*pi*i*k/n) in double, for the twiddle tables that every backend's
// plans are built from on the host (CPU plans, CUDA plans).
#pragma once
#include <cmath>
#include <cstdint>
#include <utility>

namespace complexext {

// The angle is reflected into the first octant in exact integer arithmetic
// (on 8k / 8n, so n/8, n/4 and n/2 are whole), so that sin and cos see an
// argument of at most pi/4 and the quarter and half turns come out as exact
// 0 and +-1 (sin(pi) in double is 1.2e-16, which gave the Nyquist bin of a
// real FFT a spurious imaginary part). Returns (cos, -sin) of the angle.
inline void exact_root(int64_t k, int64_t n, double* re, double* im) {
  k %= n;
  if (k < 0) k += n;
  const int64_t D = 8 * n;
  int64_t u = 8 * k;
  bool upper = false, left = false, swap = false;
  if (2 * u > D) {  // (pi, 2pi): the conjugate of 2pi - angle
    u = D - u;
    upper = true;
  }
  if (4 * u > D) {  // (pi/2, pi]: cos(pi - a) = -cos a, sin(pi - a) = sin a
    u = D / 2 - u;
    left = true;
  }
  if (8 * u > D) {  // (pi/4, pi/2]: cos and sin of pi/2 - a swap
    u = D / 4 - u;
    swap = true;
  }
  const double a = 6.283185307179586476925286766559 * (double)u / (double)D;
  double c = std::cos(a), s = std::sin(a);
  if (swap) std::swap(c, s);
  if (left) c = -c;
  *re = c;
  *im = upper ? s : -s;
}

}  // namespace complexext
