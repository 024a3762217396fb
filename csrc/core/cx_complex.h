// A small complex type for the kernel core. T may be a scalar (float,
// double) or, on the CPU, a GCC vector of lanes; S, the scalar type of
// constants such as twiddles, is always a scalar.
#pragma once
#include "cx_defs.h"

template <typename T>
struct cx {
  T re;
  T im;
};

template <typename T>
CX_FN cx<T> cx_make(T re, T im) {
  cx<T> z;
  z.re = re;
  z.im = im;
  return z;
}

template <typename T>
CX_FN cx<T> operator+(cx<T> a, cx<T> b) { return cx_make<T>(a.re + b.re, a.im + b.im); }
template <typename T>
CX_FN cx<T> operator-(cx<T> a, cx<T> b) { return cx_make<T>(a.re - b.re, a.im - b.im); }

// Complex product; b may hold a scalar type (a twiddle) while a holds lanes.
template <typename T, typename S>
CX_FN cx<T> cx_mul(cx<T> a, cx<S> b) {
  return cx_make<T>(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}
// a * conj(b)
template <typename T, typename S>
CX_FN cx<T> cx_mul_conj(cx<T> a, cx<S> b) {
  return cx_make<T>(a.re * b.re + a.im * b.im, a.im * b.re - a.re * b.im);
}
template <typename T, typename S>
CX_FN cx<T> cx_scale(cx<T> a, S s) { return cx_make<T>(a.re * s, a.im * s); }
template <typename T>
CX_FN cx<T> cx_conj(cx<T> a) { return cx_make<T>(a.re, -a.im); }
// a * i and a * (-i)
template <typename T>
CX_FN cx<T> cx_mul_i(cx<T> a) { return cx_make<T>(-a.im, a.re); }
template <typename T>
CX_FN cx<T> cx_mul_neg_i(cx<T> a) { return cx_make<T>(a.im, -a.re); }
