// How a length is cut into butterfly passes. Plain integer code shared by
// every backend's planner; the tables (twiddles, roots, chirps) are filled
// in double precision by the host.
#pragma once
#include "cx_defs.h"

// Radices in the order the passes run: 16s first, then an 8, 4 or 2, then
// the odd radices. Returns the number of passes, or 0 when n has a prime factor
// above 13 (Bluestein then computes the transform).
CX_FN int cx_factorize(cx_i64 n, CX_PRIVATE int* radices) {
  int count = 0;
  while (n % 16 == 0) { radices[count++] = 16; n /= 16; }
  if (n % 8 == 0) { radices[count++] = 8; n /= 8; }
  if (n % 4 == 0) { radices[count++] = 4; n /= 4; }
  if (n % 2 == 0) { radices[count++] = 2; n /= 2; }
  const int odd[5] = {3, 5, 7, 11, 13};
  for (int i = 0; i < 5; ++i) {
    while (n % odd[i] == 0) { radices[count++] = odd[i]; n /= odd[i]; }
  }
  return n == 1 ? count : 0;
}

// Smallest 2,3,5-smooth length >= n (Bluestein's convolution length).
CX_FN cx_i64 cx_next_smooth(cx_i64 n) {
  for (cx_i64 m = n;; ++m) {
    cx_i64 r = m;
    while (r % 2 == 0) r /= 2;
    while (r % 3 == 0) r /= 3;
    while (r % 5 == 0) r /= 5;
    if (r == 1) return m;
  }
}
