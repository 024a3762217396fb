// Butterflies whose length is a compile-time constant, with every constant
// (roots of unity, inner twiddles) an immediate: the building blocks of the
// register-resident FFT kernels (cx_reg_fft.h). Host (g++) and CUDA (nvcc);
// not Metal (C++17).
//
//   cx_kdft<R>(v):  v[k] = sum_j v[j] exp(-2 pi i j k / R), in place
//
// R = 2, 3, 4, 5, 8, 16 use the hand-written butterflies of cx_butterfly.h;
// 7, 11 and 13 the paired odd form with constant roots; any other R whose
// prime factors are at most 13 is split R = A * B. Where R has a
// hand-written factor A coprime to B = R / A (cx_kpfa), the split is
// Good-Thomas's (the prime-factor algorithm): no twiddles between the two
// DFTs, the index maps only (all compile-time, so free in registers), with
// A^-1 the inverse of A mod B and B^-1 of B mod A:
//
//   for j2 < B:  Y[.][j2] = DFT_A(v[(j1*B + j2*A) mod R] for j1 < A)
//   for k1 < A:  v[(k1*B*(B^-1) + k2*A*(A^-1)) mod R] = DFT_B(Y[k1][.])
//
// (fp32 operations in sm_90 code: 20 = 4 x 5 224 rather than 272, 10 = 2 x 5
// 92 rather than 108, 24 = 3 x 8 252 rather than 316.) Otherwise (a prime
// power: 9, 25, 27, 32) Cooley-Tukey, A the largest hand-written factor <=
// sqrt(R):
//
//   for j2 < B:  Y[.][j2] = DFT_A(v[j1*B + j2] for j1 < A) * w_R^(j2*k1)
//   for k1 < A:  v[k1 + A*k2] = DFT_B(Y[k1][.])
#pragma once
#include "cx_butterfly.h"

#if !defined(CX_METAL)

// Unrolled loops: every index into a register array a constant.
#if defined(CX_CUDA)
#define CX_UNROLL _Pragma("unroll")
#define CX_NO_UNROLL _Pragma("unroll 1")
#else
#define CX_UNROLL _Pragma("GCC unroll 64")
#define CX_NO_UNROLL _Pragma("GCC unroll 1")
#endif

// Compile-time helpers, callable at run time too (the planners), not forced inline.
#if defined(CX_CUDA)
#define CX_CFN __host__ __device__ constexpr inline
#else
#define CX_CFN constexpr inline
#endif

// ---- roots of unity as compile-time constants ----------------------------------
// exp(-2 pi i q / R) in double, exact at the quarter turns: the angle is
// reduced in integers to k quarter turns plus phi, |phi| <= pi/4, and phi's
// sine and cosine are Taylor sums (|phi| <= 0.79: 12 terms reach 1e-19).
struct cx_kroot {
  double re, im;
};

CX_CFN double cx_ksin_small(double x) {
  double term = x, sum = x;
  for (int k = 1; k < 12; ++k) {
    term *= -x * x / (double)((2 * k) * (2 * k + 1));
    sum += term;
  }
  return sum;
}
CX_CFN double cx_kcos_small(double x) {
  double term = 1.0, sum = 1.0;
  for (int k = 1; k < 12; ++k) {
    term *= -x * x / (double)((2 * k - 1) * (2 * k));
    sum += term;
  }
  return sum;
}
CX_CFN cx_kroot cx_kunit(long long q, long long R) {
  q %= R;
  if (q < 0) q += R;
  const long long k = (8 * q + R) / (2 * R);  // round(4q / R): quarter turns
  const long long d = 4 * q - k * R;         // |d| <= R/2
  const double phi = 1.57079632679489661923 * (double)d / (double)R;
  const double c = cx_kcos_small(phi), s = cx_ksin_small(phi);
  double C = c, Sn = s;  // cos and sin of k pi/2 + phi
  if ((k & 3) == 1) { C = -s; Sn = c; }
  if ((k & 3) == 2) { C = -c; Sn = -s; }
  if ((k & 3) == 3) { C = s; Sn = -c; }
  cx_kroot w = {C, -Sn};
  return w;
}

// The R roots exp(-2 pi i q / R), q < R, as one constant table.
template <int R>
struct cx_kroots {
  cx_kroot w[R] = {};
  CX_CFN cx_kroots() {
    for (int q = 0; q < R; ++q) w[q] = cx_kunit(q, R);
  }
};

// v * exp(-2 pi i q / R), the trivial factors without a multiply.
template <long long Q, long long R, typename T>
CX_FN cx<T> cx_ktwiddle(cx<T> v) {
  constexpr long long q = ((Q % R) + R) % R;
  if (q == 0) return v;
  if (4 * q == R) return cx_mul_neg_i(v);
  if (2 * q == R) return cx_make<T>(-v.re, -v.im);
  if (4 * q == 3 * R) return cx_mul_i(v);
  constexpr cx_kroot w = cx_kunit(q, R);
  return cx_mul(v, cx_make<T>((T)w.re, (T)w.im));
}

CX_CFN bool cx_khas_kernel(int R) {
  return R == 1 || R == 2 || R == 3 || R == 4 || R == 5 || R == 7 || R == 8 || R == 11 ||
         R == 13 || R == 16;
}
// The factor A of a split R = A * B: the largest hand-written length <= sqrt(R)
// dividing R (2..16), else 0 (R has a prime factor above 13).
CX_CFN int cx_ksplit(int R) {
  int best = 0;
  for (int a = 2; a <= 16 && a * a <= R; ++a)
    if (R % a == 0 && cx_khas_kernel(a)) best = a;
  return best;
}
CX_CFN int cx_kgcd(int a, int b) {
  while (b != 0) {
    const int t = a % b;
    a = b;
    b = t;
  }
  return a;
}
CX_CFN bool cx_kdft_ok(int R);
// The factor A of a Good-Thomas split R = A * B: a hand-written length with
// gcd(A, B) = 1 and B itself a length with a butterfly, the largest such
// A <= sqrt(R), else the smallest above it (24: 3 x 8; 20: 4 x 5); 0 if
// there is none (R a prime power).
CX_CFN int cx_kpfa(int R) {
  int below = 0, above = 0;
  for (int a = 2; a <= 16 && a < R; ++a) {
    if (R % a != 0 || !cx_khas_kernel(a) || cx_kgcd(a, R / a) != 1 || !cx_kdft_ok(R / a))
      continue;
    if (a * a <= R) below = a;
    else if (above == 0) above = a;
  }
  return below ? below : above;
}
// x^-1 mod m (gcd(x, m) = 1, m >= 1): the inverse by search (m <= 32 here).
CX_CFN int cx_kinv(int x, int m) {
  for (int y = 0; y < m; ++y)
    if ((x * y) % m == 1 % m) return y;
  return 0;
}
CX_CFN bool cx_kdft_ok(int R) {
  while (!cx_khas_kernel(R)) {
    const int a = cx_ksplit(R);
    if (a < 2) return false;
    R /= a;
  }
  return true;
}

template <int R, typename T>
CX_FN void cx_kdft(CX_PRIVATE cx<T>* v);

// Odd prime R with constant roots (the pairing of cx_dft_odd).
template <int R, typename T>
CX_FN void cx_kdft_odd(CX_PRIVATE cx<T>* v) {
  constexpr int h = (R - 1) / 2;
  cx<T> t[h], d[h];
  cx<T> sum = v[0];
CX_UNROLL
  for (int j = 1; j <= h; ++j) {
    t[j - 1] = v[j] + v[R - j];
    d[j - 1] = v[j] - v[R - j];
    sum = sum + t[j - 1];
  }
  constexpr cx_kroots<R> W;
  cx<T> out[R];
  out[0] = sum;
CX_UNROLL
  for (int k = 1; k <= h; ++k) {
    cx<T> m = v[0];
    T nre = (T)0, nim = (T)0;
CX_UNROLL
    for (int j = 1; j <= h; ++j) {
      const cx_kroot w = W.w[(j * k) % R];
      m = m + cx_scale(t[j - 1], (T)w.re);
      nre = nre + d[j - 1].re * (T)w.im;
      nim = nim + d[j - 1].im * (T)w.im;
    }
    const cx<T> n = cx_make<T>(-nim, nre);
    out[k] = m + n;
    out[R - k] = m - n;
  }
CX_UNROLL
  for (int k = 0; k < R; ++k) v[k] = out[k];
}

// Inner twiddles of a split, one constant per (j2, k1).
template <int R, int A, int J2, int K1, typename T>
struct cx_ksplit_tw {
  static CX_FN void apply(CX_PRIVATE cx<T>* y) {
    y[K1 * (R / A) + J2] = cx_ktwiddle<(long long)J2 * K1, R, T>(y[K1 * (R / A) + J2]);
    if constexpr (K1 + 1 < A) {
      cx_ksplit_tw<R, A, J2, K1 + 1, T>::apply(y);
    } else if constexpr (J2 + 1 < R / A) {
      cx_ksplit_tw<R, A, J2 + 1, 0, T>::apply(y);
    }
  }
};

template <int R, typename T>
CX_FN void cx_kdft_split(CX_PRIVATE cx<T>* v) {
  constexpr int A = cx_ksplit(R), B = R / A;
  static_assert(A > 1, "cx_kdft: a length with a prime factor above 13");
  cx<T> y[R];  // y[k1 * B + j2]
CX_UNROLL
  for (int j2 = 0; j2 < B; ++j2) {
    cx<T> q[A];
CX_UNROLL
    for (int j1 = 0; j1 < A; ++j1) q[j1] = v[j1 * B + j2];
    cx_kdft<A, T>(q);
CX_UNROLL
    for (int k1 = 0; k1 < A; ++k1) y[k1 * B + j2] = q[k1];
  }
  cx_ksplit_tw<R, A, 1, 1, T>::apply(y);
CX_UNROLL
  for (int k1 = 0; k1 < A; ++k1) {
    cx_kdft<B, T>(y + k1 * B);
CX_UNROLL
    for (int k2 = 0; k2 < B; ++k2) v[k1 + A * k2] = y[k1 * B + k2];
  }
}

// Good-Thomas: R = A * B, gcd(A, B) = 1 (cx_kpfa).
template <int R, typename T>
CX_FN void cx_kdft_pfa(CX_PRIVATE cx<T>* v) {
  constexpr int A = cx_kpfa(R), B = R / A;
  constexpr int CA = (B * cx_kinv(B % A, A)) % R, CB = (A * cx_kinv(A % B, B)) % R;
  cx<T> y[R];  // y[k1 * B + j2]
CX_UNROLL
  for (int j2 = 0; j2 < B; ++j2) {
    cx<T> q[A];
CX_UNROLL
    for (int j1 = 0; j1 < A; ++j1) q[j1] = v[(j1 * B + j2 * A) % R];
    cx_kdft<A, T>(q);
CX_UNROLL
    for (int k1 = 0; k1 < A; ++k1) y[k1 * B + j2] = q[k1];
  }
CX_UNROLL
  for (int k1 = 0; k1 < A; ++k1) {
    cx_kdft<B, T>(y + k1 * B);
CX_UNROLL
    for (int k2 = 0; k2 < B; ++k2) v[(k1 * CA + k2 * CB) % R] = y[k1 * B + k2];
  }
}

template <int R, typename T>
CX_FN void cx_kdft(CX_PRIVATE cx<T>* v) {
  if constexpr (R == 1) {
  } else if constexpr (R == 2) {
    cx_dft2<T, T>(v);
  } else if constexpr (R == 3) {
    cx_dft3<T, T>(v);
  } else if constexpr (R == 4) {
    cx_dft4<T, T>(v);
  } else if constexpr (R == 5) {
    cx_dft5<T, T>(v);
  } else if constexpr (R == 8) {
    cx_dft8<T, T>(v);
  } else if constexpr (R == 16) {
    cx_dft16<T, T>(v);
  } else if constexpr (R == 7 || R == 11 || R == 13) {
    cx_kdft_odd<R, T>(v);
  } else if constexpr (cx_kpfa(R) > 1) {
    cx_kdft_pfa<R, T>(v);
  } else {
    cx_kdft_split<R, T>(v);
  }
}

#endif
