// Row converters of conv_pack.cpp: n interleaved complex values <-> n real
// parts and n imaginary parts in the compute type (unpack adds a bias pair
// first). complex32 rows use F16C where the CPU has it (the same
// instruction-set choice as the FFT kernels, so COMPLEXEXT_CPU_ISA=generic
// selects the portable loops); both paths round to nearest even. Also the
// 8 x 8 block transpose of the channels-last layout, and widen/narrow: n
// halves <-> n floats in place order (interleaved complex stays
// interleaved), for the matrix product's operands.
#pragma once
#include <c10/util/Half.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "isa.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define CX_CONV_F16C 1
#endif

namespace complexext {
namespace conv_rows {

template <typename T, typename R>
inline void pack_portable(const T* src, R* re, R* im, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    re[i] = static_cast<R>(src[2 * i]);
    im[i] = static_cast<R>(src[2 * i + 1]);
  }
}

template <typename T, typename R>
inline void unpack_portable(const R* re, const R* im, T* dst, int64_t n, R br, R bi) {
  for (int64_t i = 0; i < n; ++i) {
    dst[2 * i] = static_cast<T>(re[i] + br);
    dst[2 * i + 1] = static_cast<T>(im[i] + bi);
  }
}

#ifdef CX_CONV_F16C
// 8 complex32 values at src -> their 8 real and 8 imaginary parts in fp32:
// 16 halves r0 i0 r1 i1 ... split by a byte shuffle (per 128-bit lane: 4 re
// then 4 im) and a qword permute, then two F16C conversions.
__attribute__((target("avx2,f16c"), always_inline)) inline void load_split8(
    const c10::Half* src, __m256& re, __m256& im) {
  const __m256i split = _mm256_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15,
                                         0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15);
  __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src));
  v = _mm256_permute4x64_epi64(_mm256_shuffle_epi8(v, split), _MM_SHUFFLE(3, 1, 2, 0));
  re = _mm256_cvtph_ps(_mm256_castsi256_si128(v));
  im = _mm256_cvtph_ps(_mm256_extracti128_si256(v, 1));
}

// 8 real and 8 imaginary parts -> 8 complex32 values at dst, each rounded
// once to nearest even.
__attribute__((target("avx2,f16c"), always_inline)) inline void store_interleaved8(
    c10::Half* dst, __m256 re, __m256 im) {
  const __m128i hr = _mm256_cvtps_ph(re, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m128i hi = _mm256_cvtps_ph(im, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(dst), _mm_unpacklo_epi16(hr, hi));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + 8), _mm_unpackhi_epi16(hr, hi));
}

// 8 complex32 values a step.
__attribute__((target("avx2,f16c"))) inline void pack_f16c(const c10::Half* src, float* re,
                                                           float* im, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 r, m;
    load_split8(src + 2 * i, r, m);
    _mm256_storeu_ps(re + i, r);
    _mm256_storeu_ps(im + i, m);
  }
  pack_portable(src + 2 * i, re + i, im + i, n - i);
}

__attribute__((target("avx2,f16c"))) inline void unpack_f16c(const float* re, const float* im,
                                                             c10::Half* dst, int64_t n, float br,
                                                             float bi) {
  const __m256 vbr = _mm256_set1_ps(br), vbi = _mm256_set1_ps(bi);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    store_interleaved8(dst + 2 * i, _mm256_add_ps(_mm256_loadu_ps(re + i), vbr),
                       _mm256_add_ps(_mm256_loadu_ps(im + i), vbi));
  unpack_portable(re + i, im + i, dst + 2 * i, n - i, br, bi);
}
#endif

inline void widen_portable(const c10::Half* src, float* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<float>(src[i]);
}

inline void narrow_portable(const float* src, c10::Half* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = c10::Half(src[i]);
}

#ifdef CX_CONV_F16C
__attribute__((target("avx2,f16c"))) inline void widen_f16c(const c10::Half* src, float* dst,
                                                            int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(dst + i,
                     _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i))));
  widen_portable(src + i, dst + i, n - i);
}

__attribute__((target("avx2,f16c"))) inline void narrow_f16c(const float* src, c10::Half* dst,
                                                             int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(src + i),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  narrow_portable(src + i, dst + i, n - i);
}
#endif

template <typename R>
inline void transpose_portable(const R* src, int64_t ss, R* dst, int64_t ds, int64_t rows,
                               int64_t cols) {
  for (int64_t j = 0; j < cols; ++j)
    for (int64_t i = 0; i < rows; ++i) dst[j * ds + i] = src[i * ss + j];
}

#ifdef CX_CONV_F16C
// dst[j * ds + i] = src[i * ss + j] for an 8 x 8 float block, in registers.
__attribute__((target("avx2"))) inline void transpose8_avx(const float* src, int64_t ss,
                                                           float* dst, int64_t ds) {
  __m256 r[8], t[8];
  for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(src + i * ss);
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int h = 0; h < 8; h += 4) {  // rows 0-3, then 4-7
    r[h] = _mm256_shuffle_ps(t[h], t[h + 2], _MM_SHUFFLE(1, 0, 1, 0));
    r[h + 1] = _mm256_shuffle_ps(t[h], t[h + 2], _MM_SHUFFLE(3, 2, 3, 2));
    r[h + 2] = _mm256_shuffle_ps(t[h + 1], t[h + 3], _MM_SHUFFLE(1, 0, 1, 0));
    r[h + 3] = _mm256_shuffle_ps(t[h + 1], t[h + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int k = 0; k < 4; ++k) {
    _mm256_storeu_ps(dst + k * ds, _mm256_permute2f128_ps(r[k], r[k + 4], 0x20));
    _mm256_storeu_ps(dst + (k + 4) * ds, _mm256_permute2f128_ps(r[k], r[k + 4], 0x31));
  }
}
#endif

inline bool use_f16c() {
#ifdef CX_CONV_F16C
  static const bool yes = std::strcmp(isa().name, "generic") != 0;
  return yes;
#else
  return false;
#endif
}

template <typename T, typename R>
inline void pack(const T* src, R* re, R* im, int64_t n) {
#ifdef CX_CONV_F16C
  if constexpr (std::is_same_v<T, c10::Half>) {
    if (use_f16c()) return pack_f16c(src, re, im, n);
  }
#endif
  pack_portable(src, re, im, n);
}

template <typename T, typename R>
inline void unpack(const R* re, const R* im, T* dst, int64_t n, R br, R bi) {
#ifdef CX_CONV_F16C
  if constexpr (std::is_same_v<T, c10::Half>) {
    if (use_f16c()) return unpack_f16c(re, im, dst, n, br, bi);
  }
#endif
  unpack_portable(re, im, dst, n, br, bi);
}

inline void widen(const c10::Half* src, float* dst, int64_t n) {
#ifdef CX_CONV_F16C
  if (use_f16c()) return widen_f16c(src, dst, n);
#endif
  widen_portable(src, dst, n);
}

inline void narrow(const float* src, c10::Half* dst, int64_t n) {
#ifdef CX_CONV_F16C
  if (use_f16c()) return narrow_f16c(src, dst, n);
#endif
  narrow_portable(src, dst, n);
}

// dst[j * ds + i] = src[i * ss + j] for i < rows, j < cols (at most 8 each).
template <typename R>
inline void transpose(const R* src, int64_t ss, R* dst, int64_t ds, int64_t rows, int64_t cols) {
#ifdef CX_CONV_F16C
  if constexpr (std::is_same_v<R, float>) {
    if (rows == 8 && cols == 8 && use_f16c()) return transpose8_avx(src, ss, dst, ds);
  }
#endif
  transpose_portable(src, ss, dst, ds, rows, cols);
}

}  // namespace conv_rows
}  // namespace complexext
