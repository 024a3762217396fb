// How a length is cut into butterfly passes. Plain integer code shared by
// every backend's planner; the tables (twiddles, roots, chirps) are filled
// in double precision by the host.
#pragma once
#include "cx_defs.h"

// The odd radices of every backend's passes. A length with any other odd
// prime factor is transformed by Bluestein (whole, or as a cut's first pass).
#define CX_ODD_RADICES {3, 5, 7, 11, 13}
#define CX_NUM_ODD_RADICES 5

// Radices in the order the passes run: `top` (16 or 8) while it divides,
// then one 8, 4 or 2 for the rest of the power of two, then the odd radices.
// Returns the number of passes, or 0 when n has a prime factor above 13
// (Bluestein then computes the transform).
CX_FN int cx_factorize_top(cx_i64 n, int top, CX_PRIVATE int* radices) {
  int count = 0;
  while (n % top == 0) { radices[count++] = top; n /= top; }
  for (int r = top / 2; r >= 2; r /= 2) {
    if (n % r == 0) { radices[count++] = r; n /= r; }
  }
  const int odd[CX_NUM_ODD_RADICES] = CX_ODD_RADICES;
  for (int i = 0; i < CX_NUM_ODD_RADICES; ++i) {
    while (n % odd[i] == 0) { radices[count++] = odd[i]; n /= odd[i]; }
  }
  return n == 1 ? count : 0;
}

// The plans of every backend: 16s first.
CX_FN int cx_factorize(cx_i64 n, CX_PRIVATE int* radices) { return cx_factorize_top(n, 16, radices); }

// The part of n that the passes take as radices: the product of its prime
// factors 2 and CX_ODD_RADICES (n itself when cx_factorize_top plans it).
CX_FN cx_i64 cx_smooth_part(cx_i64 n) {
  cx_i64 c = 1;
  while (n % 2 == 0) { n /= 2; c *= 2; }
  const int odd[CX_NUM_ODD_RADICES] = CX_ODD_RADICES;
  for (int i = 0; i < CX_NUM_ODD_RADICES; ++i) {
    while (n % odd[i] == 0) { n /= odd[i]; c *= odd[i]; }
  }
  return c;
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

// The four-step split n = n1 * n2 of every backend's planner: n1 the
// largest divisor <= sqrt(n) (1 when n is prime), n2 = n / n1 >= n1.
CX_FN cx_i64 cx_four_step_split(cx_i64 n) {
  cx_i64 best = 1;
  for (cx_i64 d = 2; d * d <= n; ++d)
    if (n % d == 0) best = d;
  return best;
}

// The largest prime factor of n >= 2 (n itself when prime; 1 for n = 1).
CX_FN cx_i64 cx_largest_prime_factor(cx_i64 n) {
  cx_i64 largest = 1;
  for (cx_i64 p = 2; p * p <= n; ++p)
    while (n % p == 0) { largest = p; n /= p; }
  return n > 1 ? n : largest;
}
