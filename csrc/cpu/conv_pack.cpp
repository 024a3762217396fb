// pack_split / unpack_split (see conv_pack.h): one pass each, rows spread
// over torch's intra-op threads. complex32 rows convert with F16C where the
// CPU has it (the same instruction-set choice as the FFT kernels, so
// COMPLEXEXT_CPU_ISA=generic also selects the portable loops here); both
// paths round to nearest even.
#include "conv_pack.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <type_traits>
#include <cstring>

#include "isa.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define CX_CONV_F16C 1
#endif

namespace complexext {
namespace {

template <typename T, typename R>
void pack_row(const T* src, R* re, R* im, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    re[i] = static_cast<R>(src[2 * i]);
    im[i] = static_cast<R>(src[2 * i + 1]);
  }
}

template <typename T, typename R>
void unpack_row(const R* re, const R* im, T* dst, int64_t n, R br, R bi) {
  for (int64_t i = 0; i < n; ++i) {
    dst[2 * i] = static_cast<T>(re[i] + br);
    dst[2 * i + 1] = static_cast<T>(im[i] + bi);
  }
}

#ifdef CX_CONV_F16C
// 8 complex32 values a step: 16 halves r0 i0 r1 i1 ... split by a byte
// shuffle (per 128-bit lane: 4 re then 4 im) and a qword permute.
__attribute__((target("avx2,f16c"))) void pack_row_f16c(const c10::Half* src, float* re,
                                                         float* im, int64_t n) {
  const __m256i split = _mm256_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15,
                                         0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 2 * i));
    v = _mm256_permute4x64_epi64(_mm256_shuffle_epi8(v, split), _MM_SHUFFLE(3, 1, 2, 0));
    _mm256_storeu_ps(re + i, _mm256_cvtph_ps(_mm256_castsi256_si128(v)));
    _mm256_storeu_ps(im + i, _mm256_cvtph_ps(_mm256_extracti128_si256(v, 1)));
  }
  pack_row(src + 2 * i, re + i, im + i, n - i);
}

__attribute__((target("avx2,f16c"))) void unpack_row_f16c(const float* re, const float* im,
                                                           c10::Half* dst, int64_t n, float br,
                                                           float bi) {
  const __m256 vbr = _mm256_set1_ps(br), vbi = _mm256_set1_ps(bi);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i hr = _mm256_cvtps_ph(_mm256_add_ps(_mm256_loadu_ps(re + i), vbr),
                                       _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m128i hi = _mm256_cvtps_ph(_mm256_add_ps(_mm256_loadu_ps(im + i), vbi),
                                       _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + 2 * i), _mm_unpacklo_epi16(hr, hi));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + 2 * i + 8), _mm_unpackhi_epi16(hr, hi));
  }
  unpack_row(re + i, im + i, dst + 2 * i, n - i, br, bi);
}
#endif

bool use_f16c() {
#ifdef CX_CONV_F16C
  static const bool yes = std::strcmp(isa().name, "generic") != 0;
  return yes;
#else
  return false;
#endif
}

// Rows per task: enough values that a thread's share is worth a wake-up.
int64_t grain(int64_t row_len) { return std::max<int64_t>(1, 32768 / std::max<int64_t>(1, row_len)); }

template <typename T, typename R>
void pack_all(const at::Tensor& x, const at::Tensor& dst, const SplitRows& L, int64_t S) {
  const T* src = static_cast<const T*>(x.const_data_ptr());
  R* out = static_cast<R*>(dst.data_ptr());
  at::parallel_for(0, L.B * L.C, grain(S), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t b = r / L.C, c = r % L.C;
      R* re = out + L.re_row(b, c) * S;
      R* im = out + L.im_row(b, c) * S;
#ifdef CX_CONV_F16C
      if constexpr (std::is_same_v<T, c10::Half>) {
        if (use_f16c()) {
          pack_row_f16c(src + 2 * r * S, re, im, S);
          continue;
        }
      }
#endif
      pack_row(src + 2 * r * S, re, im, S);
    }
  });
}

template <typename T, typename R>
void unpack_all(const at::Tensor& src, const at::Tensor& out, const SplitRows& L, int64_t S,
                const at::Tensor& bias_re, const at::Tensor& bias_im) {
  const R* in = static_cast<const R*>(src.const_data_ptr());
  T* dst = static_cast<T*>(out.data_ptr());
  const R* br = bias_re.defined() ? static_cast<const R*>(bias_re.const_data_ptr()) : nullptr;
  const R* bi = bias_im.defined() ? static_cast<const R*>(bias_im.const_data_ptr()) : nullptr;
  at::parallel_for(0, L.B * L.C, grain(S), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t b = r / L.C, c = r % L.C;
      const R* re = in + L.re_row(b, c) * S;
      const R* im = in + L.im_row(b, c) * S;
      const R vr = br ? br[c] : R(0), vi = bi ? bi[c] : R(0);
#ifdef CX_CONV_F16C
      if constexpr (std::is_same_v<T, c10::Half>) {
        if (use_f16c()) {
          unpack_row_f16c(re, im, dst + 2 * r * S, S, vr, vi);
          continue;
        }
      }
#endif
      unpack_row(re, im, dst + 2 * r * S, S, vr, vi);
    }
  });
}

int64_t row_length(const at::Tensor& t, const SplitRows& L) {
  return L.B * L.C == 0 ? 0 : t.numel() / (L.B * L.C);
}

}  // namespace

at::Tensor pack_split(const at::Tensor& x, const SplitRows& L, at::ScalarType compute) {
  TORCH_INTERNAL_ASSERT(x.is_contiguous() && x.is_complex() && !x.is_conj());
  const int64_t S = row_length(x, L);
  at::Tensor dst = at::empty({L.rows(), S}, x.options().dtype(compute));
  if (dst.numel() == 0) return dst;
  switch (x.scalar_type()) {
    case at::kComplexHalf: pack_all<c10::Half, float>(x, dst, L, S); break;
    case at::kComplexFloat: pack_all<float, float>(x, dst, L, S); break;
    case at::kComplexDouble: pack_all<double, double>(x, dst, L, S); break;
    default: TORCH_CHECK(false, "convolution: unsupported dtype ", x.scalar_type());
  }
  return dst;
}

void unpack_split(const at::Tensor& src, const at::Tensor& out, const SplitRows& L,
                  const at::Tensor& bias_re, const at::Tensor& bias_im) {
  TORCH_INTERNAL_ASSERT(src.is_contiguous() && out.is_contiguous() && out.is_complex());
  const int64_t S = row_length(out, L);
  if (out.numel() == 0) return;
  switch (out.scalar_type()) {
    case at::kComplexHalf: unpack_all<c10::Half, float>(src, out, L, S, bias_re, bias_im); break;
    case at::kComplexFloat: unpack_all<float, float>(src, out, L, S, bias_re, bias_im); break;
    case at::kComplexDouble:
      unpack_all<double, double>(src, out, L, S, bias_re, bias_im);
      break;
    default: TORCH_CHECK(false, "convolution: unsupported dtype ", out.scalar_type());
  }
}

}  // namespace complexext
