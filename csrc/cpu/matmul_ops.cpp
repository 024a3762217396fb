// complexext::bmm on the CPU: a batched complex matrix product with fp32
// accumulation for complex32 (fp64 for complex128) and one rounding.
//
// complex32, two paths:
//  - few rows (M <= 16: beamforming's (F, C, C) @ (F, C, T), covariance
//    products, matrix-vector): a kernel of its own reads the fp16 operands
//    directly. Each task takes one batch and a strip of 64 columns; it
//    widens that batch's A (M x K, small) into fp32 once, and for every 4
//    columns and 4 rows keeps 8 fp32 accumulators in registers (block4),
//    streaming B's rows through F16C conversions: one
//    read of B and one write of C at 4 bytes a value, where torch's
//    complex64 product moves 8, and no widened copies. BLAS kernels are
//    tuned for large M and K; at M = 8 this kernel is the faster one.
//  - otherwise: the operands widened to complex64 with F16C (in parallel),
//    the complex64 GEMM of the BLAS torch links (MKL's cgemm, batched; its
//    accumulation is fp32), the result rounded once. The conversions move
//    O(MK + KN + MN) values against the product's O(MNK) work.
// COMPLEXEXT_CPU_ISA=generic selects the portable loops of both (the same
// sums in the same order in fp32; the tests hold both to the complex32
// floor against the complex128 product).
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/util/Half.h>
#include <torch/library.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "../args/matmul_args.h"
#include "conv_rows.h"

namespace complexext {
namespace {

using conv_rows::narrow;
using conv_rows::widen;

constexpr int64_t kSmallRows = 16;  // the few-rows kernel up to this M
constexpr int64_t kStrip = 64;      // columns per task

// C[i, n] for rows [i0, i0 + rows) and columns [n0, n1): a (M x K) in fp32
// (interleaved re, im), b and c complex32 with row strides ldb, ldc (values).
void strip_portable(const float* a, int64_t K, const c10::Half* b, int64_t ldb, c10::Half* c,
                    int64_t ldc, int64_t i0, int64_t rows, int64_t n0, int64_t n1,
                    std::vector<float>& acc) {
  const int64_t w = n1 - n0;
  acc.resize(2 * w);
  for (int64_t i = i0; i < i0 + rows; ++i) {
    std::fill(acc.begin(), acc.end(), 0.f);
    for (int64_t k = 0; k < K; ++k) {
      const float ar = a[2 * (i * K + k)], ai = a[2 * (i * K + k) + 1];
      const c10::Half* bk = b + 2 * (k * ldb + n0);
      for (int64_t n = 0; n < w; ++n) {
        const float br = static_cast<float>(bk[2 * n]), bi = static_cast<float>(bk[2 * n + 1]);
        acc[2 * n] += ar * br - ai * bi;
        acc[2 * n + 1] += ar * bi + ai * br;
      }
    }
    narrow(acc.data(), c + 2 * (i * ldc + n0), 2 * w);
  }
}

#ifdef CX_CONV_F16C
// R rows x 4 columns, interleaved as stored (re, im, re, im, ...): each
// step of k widens 4 complex values of B's row k (8 halves, one F16C
// conversion), swaps re and im within each value, and does two FMAs a
// row into two independent accumulators, p += ar * b and q += ai * bswap;
// C = addsub(p, q) = (ar br - ai bi, ar bi + ai br). One FMA a step on each
// accumulator chain, 2R chains.
__attribute__((target("avx2,fma,f16c"))) inline void put4(c10::Half* c, __m256 p, __m256 q) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(c),
                   _mm256_cvtps_ph(_mm256_addsub_ps(p, q),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}

template <int R>
__attribute__((target("avx2,fma,f16c"))) inline void block4(const float* a, int64_t K,
                                                            const c10::Half* b, int64_t ldb,
                                                            c10::Half* c, int64_t ldc) {
  __m256 p0 = _mm256_setzero_ps(), q0 = p0, p1 = p0, q1 = p0, p2 = p0, q2 = p0, p3 = p0, q3 = p0;
  const float* a0 = a;
  for (int64_t k = 0; k < K; ++k, a0 += 2) {
    const __m256 v = _mm256_cvtph_ps(
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 2 * k * ldb)));
    const __m256 w = _mm256_permute_ps(v, _MM_SHUFFLE(2, 3, 0, 1));
    p0 = _mm256_fmadd_ps(_mm256_broadcast_ss(a0), v, p0);
    q0 = _mm256_fmadd_ps(_mm256_broadcast_ss(a0 + 1), w, q0);
    if constexpr (R > 1) {
      p1 = _mm256_fmadd_ps(_mm256_broadcast_ss(a0 + 2 * K), v, p1);
      q1 = _mm256_fmadd_ps(_mm256_broadcast_ss(a0 + 2 * K + 1), w, q1);
    }
    if constexpr (R > 2) {
      p2 = _mm256_fmadd_ps(_mm256_broadcast_ss(a0 + 4 * K), v, p2);
      q2 = _mm256_fmadd_ps(_mm256_broadcast_ss(a0 + 4 * K + 1), w, q2);
    }
    if constexpr (R > 3) {
      p3 = _mm256_fmadd_ps(_mm256_broadcast_ss(a0 + 6 * K), v, p3);
      q3 = _mm256_fmadd_ps(_mm256_broadcast_ss(a0 + 6 * K + 1), w, q3);
    }
  }
  put4(c, p0, q0);
  if constexpr (R > 1) put4(c + 2 * ldc, p1, q1);
  if constexpr (R > 2) put4(c + 4 * ldc, p2, q2);
  if constexpr (R > 3) put4(c + 6 * ldc, p3, q3);
}

void strip_f16c(const float* a, int64_t K, const c10::Half* b, int64_t ldb, c10::Half* c,
                int64_t ldc, int64_t M, int64_t n0, int64_t n1, std::vector<float>& acc) {
  int64_t n = n0;
  for (; n + 4 <= n1; n += 4) {
    for (int64_t i = 0; i < M; i += 4) {
      const float* ai = a + 2 * i * K;
      const c10::Half* bn = b + 2 * n;
      c10::Half* ci = c + 2 * (i * ldc + n);
      switch (std::min<int64_t>(4, M - i)) {
        case 4: block4<4>(ai, K, bn, ldb, ci, ldc); break;
        case 3: block4<3>(ai, K, bn, ldb, ci, ldc); break;
        case 2: block4<2>(ai, K, bn, ldb, ci, ldc); break;
        default: block4<1>(ai, K, bn, ldb, ci, ldc); break;
      }
    }
  }
  if (n < n1) strip_portable(a, K, b, ldb, c, ldc, 0, M, n, n1, acc);
}
#endif

// A batch's A (M x K) as fp32, conjugated where a carries the conj bit,
// from any strides (values).
void widen_a(const c10::Half* A, int64_t M, int64_t K, int64_t s1, int64_t s2, bool conj,
             float* dst) {
  if (s2 == 1 && s1 == K) {
    widen(A, dst, 2 * M * K);
  } else {
    for (int64_t i = 0; i < M; ++i)
      for (int64_t k = 0; k < K; ++k) {
        const c10::Half* v = A + 2 * (i * s1 + k * s2);
        dst[2 * (i * K + k)] = static_cast<float>(v[0]);
        dst[2 * (i * K + k) + 1] = static_cast<float>(v[1]);
      }
  }
  if (conj)
    for (int64_t j = 1; j < 2 * M * K; j += 2) dst[j] = -dst[j];
}

// A batch's B (K x N) row-major in complex32, conjugated where asked: the
// bits copied, the sign of each imaginary half flipped (exact).
void gather_b(const c10::Half* B, int64_t K, int64_t N, int64_t s1, int64_t s2, bool conj,
              uint32_t* dst) {
  const auto* src = reinterpret_cast<const uint32_t*>(B);
  if (s1 == 1) {  // B transposed (X^T, X^H of a row-major X): 8 x 8 block transposes
    for (int64_t n0 = 0; n0 < N; n0 += 8)
      for (int64_t k0 = 0; k0 < K; k0 += 8)
        conv_rows::transpose(reinterpret_cast<const float*>(src + n0 * s2 + k0), s2,
                             reinterpret_cast<float*>(dst + k0 * N + n0), N,
                             std::min<int64_t>(8, N - n0), std::min<int64_t>(8, K - k0));
  } else {
    for (int64_t k = 0; k < K; ++k)
      for (int64_t n = 0; n < N; ++n) dst[k * N + n] = src[k * s1 + n * s2];
  }
  if (conj)  // the imaginary half is the high one: flip its sign bit
    for (int64_t j = 0; j < K * N; ++j) dst[j] ^= 0x80000000u;
}

// out (nb, M, N) contiguous = a @ b, a and b of any strides (batch strides
// 0 too) and conj bits.
void few_rows(const at::Tensor& a, const at::Tensor& b, at::Tensor& out) {
  const int64_t nb = a.size(0), M = a.size(1), K = a.size(2), N = b.size(2);
  const auto* A = reinterpret_cast<const c10::Half*>(a.data_ptr());
  const auto* B = reinterpret_cast<const c10::Half*>(b.data_ptr());
  auto* C = reinterpret_cast<c10::Half*>(out.data_ptr());
  const int64_t sa0 = a.stride(0), sa1 = a.stride(1), sa2 = a.stride(2);
  const int64_t sb0 = b.stride(0), sb1 = b.stride(1), sb2 = b.stride(2);
  const bool conj_a = a.is_conj(), conj_b = b.is_conj();
  const bool direct_b = sb2 == 1 && !conj_b;  // rows of B read in place
  const int64_t strips = (N + kStrip - 1) / kStrip;
  const int64_t work = std::max<int64_t>(1, M * K * std::min(N, kStrip));
  const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 15) / work);
  at::parallel_for(0, nb * strips, grain, [&](int64_t lo, int64_t hi) {
    std::vector<float> wa(2 * M * K), acc;
    std::vector<uint32_t> gb(direct_b ? 0 : K * N);
    int64_t widened = -1;
    for (int64_t t = lo; t < hi; ++t) {
      const int64_t batch = t / strips, n0 = (t % strips) * kStrip;
      const int64_t n1 = std::min(N, n0 + kStrip);
      if (batch != widened) {
        widen_a(A + 2 * batch * sa0, M, K, sa1, sa2, conj_a, wa.data());
        if (!direct_b) gather_b(B + 2 * batch * sb0, K, N, sb1, sb2, conj_b, gb.data());
        widened = batch;
      }
      const c10::Half* bb =
          direct_b ? B + 2 * batch * sb0 : reinterpret_cast<const c10::Half*>(gb.data());
      const int64_t ldb = direct_b ? sb1 : N;
      c10::Half* c = C + 2 * batch * M * N;
#ifdef CX_CONV_F16C
      if (conv_rows::use_f16c()) {
        strip_f16c(wa.data(), K, bb, ldb, c, N, M, n0, n1, acc);
        continue;
      }
#endif
      strip_portable(wa.data(), K, bb, ldb, c, N, 0, M, n0, n1, acc);
    }
  });
}

at::Tensor widened(const at::Tensor& t) {
  auto w = at::empty(t.sizes(), t.options().dtype(at::kComplexFloat));
  const auto* src = reinterpret_cast<const c10::Half*>(t.data_ptr());
  auto* dst = reinterpret_cast<float*>(w.data_ptr());
  at::parallel_for(0, 2 * t.numel(), int64_t{1} << 16,
                   [&](int64_t lo, int64_t hi) { widen(src + lo, dst + lo, hi - lo); });
  if (t.is_conj()) w.conj_physical_();  // the raw values of a conj view are unconjugated
  return w;
}

at::Tensor complex_bmm_cpu(const at::Tensor& a, const at::Tensor& b) {
  matmul::check_bmm("bmm", a, b);
  if (a.scalar_type() != at::kComplexHalf) return at::bmm(a, b);
  const int64_t nb = a.size(0), M = a.size(1), K = a.size(2), N = b.size(2);
  auto out = at::empty({nb, M, N}, a.options().dtype(at::kComplexHalf));
  if (out.numel() == 0) return out;
  if (K == 0) return out.fill_(0);
  if (M <= kSmallRows) {
    few_rows(a, b, out);
    return out;
  }
  const auto ac = a.contiguous(), bc = b.contiguous();
  const auto prod = nb == 1 ? at::mm(widened(ac)[0], widened(bc)[0]).unsqueeze(0)
                            : at::bmm(widened(ac), widened(bc));
  const auto* P = reinterpret_cast<const float*>(prod.data_ptr());
  auto* C = reinterpret_cast<c10::Half*>(out.data_ptr());
  at::parallel_for(0, 2 * prod.numel(), int64_t{1} << 16,
                   [&](int64_t lo, int64_t hi) { narrow(P + lo, C + lo, hi - lo); });
  return out;
}

}  // namespace

TORCH_LIBRARY_IMPL(complexext, CPU, m) { m.impl("bmm", &complex_bmm_cpu); }

// bmm takes conjugate views as they are: every backend's kernel reads the
// conj bit (the CPU's few-rows kernel folds it into its conversions, at no
// cost; the others resolve it), so the dispatcher's fallback, which would
// copy each conjugated operand first, is skipped.
TORCH_LIBRARY_IMPL(complexext, Conjugate, m) {
  m.impl("bmm", torch::CppFunction::makeFallthrough());
}

}  // namespace complexext
