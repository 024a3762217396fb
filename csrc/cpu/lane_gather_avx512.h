// FRAGMENT, not a header: lane_gather.h includes it inside the instruction-set
// namespace (CX_NS) of lanes_impl.h, in the AVX-512 build only; include it
// nowhere else. No include guard, no includes of its own.
//
// lane_gather.h's pair moves with AVX-512: gathers and scatters of whole
// pairs (a pair of fp16 one 32-bit element, of fp32 one 64-bit element),
// and plain vector moves where the rows' pairs are adjacent.

// Lane offsets relative to lane 0, in scalars, as gather indices (usable
// when they fit in int32).
// contig: the rows' pairs are adjacent (lane l at off[0] + 2*l), so one
// plain vector load or store moves them. split: otherwise, lanes [0, split)
// and [split, 16) are each adjacent (a group of rows that crosses from one
// batch entry to the next, e.g. the frames of two signals in an STFT): two
// masked moves instead of a gather or scatter.
struct avx512_index {
  __m512i idx;
  int ok;
  int contig;
  int split;
  void set(const cx_i64* off) {
    int tmp[16];
    ok = 1;
    contig = 1;
    split = 0;
    for (int l = 0; l < 16; ++l) {
      cx_i64 d = off[l] - off[0];
      if (d > 0x3fffffff || d < -0x3fffffff) ok = 0;
      if (d != 2 * l) contig = 0;
      tmp[l] = (int)d;
    }
    idx = _mm512_loadu_si512(tmp);
    if (contig) return;
    int s = 1;
    while (s < 16 && off[s] == off[0] + 2 * s) ++s;
    int t = s + 1;
    while (t < 16 && off[t] == off[s] + 2 * (t - s)) ++t;
    if (t == 16) split = s;
  }
  __mmask16 low() const { return (__mmask16)((1u << split) - 1); }
};

// The rows of a group as both AVX-512 sinks below store to them: from p
// (lane 0's row) the lanes in m0, from p + hi the lanes in m1 (split); fast
// unless a gather or scatter is needed; ahead where the next group's rows
// follow these (contig), so that its stores can be fetched ahead.
template <class T>
struct avx512_sink_rows {
  T* p;
  cx_i64 hi;
  unsigned m0, m1;
  const cx_i64* off;
  const avx512_index* ix;
  int nl, fast, ahead;
  avx512_sink_rows(T* p_, const cx_i64* off_, const avx512_index& ix_, int nl_)
      : p(p_ + off_[0]), hi(0), m0((1u << nl_) - 1), m1(0), off(off_), ix(&ix_), nl(nl_),
        fast(ix_.ok && (ix_.contig || ix_.split)), ahead(ix_.ok && ix_.contig) {
    if (fast && !ix_.contig) {
      const unsigned m = m0;
      m0 = m & ix_.low();
      m1 = m & ~(unsigned)ix_.low();
      hi = off_[ix_.split] - 2 * ix_.split - off_[0];
    }
  }
};

// In place: r[i] lane j becomes r[j] lane i (a 16 x 16 transpose of 32-bit
// elements: 32-bit, 64-bit, then two 128-bit interleaves; 64 shuffles, no
// memory round trip).
static inline void transpose16_epi32(__m512i* r) {
  __m512i t[16];
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
  }
  // s[4i+j], 128-bit lane L: column 4L+j of rows 4i..4i+3
  for (int i = 0; i < 4; ++i) {
    r[4 * i] = _mm512_unpacklo_epi64(t[4 * i], t[4 * i + 2]);
    r[4 * i + 1] = _mm512_unpackhi_epi64(t[4 * i], t[4 * i + 2]);
    r[4 * i + 2] = _mm512_unpacklo_epi64(t[4 * i + 1], t[4 * i + 3]);
    r[4 * i + 3] = _mm512_unpackhi_epi64(t[4 * i + 1], t[4 * i + 3]);
  }
  // column 4L+j takes 128-bit lane L of s[j], s[4+j], s[8+j], s[12+j]
  for (int j = 0; j < 4; ++j) {
    const __m512i u0 = _mm512_shuffle_i32x4(r[j], r[4 + j], 0x44);
    const __m512i u1 = _mm512_shuffle_i32x4(r[j], r[4 + j], 0xEE);
    const __m512i u2 = _mm512_shuffle_i32x4(r[8 + j], r[12 + j], 0x44);
    const __m512i u3 = _mm512_shuffle_i32x4(r[8 + j], r[12 + j], 0xEE);
    t[j] = _mm512_shuffle_i32x4(u0, u2, 0x88);
    t[4 + j] = _mm512_shuffle_i32x4(u0, u2, 0xDD);
    t[8 + j] = _mm512_shuffle_i32x4(u1, u3, 0x88);
    t[12 + j] = _mm512_shuffle_i32x4(u1, u3, 0xDD);
  }
  for (int i = 0; i < 16; ++i) r[i] = t[i];
}

// In place: r[i] element j becomes r[j] element i (an 8 x 8 transpose of
// 64-bit elements: 24 shuffles).
static inline void transpose8_pd(__m512d* r) {
  __m512d u[8], v[8];
  for (int i = 0; i < 4; ++i) {
    u[2 * i] = _mm512_unpacklo_pd(r[2 * i], r[2 * i + 1]);
    u[2 * i + 1] = _mm512_unpackhi_pd(r[2 * i], r[2 * i + 1]);
  }
  // v[0]: columns 0 and 4 of rows 0-3; v[1]: 2, 6; v[2]: 1, 5; v[3]: 3, 7
  for (int h = 0; h < 2; ++h) {
    v[4 * h] = _mm512_shuffle_f64x2(u[4 * h], u[4 * h + 2], 0x88);
    v[4 * h + 1] = _mm512_shuffle_f64x2(u[4 * h], u[4 * h + 2], 0xDD);
    v[4 * h + 2] = _mm512_shuffle_f64x2(u[4 * h + 1], u[4 * h + 3], 0x88);
    v[4 * h + 3] = _mm512_shuffle_f64x2(u[4 * h + 1], u[4 * h + 3], 0xDD);
  }
  r[0] = _mm512_shuffle_f64x2(v[0], v[4], 0x88);
  r[4] = _mm512_shuffle_f64x2(v[0], v[4], 0xDD);
  r[2] = _mm512_shuffle_f64x2(v[1], v[5], 0x88);
  r[6] = _mm512_shuffle_f64x2(v[1], v[5], 0xDD);
  r[1] = _mm512_shuffle_f64x2(v[2], v[6], 0x88);
  r[5] = _mm512_shuffle_f64x2(v[2], v[6], 0xDD);
  r[3] = _mm512_shuffle_f64x2(v[3], v[7], 0x88);
  r[7] = _mm512_shuffle_f64x2(v[3], v[7], 0xDD);
}

template <>
struct pair_io<float, cx_half_t, lanes_of<float> > {
  typedef vf V;
  typedef avx512_index index;
  typedef pair_io<float, cx_half_t, one_lane<float> > scalar;
  // 16 fp16 pairs (re, im) <-> 16 re then 16 im: one word permute each way.
  CX_LANE_INLINE static cx<V> unpack(__m512i v) {
    const __m512i sep = _mm512_set_epi16(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3,
                                         1, 30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4,
                                         2, 0);
    const __m512i u = _mm512_permutexvar_epi16(sep, v);
    return cx_make<V>((V)_mm512_cvtph_ps(_mm512_castsi512_si256(u)),
                      (V)_mm512_cvtph_ps(_mm512_extracti64x4_epi64(u, 1)));
  }
  CX_LANE_INLINE static __m512i pack(cx<V> z) {
    const int rn = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
    const __m512i mix = _mm512_set_epi16(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9,
                                         24, 8, 23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1,
                                         16, 0);
    const __m512i u = _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtps_ph((__m512)z.re, rn)),
                                         _mm512_cvtps_ph((__m512)z.im, rn), 1);
    return _mm512_permutexvar_epi16(mix, u);
  }
  CX_LANE_INLINE static cx<V> load(const cx_half_t* p, const cx_i64* off, const index& ix) {
    if (!ix.ok) return slow_load(p, off);
    __m512i v;
    if (ix.contig) v = _mm512_loadu_si512(p + off[0]);
    else if (ix.split)
      v = _mm512_mask_loadu_epi32(_mm512_maskz_loadu_epi32(ix.low(), p + off[0]),
                                  (__mmask16)~ix.low(), p + off[ix.split] - 2 * ix.split);
    else v = _mm512_i32gather_epi32(ix.idx, p + off[0], 2);
    return unpack(v);
  }
  // See the generic sink. Adjacent rows (contig) and two runs of adjacent
  // rows (split) are both one or two masked stores of the packed vector.
  struct sink : avx512_sink_rows<cx_half_t> {
    using avx512_sink_rows<cx_half_t>::avx512_sink_rows;
    CX_LANE_INLINE void put(cx_i64 s, cx<V> z) const {
      if (!fast) return store(p - off[0] + s, off, *ix, nl, z);
      const __m512i v = pack(z);
      _mm512_mask_storeu_epi32(p + s, (__mmask16)m0, v);
      if (m1) _mm512_mask_storeu_epi32(p + hi + s, (__mmask16)m1, v);
    }
    CX_LANE_INLINE void put_ahead(cx_i64 s, cx<V> z) const {
      put(s, z);
      // this store covers bytes [0, 64) from p + s; the next group's, [64, 128)
      if (ahead) __builtin_prefetch((const char*)(p + s) + 127, 1, 3);
    }
  };
  CX_LANE_INLINE static void store(cx_half_t* p, const cx_i64* off, const index& ix, int nl,
                                   cx<V> z) {
    if (!ix.ok) return slow_store(p, off, nl, z);
    const __m512i v = pack(z);
    const __mmask16 m = (__mmask16)((1u << nl) - 1);
    if (ix.contig) {
      _mm512_mask_storeu_epi32(p + off[0], m, v);
    } else if (ix.split) {
      _mm512_mask_storeu_epi32(p + off[0], m & ix.low(), v);
      _mm512_mask_storeu_epi32(p + off[ix.split] - 2 * ix.split, m & ~ix.low(), v);
    } else {
      _mm512_mask_i32scatter_epi32(p + off[0], m, ix.idx, v, 2);
    }
  }
  // Runs of 16 pairs of each row move a cache line at a time: one load
  // (store) per row and a register transpose between rows and lanes. Timed
  // on 16 rows x 1024 in L2: loads 3.0 us against 4.4 us with a gather per
  // pair; stores 2.4 us against 3.7-5.0 us through an L1 tile and gathers.
  static void load_run(const cx_half_t* p, const cx_i64* off, const index& ix, cx<V>* z,
                       int count) {
    __m512i r[16];
    const __mmask16 m = (__mmask16)((1u << count) - 1);
    for (int l = 0; l < 16; ++l) r[l] = _mm512_maskz_loadu_epi32(m, p + off[l]);
    transpose16_epi32(r);
    for (int j = 0; j < count; ++j) z[j] = unpack(r[j]);
    (void)ix;
  }
  static void store_run(cx_half_t* p, const cx_i64* off, const index& ix, int nl, const cx<V>* z,
                        int count, float sr = 1, float si = 1) {
    __m512i r[16];
    for (int j = 0; j < count; ++j) r[j] = pack(cx_make<V>(z[j].re * sr, z[j].im * si));
    for (int j = count; j < 16; ++j) r[j] = _mm512_setzero_si512();
    transpose16_epi32(r);
    const __mmask16 m = (__mmask16)((1u << count) - 1);
    for (int l = 0; l < nl; ++l) _mm512_mask_storeu_epi32(p + off[l], m, r[l]);
    (void)ix;
  }
  __attribute__((noinline)) static cx<V> slow_load(const cx_half_t* p, const cx_i64* off) {
    cx<V> z;
    for (int l = 0; l < 16; ++l) {
      z.re[l] = cx_half_to_float(p[off[l]]);
      z.im[l] = cx_half_to_float(p[off[l] + 1]);
    }
    return z;
  }
  __attribute__((noinline)) static void slow_store(cx_half_t* p, const cx_i64* off, int nl,
                                                  cx<V> z) {
    for (int l = 0; l < nl; ++l) {
      p[off[l]] = cx_float_to_half(z.re[l]);
      p[off[l] + 1] = cx_float_to_half(z.im[l]);
    }
  }
};

template <>
struct pair_io<float, float, lanes_of<float> > {
  typedef vf V;
  typedef avx512_index index;
  CX_LANE_INLINE static cx<V> load(const float* p, const cx_i64* off, const index& ix) {
    if (!ix.ok) {
      cx<V> z;
      for (int l = 0; l < 16; ++l) {
        z.re[l] = p[off[l]];
        z.im[l] = p[off[l] + 1];
      }
      return z;
    }
    const float* b = p + off[0];
    __m512 lo, hi;
    if (ix.contig) {
      lo = _mm512_loadu_ps(b);
      hi = _mm512_loadu_ps(b + 16);
    } else {
      lo = _mm512_castpd_ps(_mm512_i32gather_pd(_mm512_castsi512_si256(ix.idx), b, 4));
      hi = _mm512_castpd_ps(_mm512_i32gather_pd(_mm512_extracti64x4_epi64(ix.idx, 1), b, 4));
    }
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    return cx_make<V>((V)_mm512_permutex2var_ps(lo, even, hi), (V)_mm512_permutex2var_ps(lo, odd, hi));
  }
  // z as its (re, im) pairs: lanes 0-7 in lo, 8-15 in hi, a pair per double.
  CX_LANE_INLINE static void interleave(cx<V> z, __m512d& lo, __m512d& hi) {
    const __m512i a = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    const __m512i b = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
    lo = _mm512_castps_pd(_mm512_permutex2var_ps((__m512)z.re, a, (__m512)z.im));
    hi = _mm512_castps_pd(_mm512_permutex2var_ps((__m512)z.re, b, (__m512)z.im));
  }
  CX_LANE_INLINE static void store(float* p, const cx_i64* off, const index& ix, int nl, cx<V> z) {
    if (!ix.ok) {
      for (int l = 0; l < nl; ++l) {
        p[off[l]] = z.re[l];
        p[off[l] + 1] = z.im[l];
      }
      return;
    }
    __m512d lo, hi;
    interleave(z, lo, hi);
    const unsigned m = (1u << nl) - 1;
    float* base = p + off[0];
    if (ix.contig) {
      _mm512_mask_storeu_pd(base, (__mmask8)(m & 0xff), lo);
      _mm512_mask_storeu_pd(base + 16, (__mmask8)(m >> 8), hi);
      return;
    }
    _mm512_mask_i32scatter_pd(base, (__mmask8)(m & 0xff), _mm512_castsi512_si256(ix.idx), lo, 4);
    _mm512_mask_i32scatter_pd(base, (__mmask8)(m >> 8), _mm512_extracti64x4_epi64(ix.idx, 1), hi, 4);
  }
  // See the generic sink: adjacent rows (contig) and two runs of adjacent
  // rows (split) as masked stores of the interleaved pairs.
  struct sink : avx512_sink_rows<float> {
    using avx512_sink_rows<float>::avx512_sink_rows;
    CX_LANE_INLINE void put(cx_i64 s, cx<V> z) const {
      if (!fast) return store(p - off[0] + s, off, *ix, nl, z);
      __m512d lo, up;
      interleave(z, lo, up);
      _mm512_mask_storeu_pd(p + s, (__mmask8)(m0 & 0xff), lo);
      _mm512_mask_storeu_pd(p + s + 16, (__mmask8)(m0 >> 8), up);
      if (m1) {
        _mm512_mask_storeu_pd(p + hi + s, (__mmask8)(m1 & 0xff), lo);
        _mm512_mask_storeu_pd(p + hi + s + 16, (__mmask8)(m1 >> 8), up);
      }
    }
    CX_LANE_INLINE void put_ahead(cx_i64 s, cx<V> z) const {
      put(s, z);
      // this store covers bytes [0, 128) from p + s; the next group's, [128, 256)
      if (ahead) {
        __builtin_prefetch((const char*)(p + s) + 191, 1, 3);
        __builtin_prefetch((const char*)(p + s) + 255, 1, 3);
      }
    }
  };
  // Runs of 16 (re, im) pairs of each row: two loads per row, then 8 x 8
  // transposes of the pairs (64-bit elements) between rows and lanes, and
  // re/im split per lane vector, instead of two 8-pair gathers per pair.
  static void load_run(const float* p, const cx_i64* off, const index& ix, cx<V>* z, int count) {
    const __mmask8 mlo = (__mmask8)(count >= 8 ? 0xff : (1u << count) - 1);
    const __mmask8 mhi = (__mmask8)(count <= 8 ? 0 : (1u << (count - 8)) - 1);
    __m512d r[4][8];  // [row block * 2 + pair block][row within block]
    for (int l = 0; l < 16; ++l) {
      const double* q = (const double*)(p + off[l]);
      r[(l >> 3) * 2][l & 7] = _mm512_maskz_loadu_pd(mlo, q);
      r[(l >> 3) * 2 + 1][l & 7] = _mm512_maskz_loadu_pd(mhi, q + 8);
    }
    for (int b = 0; b < 4; ++b) transpose8_pd(r[b]);
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    for (int j = 0; j < count; ++j) {
      const __m512 lo = _mm512_castpd_ps(r[j >> 3][j & 7]);       // rows 0-7
      const __m512 hi = _mm512_castpd_ps(r[2 + (j >> 3)][j & 7]); // rows 8-15
      z[j] = cx_make<V>((V)_mm512_permutex2var_ps(lo, even, hi),
                        (V)_mm512_permutex2var_ps(lo, odd, hi));
    }
    (void)ix;
  }
  static void store_run(float* p, const cx_i64* off, const index& ix, int nl, const cx<V>* z,
                        int count, float sr = 1, float si = 1) {
    alignas(64) double tile[16][16];  // a (re, im) fp32 pair per double
    for (int j = 0; j < count; ++j) {
      __m512d lo, hi;
      interleave(cx_make<V>(z[j].re * sr, z[j].im * si), lo, hi);
      _mm512_store_pd(&tile[j][0], lo);
      _mm512_store_pd(&tile[j][8], hi);
    }
    const __m256i col = _mm256_setr_epi32(0, 16, 32, 48, 64, 80, 96, 112);
    const unsigned m = (1u << count) - 1;
    for (int l = 0; l < nl; ++l) {
      __m512d lo = _mm512_mask_i32gather_pd(_mm512_setzero_pd(), (__mmask8)(m & 0xff), col, &tile[0][l], 8);
      __m512d hi = _mm512_mask_i32gather_pd(_mm512_setzero_pd(), (__mmask8)(m >> 8), col, &tile[8][l], 8);
      _mm512_mask_storeu_pd(p + off[l], (__mmask8)(m & 0xff), lo);
      _mm512_mask_storeu_pd(p + off[l] + 16, (__mmask8)(m >> 8), hi);
    }
    (void)ix;
  }
};
