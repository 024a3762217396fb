// FRAGMENT, not a header: lanes_impl.h includes it inside its instruction-set
// namespace (CX_NS), once per isa_*.cpp, before the row kernels
// (lane_row256.h, lane_rowm.h); include it nowhere else. No include guard,
// no includes of its own.
//
// The row kernels' vector: 16 floats, `rv`, and the few moves that need an
// instruction set (pairs of fp16/fp32 in memory <-> a vector of re and one
// of im, a 16 x 16 transpose, lane reversals). With these, the kernels
// are written once and CX_ROWS is defined.
//
// AVX-512: rv is the lane engine's own 16-float vector, one register.
// AVX2: rv is a pair of 8-float vectors (lanes 0-7, 8-15); every lane-wise
// operation runs on both halves, and the moves below work half by half.
// The 16-lane layout keeps the plans (d.row, d.row_re / row_im) the same
// for both instruction sets. With 16 registers instead of 32 the radix-16
// steps spill to L1 on AVX2, which costs less than the lane engine's
// staging (measured in docs/measurements.md).

#if defined(CX_AVX512)
#define CX_ROWS 1
typedef vf rv;

CX_LANE_INLINE static rv rv_load(const float* p) { return (rv)_mm512_loadu_ps(p); }
CX_LANE_INLINE static void rv_store(float* p, rv x) { _mm512_storeu_ps(p, (__m512)x); }
// lane l <- x[15 - l]
CX_LANE_INLINE static rv rv_reverse(rv x) {
  const __m512i rev = _mm512_setr_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  return (rv)_mm512_permutexvar_ps(rev, (__m512)x);
}
// lane 0 <- a[0], lane l >= 1 <- b[16 - l]
CX_LANE_INLINE static rv rv_mirror(rv a, rv b) {
  const __m512i rev = _mm512_setr_epi32(0, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17);
  return (rv)_mm512_permutex2var_ps((__m512)a, rev, (__m512)b);
}

// 16 complex values, as 16 pairs of scalars in memory.
template <class T> struct row_pairs;
// 16 pairs of floats as 16 re and 16 im: one two-source permute each.
CX_LANE_INLINE static cx<rv> row_deinterleave(__m512 lo, __m512 hi) {
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  return cx_make<rv>((rv)_mm512_permutex2var_ps(lo, even, hi), (rv)_mm512_permutex2var_ps(lo, odd, hi));
}
// fp16 pairs are converted from memory and the floats deinterleaved, and
// interleaved as floats and converted into memory: vcvtph2ps from memory
// and vcvtps2ph to memory each take one vector-port uop fewer than their
// register forms, which the word permute of pair_io::pack / unpack would
// add to (7 -> 6 uops a load, 7 -> 4 a store; measured on Sapphire Rapids).
// (Compilers keep an intrinsic's conversion and store apart, so the
// memory form is asked for in asm; round to nearest, no exceptions.)
// 16 floats to 16 halves at p.
CX_LANE_INLINE static void cvt_store_ph(cx_half_t* p, __m512 x) {
  __asm__("vcvtps2ph $8, %1, %0" : "=m"(*(cx_half_t(*)[16])p) : "v"(x));
}
// The first `words` of them only (a masked store).
CX_LANE_INLINE static void cvt_store_ph(cx_half_t* p, __m512 x, unsigned words) {
  if (words >= 16) return cvt_store_ph(p, x);
  if (!words) return;
  const __mmask16 k = (__mmask16)((1u << words) - 1);
  __asm__("vcvtps2ph $8, %1, %0%{%2%}" : "+m"(*(cx_half_t(*)[16])p) : "v"(x), "Yk"(k));
}
template <> struct row_pairs<cx_half_t> {
  CX_LANE_INLINE static cx<rv> load(const cx_half_t* p) {
    return row_deinterleave(_mm512_cvtph_ps(_mm256_loadu_si256((const __m256i*)p)),
                            _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i*)(p + 16))));
  }
  CX_LANE_INLINE static void store(cx_half_t* p, cx<rv> z) {
    __m512d lo, hi;
    pair_io<float, float, lanes_of<float> >::interleave(z, lo, hi);
    cvt_store_ph(p, _mm512_castpd_ps(lo));
    cvt_store_ph(p + 16, _mm512_castpd_ps(hi));
  }
};
template <> struct row_pairs<float> {
  CX_LANE_INLINE static cx<rv> load(const float* p) {
    return row_deinterleave(_mm512_loadu_ps(p), _mm512_loadu_ps(p + 16));
  }
  CX_LANE_INLINE static void store(float* p, cx<rv> z) {
    __m512d lo, hi;
    pair_io<float, float, lanes_of<float> >::interleave(z, lo, hi);
    _mm512_storeu_pd((double*)p, lo);
    _mm512_storeu_pd((double*)(p + 16), hi);
  }
};

// 16 pairs, the first cnt of them, to p.
template <class T> struct row_pairs_masked;
template <> struct row_pairs_masked<cx_half_t> {
  CX_LANE_INLINE static void store(cx_half_t* p, cx<rv> z, int cnt) {
    if (cnt == 16) return row_pairs<cx_half_t>::store(p, z);
    __m512d lo, hi;
    pair_io<float, float, lanes_of<float> >::interleave(z, lo, hi);
    cvt_store_ph(p, _mm512_castpd_ps(lo), 2 * (unsigned)(cnt < 8 ? cnt : 8));
    cvt_store_ph(p + 16, _mm512_castpd_ps(hi), 2 * (unsigned)(cnt > 8 ? cnt - 8 : 0));
  }
};
template <> struct row_pairs_masked<float> {
  CX_LANE_INLINE static void store(float* p, cx<rv> z, int cnt) {
    __m512d lo, hi;
    pair_io<float, float, lanes_of<float> >::interleave(z, lo, hi);
    if (cnt == 16) {
      _mm512_storeu_pd((double*)p, lo);
      _mm512_storeu_pd((double*)(p + 16), hi);
      return;
    }
    const unsigned m = (1u << cnt) - 1;
    _mm512_mask_storeu_pd((double*)p, (__mmask8)(m & 0xff), lo);
    _mm512_mask_storeu_pd((double*)(p + 16), (__mmask8)(m >> 8), hi);
  }
};

static inline void transpose16_ps(rv* v) {
  __m512i r[16];
  for (int i = 0; i < 16; ++i) r[i] = _mm512_castps_si512((__m512)v[i]);
  transpose16_epi32(r);
  for (int i = 0; i < 16; ++i) v[i] = (rv)_mm512_castsi512_ps(r[i]);
}

// 16 reals from p as fp32.
CX_LANE_INLINE static rv row_reals(const cx_half_t* p) {
  return (rv)_mm512_cvtph_ps(_mm256_loadu_si256((const __m256i*)p));
}
CX_LANE_INLINE static rv row_reals(const float* p) { return (rv)_mm512_loadu_ps(p); }

#elif defined(CX_AVX2)
#define CX_ROWS 1
// 16 lanes as two vectors of 8; element access for the few scalar reads.
struct rv {
  vf lo, hi;
  CX_LANE_INLINE float operator[](int i) const { return i < 8 ? lo[i] : hi[i - 8]; }
};
CX_LANE_INLINE static rv rv_make(vf lo, vf hi) {
  rv r;
  r.lo = lo;
  r.hi = hi;
  return r;
}
CX_LANE_INLINE static rv operator+(rv a, rv b) { return rv_make(a.lo + b.lo, a.hi + b.hi); }
CX_LANE_INLINE static rv operator-(rv a, rv b) { return rv_make(a.lo - b.lo, a.hi - b.hi); }
CX_LANE_INLINE static rv operator*(rv a, rv b) { return rv_make(a.lo * b.lo, a.hi * b.hi); }
CX_LANE_INLINE static rv operator-(rv a) { return rv_make(-a.lo, -a.hi); }
CX_LANE_INLINE static rv operator*(rv a, float s) { return rv_make(a.lo * s, a.hi * s); }
CX_LANE_INLINE static rv operator+(rv a, float s) { return rv_make(a.lo + s, a.hi + s); }

CX_LANE_INLINE static rv rv_load(const float* p) {
  return rv_make((vf)_mm256_loadu_ps(p), (vf)_mm256_loadu_ps(p + 8));
}
CX_LANE_INLINE static void rv_store(float* p, rv x) {
  _mm256_storeu_ps(p, (__m256)x.lo);
  _mm256_storeu_ps(p + 8, (__m256)x.hi);
}
// lane l <- x[7 - l] within 8 lanes
CX_LANE_INLINE static vf v8_reverse(vf x) {
  return (vf)_mm256_permutevar8x32_ps((__m256)x, _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0));
}
// lane l <- x[15 - l]
CX_LANE_INLINE static rv rv_reverse(rv x) { return rv_make(v8_reverse(x.hi), v8_reverse(x.lo)); }
// lane 0 <- a[0], lane l >= 1 <- b[16 - l]: with t(y) = (y0, y7, y6, ..., y1),
// lanes 0-7 are t(b.hi) with a[0] in lane 0, lanes 8-15 t(b.lo) with b[8].
CX_LANE_INLINE static rv rv_mirror(rv a, rv b) {
  const __m256i idx = _mm256_setr_epi32(0, 7, 6, 5, 4, 3, 2, 1);
  const __m256 th = _mm256_permutevar8x32_ps((__m256)b.hi, idx);
  const __m256 tl = _mm256_permutevar8x32_ps((__m256)b.lo, idx);
  return rv_make((vf)_mm256_blend_ps(th, (__m256)a.lo, 1), (vf)_mm256_blend_ps(tl, th, 1));
}

// 4 pairs in each of a, b -> the 8 re (im) in order: (re 0 1 | re 4 5 |
// re 2 3 | re 6 7) from one shuffle, put in order by one 64-bit permute.
CX_LANE_INLINE static vf v8_even(__m256 a, __m256 b) {
  return (vf)_mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(a, b, 0x88)), 0xD8));
}
CX_LANE_INLINE static vf v8_odd(__m256 a, __m256 b) {
  return (vf)_mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(a, b, 0xDD)), 0xD8));
}
// 16 pairs of floats, 4 to a vector, as 16 re and 16 im.
CX_LANE_INLINE static cx<rv> row_deinterleave(__m256 a0, __m256 a1, __m256 a2, __m256 a3) {
  return cx_make<rv>(rv_make(v8_even(a0, a1), v8_even(a2, a3)), rv_make(v8_odd(a0, a1), v8_odd(a2, a3)));
}
// 8 re and 8 im as 8 pairs: pairs 0-3 in o0, 4-7 in o1.
CX_LANE_INLINE static void v8_interleave(vf re, vf im, __m256& o0, __m256& o1) {
  const __m256 lo = _mm256_unpacklo_ps((__m256)re, (__m256)im);  // pairs 0 1 | 4 5
  const __m256 hi = _mm256_unpackhi_ps((__m256)re, (__m256)im);  // pairs 2 3 | 6 7
  o0 = _mm256_permute2f128_ps(lo, hi, 0x20);
  o1 = _mm256_permute2f128_ps(lo, hi, 0x31);
}
// z as 32 floats, pairs in order, in o[0..4).
CX_LANE_INLINE static void row_interleave(cx<rv> z, __m256* o) {
  v8_interleave(z.re.lo, z.im.lo, o[0], o[1]);
  v8_interleave(z.re.hi, z.im.hi, o[2], o[3]);
}
CX_LANE_INLINE static __m256 cvt_load_ph(const cx_half_t* p) {
  return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i*)p));
}
CX_LANE_INLINE static void cvt_store_ph(cx_half_t* p, __m256 x) {
  _mm_storeu_si128((__m128i*)p, _mm256_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}

template <class T> struct row_pairs;
template <> struct row_pairs<cx_half_t> {
  CX_LANE_INLINE static cx<rv> load(const cx_half_t* p) {
    return row_deinterleave(cvt_load_ph(p), cvt_load_ph(p + 8), cvt_load_ph(p + 16), cvt_load_ph(p + 24));
  }
  CX_LANE_INLINE static void store(cx_half_t* p, cx<rv> z) {
    __m256 o[4];
    row_interleave(z, o);
    for (int i = 0; i < 4; ++i) cvt_store_ph(p + 8 * i, o[i]);
  }
};
template <> struct row_pairs<float> {
  CX_LANE_INLINE static cx<rv> load(const float* p) {
    return row_deinterleave(_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8), _mm256_loadu_ps(p + 16),
                            _mm256_loadu_ps(p + 24));
  }
  CX_LANE_INLINE static void store(float* p, cx<rv> z) {
    __m256 o[4];
    row_interleave(z, o);
    for (int i = 0; i < 4; ++i) _mm256_storeu_ps(p + 8 * i, o[i]);
  }
};

// 16 pairs, the first cnt of them, to p (AVX2 has no masked fp16 store:
// the partial block, one per row at most, goes through a buffer).
template <class T> struct row_pairs_masked {
  CX_LANE_INLINE static void store(T* p, cx<rv> z, int cnt) {
    if (cnt == 16) return row_pairs<T>::store(p, z);
    alignas(32) T buf[32];
    row_pairs<T>::store(buf, z);
    for (int i = 0; i < 2 * cnt; ++i) p[i] = buf[i];
  }
};

// 16 x 16 as four 8 x 8 blocks: the off-diagonal blocks change places.
static inline void transpose16_ps(rv* v) {
  vf a[8], b[8], c[8], d[8];
  for (int i = 0; i < 8; ++i) {
    a[i] = v[i].lo;
    b[i] = v[i].hi;
    c[i] = v[8 + i].lo;
    d[i] = v[8 + i].hi;
  }
  transpose8_ps(a);
  transpose8_ps(b);
  transpose8_ps(c);
  transpose8_ps(d);
  for (int i = 0; i < 8; ++i) {
    v[i] = rv_make(a[i], c[i]);
    v[8 + i] = rv_make(b[i], d[i]);
  }
}

// 16 reals from p as fp32.
CX_LANE_INLINE static rv row_reals(const cx_half_t* p) {
  return rv_make((vf)cvt_load_ph(p), (vf)cvt_load_ph(p + 8));
}
CX_LANE_INLINE static rv row_reals(const float* p) { return rv_load(p); }
#endif
