// complexext::bmm on the CPU: a batched complex matrix product with fp32
// accumulation for complex32 (fp64 for complex128) and one rounding.
//
// complex32, two paths:
//  - few rows (M <= 16: beamforming's (F, C, C) @ (F, C, T), covariance
//    products, matrix-vector): a kernel of its own reads the fp16 operands
//    directly. Each task takes one batch and a strip of 64 columns; it
//    widens that batch's A (M x K, small) into fp32 once (up to 256
//    values, also as 8 copies of each, so that each FMA takes its A
//    operand from memory: 13 instructions for 8 FMAs a step, near the
//    FMA ports' bound), and for every 4 columns and 4 rows keeps 8 fp32
//    accumulators in registers (block4), streaming B's rows through F16C
//    conversions: one
//    read of B and one write of C at 4 bytes a value, where torch's
//    complex64 product moves 8, and no widened copies. BLAS kernels are
//    tuned for large M and K; at M = 8 this kernel is the faster one.
//  - otherwise: Gauss's three real products (gauss below): the operands
//    split into fp32 real and imaginary planes with F16C (in parallel,
//    in their own layout, so a transposed operand costs no copy), three
//    fp32 GEMMs of the BLAS torch links (MKL's sgemm; fp32 accumulation),
//    and one pass that combines them and rounds once. The conversions move
//    O(MK + KN + MN) values against the products' O(MNK) work.
// COMPLEXEXT_CPU_ISA=generic selects the portable loops of both (the same
// sums in the same order in fp32; the tests hold both to the complex32
// floor against the complex128 product).
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/util/Half.h>
#include <torch/library.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <mutex>
#include <vector>

#include "../args/matmul_args.h"
#include "conv_rows.h"
#include "output_pool.h"

namespace complexext {
namespace {

using conv_rows::narrow;
using conv_rows::widen;

constexpr int64_t kSmallRows = 16;  // the few-rows kernel up to this M
constexpr int64_t kStrip = 64;      // columns per task
constexpr int64_t kPreValues = 256; // A in 8 copies up to M K values (16 KiB)

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

// A's value j of a row-major fp32 (M x K) complex matrix as 8 copies: a
// broadcast load (Pre = false), or an aligned load from the copy made
// ahead (Pre = true), which the FMA takes as its memory operand: one
// instruction a product instead of two.
template <bool Pre>
__attribute__((target("avx2,fma,f16c"), always_inline)) inline __m256 a_at(const float* a,
                                                                           int64_t j) {
  if constexpr (Pre)
    return _mm256_load_ps(a + 8 * j);
  else
    return _mm256_broadcast_ss(a + j);
}

template <int R, bool Pre>
__attribute__((target("avx2,fma,f16c"), always_inline)) inline void block4(
    const float* a, int64_t K, const c10::Half* b, int64_t ldb, c10::Half* c, int64_t ldc) {
  __m256 p0 = _mm256_setzero_ps(), q0 = p0, p1 = p0, q1 = p0, p2 = p0, q2 = p0, p3 = p0, q3 = p0;
  const float* a0 = a;
  for (int64_t k = 0; k < K; ++k, a0 += Pre ? 16 : 2) {
    const __m256 v = _mm256_cvtph_ps(
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 2 * k * ldb)));
    const __m256 w = _mm256_permute_ps(v, _MM_SHUFFLE(2, 3, 0, 1));
    p0 = _mm256_fmadd_ps(a_at<Pre>(a0, 0), v, p0);
    q0 = _mm256_fmadd_ps(a_at<Pre>(a0, 1), w, q0);
    if constexpr (R > 1) {
      p1 = _mm256_fmadd_ps(a_at<Pre>(a0, 2 * K), v, p1);
      q1 = _mm256_fmadd_ps(a_at<Pre>(a0, 2 * K + 1), w, q1);
    }
    if constexpr (R > 2) {
      p2 = _mm256_fmadd_ps(a_at<Pre>(a0, 4 * K), v, p2);
      q2 = _mm256_fmadd_ps(a_at<Pre>(a0, 4 * K + 1), w, q2);
    }
    if constexpr (R > 3) {
      p3 = _mm256_fmadd_ps(a_at<Pre>(a0, 6 * K), v, p3);
      q3 = _mm256_fmadd_ps(a_at<Pre>(a0, 6 * K + 1), w, q3);
    }
  }
  put4(c, p0, q0);
  if constexpr (R > 1) put4(c + 2 * ldc, p1, q1);
  if constexpr (R > 2) put4(c + 4 * ldc, p2, q2);
  if constexpr (R > 3) put4(c + 6 * ldc, p3, q3);
}

// a: A as fp32 (Pre = false) or its 8-copy form (Pre = true).
template <bool Pre>
__attribute__((target("avx2,fma,f16c"))) void strip_f16c(const float* a, int64_t K,
                                                         const c10::Half* b, int64_t ldb,
                                                         c10::Half* c, int64_t ldc, int64_t M,
                                                         int64_t n0, int64_t n1) {
  constexpr int64_t kA = Pre ? 8 : 1;  // floats a value of A takes in a
  for (int64_t n = n0; n + 4 <= n1; n += 4) {
    for (int64_t i = 0; i < M; i += 4) {
      const float* ai = a + 2 * i * K * kA;
      const c10::Half* bn = b + 2 * n;
      c10::Half* ci = c + 2 * (i * ldc + n);
      switch (std::min<int64_t>(4, M - i)) {
        case 4: block4<4, Pre>(ai, K, bn, ldb, ci, ldc); break;
        case 3: block4<3, Pre>(ai, K, bn, ldb, ci, ldc); break;
        case 2: block4<2, Pre>(ai, K, bn, ldb, ci, ldc); break;
        default: block4<1, Pre>(ai, K, bn, ldb, ci, ldc); break;
      }
    }
  }
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
  // A in its 8-copy form while that stays in L1 (2 M K values of 32 bytes),
  // for the F16C kernel only (the portable loop reads wa)
  bool pre = false;
#ifdef CX_CONV_F16C
  pre = conv_rows::use_f16c() && M * K <= kPreValues;
#endif
  at::parallel_for(0, nb * strips, grain, [&](int64_t lo, int64_t hi) {
    std::vector<float> wa(2 * M * K), acc;
    std::vector<float> wpre(pre ? 16 * M * K + 8 : 0);  // + 8: room to align to 32 bytes
    float* apre = wpre.data();
    apre += (8 - reinterpret_cast<uintptr_t>(apre) / sizeof(float) % 8) % 8;
    std::vector<uint32_t> gb(direct_b ? 0 : K * N);
    int64_t widened = -1;
    for (int64_t t = lo; t < hi; ++t) {
      const int64_t batch = t / strips, n0 = (t % strips) * kStrip;
      const int64_t n1 = std::min(N, n0 + kStrip);
      if (batch != widened) {
        widen_a(A + 2 * batch * sa0, M, K, sa1, sa2, conj_a, wa.data());
        for (int64_t j = 0; pre && j < 2 * M * K; ++j) std::fill_n(apre + 8 * j, 8, wa[j]);
        if (!direct_b) gather_b(B + 2 * batch * sb0, K, N, sb1, sb2, conj_b, gb.data());
        widened = batch;
      }
      const c10::Half* bb =
          direct_b ? B + 2 * batch * sb0 : reinterpret_cast<const c10::Half*>(gb.data());
      const int64_t ldb = direct_b ? sb1 : N;
      c10::Half* c = C + 2 * batch * M * N;
#ifdef CX_CONV_F16C
      if (conv_rows::use_f16c()) {
        const int64_t n4 = n0 + (n1 - n0) / 4 * 4;  // whole groups of 4 columns
        if (pre)
          strip_f16c<true>(apre, K, bb, ldb, c, N, M, n0, n4);
        else
          strip_f16c<false>(wa.data(), K, bb, ldb, c, N, M, n0, n4);
        if (n4 < n1) strip_portable(wa.data(), K, bb, ldb, c, N, 0, M, n4, n1, acc);
        continue;
      }
#endif
      strip_portable(wa.data(), K, bb, ldb, c, N, 0, M, n0, n1, acc);
    }
  });
}

// Larger products: Gauss's three real products on fp32 planes, each a
// BLAS sgemm (the BLAS torch links; its accumulation is fp32):
//   P1 = Ar Br,  P2 = Ai Bi,  P3 = (Ar + Ai)(Br + Bi),
//   C = (P1 - P2) + i (P3 - P1 - P2),
// three quarters of the multiplications of the complex GEMM, on operands
// of half its bytes. The sums and the cancellation in P3 - P1 - P2 cost
// fp32 roundings of the size of (|Ar| + |Ai|)(|Br| + |Bi|), far under
// complex32's rounding of C as a whole. They are not under that of C's
// imaginary part when it is much smaller than those sums: both operands
// nearly real (or both nearly imaginary). The split measures that from the
// planes' norms, and such a product takes the fourth GEMM instead,
// Ci = Ar Bi + Ai Br (imaginary parts 1e-4 of the real ones put Gauss's Ci
// at 7-13 x its own complex32 floor, K = 64 to 4096; the guard keeps every
// part at 1.00).
constexpr double kGaussMinShare = 1.0 / 32;

struct SumSq {
  double re = 0, im = 0;
};

// n complex32 values -> their real parts, imaginary parts (negated for a
// conjugate) and the sums of the two, in fp32: all three planes in one
// pass, adding the squares of the real and imaginary parts to `sq`.
void split3_portable(const c10::Half* src, float* re, float* im, float* sum, int64_t n,
                     bool conj, SumSq& sq) {
  float rr = 0, ii = 0;
  for (int64_t j = 0; j < n; ++j) {
    const float r = static_cast<float>(src[2 * j]), i = static_cast<float>(src[2 * j + 1]);
    re[j] = r;
    im[j] = conj ? -i : i;
    sum[j] = r + im[j];
    rr += r * r;
    ii += i * i;
  }
  sq.re += rr;
  sq.im += ii;
}

// C = (p1 - p2) + i (p3 - p1 - p2) (gauss) or (p1 - p2) + i p3, rounded
// once, for n values.
void combine_portable(const float* p1, const float* p2, const float* p3, c10::Half* c,
                      int64_t n, bool gauss) {
  for (int64_t j = 0; j < n; ++j) {
    c[2 * j] = c10::Half(p1[j] - p2[j]);
    c[2 * j + 1] = c10::Half(gauss ? p3[j] - p1[j] - p2[j] : p3[j]);
  }
}

#ifdef CX_CONV_F16C
// 8 values a step (conv_rows::load_split8).
__attribute__((target("avx2,fma,f16c"))) void split3_f16c(const c10::Half* src, float* re,
                                                          float* im, float* sum, int64_t n,
                                                          bool conj, SumSq& sq) {
  const __m256 flip = _mm256_set1_ps(conj ? -0.f : 0.f);
  __m256 rr = _mm256_setzero_ps(), ii = rr;
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    __m256 r, i;
    conv_rows::load_split8(src + 2 * j, r, i);
    i = _mm256_xor_ps(i, flip);
    _mm256_storeu_ps(re + j, r);
    _mm256_storeu_ps(im + j, i);
    _mm256_storeu_ps(sum + j, _mm256_add_ps(r, i));
    rr = _mm256_fmadd_ps(r, r, rr);
    ii = _mm256_fmadd_ps(i, i, ii);
  }
  alignas(32) float lr[8], li[8];
  _mm256_store_ps(lr, rr);
  _mm256_store_ps(li, ii);
  for (int q = 0; q < 8; ++q) {
    sq.re += lr[q];
    sq.im += li[q];
  }
  split3_portable(src + 2 * j, re + j, im + j, sum + j, n - j, conj, sq);
}

__attribute__((target("avx2,f16c"))) void combine_f16c(const float* p1, const float* p2,
                                                       const float* p3, c10::Half* c, int64_t n,
                                                       bool gauss) {
  const __m256 keep = _mm256_castsi256_ps(_mm256_set1_epi32(gauss ? -1 : 0));
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    const __m256 a = _mm256_loadu_ps(p1 + j), b = _mm256_loadu_ps(p2 + j);
    const __m256 ab = _mm256_and_ps(_mm256_add_ps(a, b), keep);  // 0 where not gauss
    conv_rows::store_interleaved8(c + 2 * j, _mm256_sub_ps(a, b),
                                  _mm256_sub_ps(_mm256_loadu_ps(p3 + j), ab));
  }
  combine_portable(p1 + j, p2 + j, p3 + j, c + 2 * j, n - j, gauss);
}
#endif

void split3(const c10::Half* src, float* re, float* im, float* sum, int64_t n, bool conj,
            SumSq& sq) {
#ifdef CX_CONV_F16C
  if (conv_rows::use_f16c()) return split3_f16c(src, re, im, sum, n, conj, sq);
#endif
  split3_portable(src, re, im, sum, n, conj, sq);
}

void combine(const float* p1, const float* p2, const float* p3, c10::Half* c, int64_t n,
             bool gauss) {
#ifdef CX_CONV_F16C
  if (conv_rows::use_f16c()) return combine_f16c(p1, p2, p3, c, n, gauss);
#endif
  combine_portable(p1, p2, p3, c, n, gauss);
}

// A (nb, R, C) complex32 operand as three fp32 planes: re, im (negated
// where the conj bit is set) and re + im. A dense operand keeps its own
// strides, so that the BLAS reads a transposed one (X^T, X^H) in place
// through its transpose flag; a batch stride of 0 keeps one matrix,
// expanded. The planes are views of one scratch block.
struct Operand {
  at::Tensor core;  // the values split: t, t's first matrix, or a contiguous copy
  bool bcast, conj;
  int64_t offset;   // of its first plane in the scratch block (floats)
  int64_t plane;    // floats from each plane to the next (padded)
  at::Tensor re, im, sum;
  SumSq sq;         // sums of the squares of its real and imaginary parts
};

// Floats from one plane to the next in the scratch block: 64-byte aligned,
// and skewed by a page and a line, so that planes of power-of-two sizes do
// not start at addresses a large power of two apart (a GEMM reading two
// such planes at once contends for the same cache sets: 3-8 % slower at
// 1024^2 and 2048^2).
int64_t padded(int64_t n) { return (n + 15) / 16 * 16 + 1040; }

Operand operand(const at::Tensor& t) {
  Operand o;
  o.bcast = t.size(0) > 1 && t.stride(0) == 0;
  o.core = o.bcast ? t.narrow(0, 0, 1) : t;
  if (!o.core.is_non_overlapping_and_dense()) o.core = o.core.contiguous();
  o.conj = o.core.is_conj();  // the raw values of a conj view are unconjugated
  o.plane = padded(o.core.numel());
  return o;
}

void place(Operand& o, const at::Tensor& scratch, const at::Tensor& t) {
  at::Tensor* planes[3] = {&o.re, &o.im, &o.sum};
  for (int q = 0; q < 3; ++q) {
    auto v = scratch.as_strided(o.core.sizes(), o.core.strides(), o.offset + q * o.plane);
    *planes[q] = o.bcast ? v.expand(t.sizes()) : v;
  }
}

// out = x @ y (or out += x @ y) for float (nb, M, K) and (nb, K, N); a
// single matrix goes to mm, which calls the BLAS GEMM directly.
void real_product(at::Tensor out, const at::Tensor& x, const at::Tensor& y, bool add = false) {
  if (out.size(0) == 1) {
    auto o = out.select(0, 0);
    if (add)
      o.addmm_(x.select(0, 0), y.select(0, 0));
    else
      at::mm_out(o, x.select(0, 0), y.select(0, 0));
  } else if (add) {
    out.baddbmm_(x, y);
  } else {
    at::bmm_out(out, x, y);
  }
}

// Gauss's share: the scale of C's imaginary part over that of the sums
// Gauss's P3 forms, from the operands' norms (1/2 for balanced operands).
double imaginary_share(const SumSq& a, const SumSq& b) {
  const double ar = std::sqrt(a.re), ai = std::sqrt(a.im);
  const double br = std::sqrt(b.re), bi = std::sqrt(b.im);
  const double sums = (ar + ai) * (br + bi);
  return sums > 0 ? (ar * bi + ai * br) / sums : 1.0;
}

void gauss(const at::Tensor& a, const at::Tensor& b, at::Tensor& out) {
  const int64_t nb = a.size(0), M = a.size(1), N = b.size(2), MN = nb * M * N;
  Operand oa = operand(a), ob = operand(b);
  oa.offset = 0;
  ob.offset = 3 * oa.plane;
  const int64_t prods = ob.offset + 3 * ob.plane, prod = padded(MN);
  // one block for the six planes and the three products: from the output
  // cache when it is large, so that a repeated call faults in no fresh pages;
  // past the cache's bound, where it would be mapped fresh anyway, from
  // torch's allocator (the cache's fresh blocks are advised as huge pages,
  // whose faults measured slower and far more variable at 144 MiB)
  const int64_t floats = prods + 3 * prod;
  const auto fopts = a.options().dtype(at::kFloat);
  auto scratch = floats * 4 > output_cache_max_size() ? at::empty({floats}, fopts)
                                                      : new_output({floats}, fopts);
  place(oa, scratch, a);
  place(ob, scratch, b);
  float* base = scratch.data_ptr<float>();
  const int64_t na = oa.core.numel(), nt = na + ob.core.numel();
  const auto* srca = reinterpret_cast<const c10::Half*>(oa.core.data_ptr());
  const auto* srcb = reinterpret_cast<const c10::Half*>(ob.core.data_ptr());
  std::mutex lock;
  at::parallel_for(0, nt, int64_t{1} << 14, [&](int64_t lo, int64_t hi) {
    for (Operand* o : {&oa, &ob}) {  // [0, na) are a's values, [na, nt) b's
      const int64_t first = o == &oa ? 0 : na, last = o == &oa ? na : nt;
      const int64_t l = std::max(lo, first) - first, h = std::min(hi, last) - first;
      if (l >= h) continue;
      float* p = base + o->offset;
      SumSq sq;
      split3((o == &oa ? srca : srcb) + 2 * l, p + l, p + o->plane + l, p + 2 * o->plane + l,
             h - l, o->conj, sq);
      std::lock_guard<std::mutex> g(lock);
      o->sq.re += sq.re;
      o->sq.im += sq.im;
    }
  });
  const bool use_gauss = imaginary_share(oa.sq, ob.sq) >= kGaussMinShare;
  auto product = [&](int q) {
    return scratch.as_strided({nb, M, N}, {M * N, N, 1}, prods + q * prod);
  };
  real_product(product(0), oa.re, ob.re);
  real_product(product(1), oa.im, ob.im);
  if (use_gauss) {
    real_product(product(2), oa.sum, ob.sum);
  } else {
    real_product(product(2), oa.re, ob.im);
    real_product(product(2), oa.im, ob.re, /*add=*/true);
  }
  const float* P = base + prods;
  auto* C = reinterpret_cast<c10::Half*>(out.data_ptr());
  at::parallel_for(0, MN, int64_t{1} << 14, [&](int64_t lo, int64_t hi) {
    combine(P + lo, P + prod + lo, P + 2 * prod + lo, C + 2 * lo, hi - lo, use_gauss);
  });
}

at::Tensor complex_bmm_cpu(const at::Tensor& a, const at::Tensor& b) {
  matmul::check_bmm("bmm", a, b);
  if (a.scalar_type() != at::kComplexHalf) return at::bmm(a, b);
  const int64_t nb = a.size(0), M = a.size(1), K = a.size(2), N = b.size(2);
  auto out = new_output({nb, M, N}, a.options().dtype(at::kComplexHalf));
  if (out.numel() == 0) return out;
  if (K == 0) return out.fill_(0);
  if (M <= kSmallRows) {
    few_rows(a, b, out);
    return out;
  }
  gauss(a, b, out);
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
