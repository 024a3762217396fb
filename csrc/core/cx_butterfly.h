// In-place forward DFT butterflies on R values held in private memory.
//
//   y[k] = sum_j v[j] * exp(-2*pi*i*j*k/R)
//
// The inverse transform is taken by conjugating at load and store, so only
// the forward direction is written here.
#pragma once
#include "cx_complex.h"

template <typename T, typename S>
CX_FN void cx_dft2(CX_PRIVATE cx<T>* v) {
  cx<T> a = v[0], b = v[1];
  v[0] = a + b;
  v[1] = a - b;
}

template <typename T, typename S>
CX_FN void cx_dft3(CX_PRIVATE cx<T>* v) {
  const cx_kreal c = -0.5;                         // cos(2pi/3)
  const cx_kreal s = -0.86602540378443864676;      // -sin(2pi/3)
  cx<T> t = v[1] + v[2];
  cx<T> m = v[0] + cx_scale(t, (S)c);
  cx<T> d = cx_mul_i(cx_scale(v[1] - v[2], (S)s));
  v[0] = v[0] + t;
  v[1] = m + d;
  v[2] = m - d;
}

template <typename T, typename S>
CX_FN void cx_dft4(CX_PRIVATE cx<T>* v) {
  cx<T> t0 = v[0] + v[2], t1 = v[0] - v[2];
  cx<T> t2 = v[1] + v[3], t3 = cx_mul_neg_i(v[1] - v[3]);
  v[0] = t0 + t2;
  v[2] = t0 - t2;
  v[1] = t1 + t3;
  v[3] = t1 - t3;
}

template <typename T, typename S>
CX_FN void cx_dft5(CX_PRIVATE cx<T>* v) {
  const cx_kreal c1 = 0.30901699437494742410;   // cos(2pi/5)
  const cx_kreal c2 = -0.80901699437494742410;  // cos(4pi/5)
  const cx_kreal s1 = -0.95105651629515357212;  // -sin(2pi/5)
  const cx_kreal s2 = -0.58778525229247312917;  // -sin(4pi/5)
  cx<T> t1 = v[1] + v[4], t2 = v[2] + v[3];
  cx<T> d1 = v[1] - v[4], d2 = v[2] - v[3];
  cx<T> m1 = v[0] + cx_scale(t1, (S)c1) + cx_scale(t2, (S)c2);
  cx<T> m2 = v[0] + cx_scale(t1, (S)c2) + cx_scale(t2, (S)c1);
  cx<T> n1 = cx_mul_i(cx_scale(d1, (S)s1) + cx_scale(d2, (S)s2));
  cx<T> n2 = cx_mul_i(cx_scale(d1, (S)s2) - cx_scale(d2, (S)s1));
  v[0] = v[0] + t1 + t2;
  v[1] = m1 + n1;
  v[4] = m1 - n1;
  v[2] = m2 + n2;
  v[3] = m2 - n2;
}

template <typename T, typename S>
CX_FN void cx_dft8(CX_PRIVATE cx<T>* v) {
  const cx_kreal h = 0.70710678118654752440;  // 1/sqrt(2)
  cx<T> e[4] = {v[0], v[2], v[4], v[6]};
  cx<T> o[4] = {v[1], v[3], v[5], v[7]};
  cx_dft4<T, S>(e);
  cx_dft4<T, S>(o);
  // o[k] *= exp(-2*pi*i*k/8)
  o[1] = cx_scale(cx_make<T>(o[1].re + o[1].im, o[1].im - o[1].re), (S)h);
  o[2] = cx_mul_neg_i(o[2]);
  o[3] = cx_scale(cx_make<T>(o[3].im - o[3].re, -o[3].re - o[3].im), (S)h);
  for (int k = 0; k < 4; ++k) {
    v[k] = e[k] + o[k];
    v[k + 4] = e[k] - o[k];
  }
}

// Radix 16 as 4 x 4: DFT-4 down the columns j (inputs j, j+4, j+8, j+12),
// twiddles exp(-2*pi*i*j*k1/16), then DFT-4 across, output k1 + 4*k2.
template <typename T, typename S>
CX_FN void cx_dft16(CX_PRIVATE cx<T>* v) {
  const cx_kreal c = 0.92387953251128675613;  // cos(pi/8)
  const cx_kreal s = 0.38268343236508977173;  // sin(pi/8)
  const cx_kreal h = 0.70710678118654752440;  // 1/sqrt(2)
  cx<T> t[16];
  for (int j = 0; j < 4; ++j) {
    cx<T> q[4] = {v[j], v[j + 4], v[j + 8], v[j + 12]};
    cx_dft4<T, S>(q);
    for (int k1 = 0; k1 < 4; ++k1) t[4 * j + k1] = q[k1];
  }
  // row j = 1: w^0, w^1, w^2, w^3; j = 2: w^0, w^2, w^4, w^6; j = 3: w^0, w^3, w^6, w^9
  t[5] = cx_mul(t[5], cx_make<S>((S)c, (S)-s));
  t[6] = cx_mul(t[6], cx_make<S>((S)h, (S)-h));
  t[7] = cx_mul(t[7], cx_make<S>((S)s, (S)-c));
  t[9] = cx_mul(t[9], cx_make<S>((S)h, (S)-h));
  t[10] = cx_mul_neg_i(t[10]);
  t[11] = cx_mul(t[11], cx_make<S>((S)-h, (S)-h));
  t[13] = cx_mul(t[13], cx_make<S>((S)s, (S)-c));
  t[14] = cx_mul(t[14], cx_make<S>((S)-h, (S)-h));
  t[15] = cx_mul(t[15], cx_make<S>((S)-c, (S)s));
  for (int k1 = 0; k1 < 4; ++k1) {
    cx<T> q[4] = {t[k1], t[4 + k1], t[8 + k1], t[12 + k1]};
    cx_dft4<T, S>(q);
    for (int k2 = 0; k2 < 4; ++k2) v[k1 + 4 * k2] = q[k2];
  }
}

// Any odd R, with roots[q] = exp(-2*pi*i*q/R) for q < R. Pairs the inputs
// j and R-j so that each output costs (R-1)/2 real-by-complex products per
// half instead of R-1 complex products.
template <typename T, typename S>
CX_FN void cx_dft_odd(CX_PRIVATE cx<T>* v, int R, const CX_GLOBAL cx<S>* roots) {
  cx<T> t[CX_MAX_RADIX / 2], d[CX_MAX_RADIX / 2];
  int h = (R - 1) / 2;
  cx<T> sum = v[0];
  for (int j = 1; j <= h; ++j) {
    t[j - 1] = v[j] + v[R - j];
    d[j - 1] = v[j] - v[R - j];
    sum = sum + t[j - 1];
  }
  cx<T> out[CX_MAX_RADIX];
  out[0] = sum;
  for (int k = 1; k <= h; ++k) {
    cx<T> m = v[0];
    cx<S> w = roots[k];  // cos part multiplies t, sin part multiplies d
    m = m + cx_scale(t[0], w.re);
    T nre = d[0].re * w.im, nim = d[0].im * w.im;
    int q = k;
    for (int j = 2; j <= h; ++j) {
      q += k;
      if (q >= R) q -= R;
      w = roots[q];
      m = m + cx_scale(t[j - 1], w.re);
      nre = nre + d[j - 1].re * w.im;
      nim = nim + d[j - 1].im * w.im;
    }
    cx<T> n = cx_make<T>(-nim, nre);  // i * sum(sin * d)
    out[k] = m + n;
    out[R - k] = m - n;
  }
  for (int k = 0; k < R; ++k) v[k] = out[k];
}

// Butterfly of radix R (2..CX_MAX_RADIX, with generic odd radices).
template <typename T, typename S>
CX_FN void cx_dft(CX_PRIVATE cx<T>* v, int R, const CX_GLOBAL cx<S>* roots) {
  switch (R) {
    case 2: cx_dft2<T, S>(v); break;
    case 3: cx_dft3<T, S>(v); break;
    case 4: cx_dft4<T, S>(v); break;
    case 5: cx_dft5<T, S>(v); break;
    case 8: cx_dft8<T, S>(v); break;
    case 16: cx_dft16<T, S>(v); break;
    default: cx_dft_odd<T, S>(v, R, roots); break;
  }
}
