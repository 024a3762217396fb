// FRAGMENT, not a header: lane_gather.h includes it inside the instruction-set
// namespace (CX_NS) of lanes_impl.h, in the AVX2 build only; include it
// nowhere else. No include guard, no includes of its own.
//
// lane_gather.h's pair moves with AVX2: runs of a row in vector moves and
// 8 x 8 transposes between rows and lanes, and plain vector moves where
// the rows' pairs are adjacent; single pairs lane by lane otherwise.

// In place: r[i] lane j becomes r[j] lane i, 8 x 8 (unpacks, shuffles, then
// 128-bit swaps: 24 shuffles).
CX_LANE_INLINE static void transpose8_ps(vf* r) {
  __m256 t[8], s[8];
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = _mm256_unpacklo_ps((__m256)r[2 * i], (__m256)r[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_ps((__m256)r[2 * i], (__m256)r[2 * i + 1]);
  }
  for (int i = 0; i < 2; ++i) {
    s[4 * i] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], 0x44);
    s[4 * i + 1] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], 0xEE);
    s[4 * i + 2] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x44);
    s[4 * i + 3] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0xEE);
  }
  for (int i = 0; i < 4; ++i) {
    r[i] = (vf)_mm256_permute2f128_ps(s[i], s[4 + i], 0x20);
    r[4 + i] = (vf)_mm256_permute2f128_ps(s[i], s[4 + i], 0x31);
  }
}

// 8 scalars of a row <-> fp32, the first `cnt` of them only (the rest read
// as 0, not written): AVX2 has masked fp32 moves but no fp16 ones, so a
// partial fp16 run goes through a buffer.
CX_LANE_INLINE static vf run8_load(const float* p, int cnt) {
  if (cnt >= 8) return (vf)_mm256_loadu_ps(p);
  const __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32(cnt), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  return (vf)_mm256_maskload_ps(p, m);
}
CX_LANE_INLINE static vf run8_load(const cx_half_t* p, int cnt) {
  if (cnt >= 8) return (vf)_mm256_cvtph_ps(_mm_loadu_si128((const __m128i*)p));
  alignas(16) cx_half_t b[8] = {};
  for (int i = 0; i < cnt; ++i) b[i] = p[i];
  return (vf)_mm256_cvtph_ps(_mm_load_si128((const __m128i*)b));
}
CX_LANE_INLINE static void run8_store(float* p, vf x, int cnt) {
  if (cnt >= 8) return _mm256_storeu_ps(p, (__m256)x);
  const __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32(cnt), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  _mm256_maskstore_ps(p, m, (__m256)x);
}
// 8 fp32 -> fp16, rounded to nearest even
CX_LANE_INLINE static __m128i cvt8_ph(vf x) {
  return _mm256_cvtps_ph((__m256)x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}
CX_LANE_INLINE static void run8_store(cx_half_t* p, vf x, int cnt) {
  const __m128i h = cvt8_ph(x);
  if (cnt >= 8) return _mm_storeu_si128((__m128i*)p, h);
  alignas(16) cx_half_t b[8];
  _mm_store_si128((__m128i*)b, h);
  for (int i = 0; i < cnt; ++i) p[i] = b[i];
}

// contig: the 8 rows' pairs are adjacent (lane l at off[0] + 2*l: a group
// of adjacent columns of a strided transform, e.g. the second pass of an
// fft2 or rfft2), so one or two plain vector moves take a pair of every row.
struct avx2_index {
  int contig = 0;
  void set(const cx_i64* off) {
    contig = 1;
    for (int l = 1; l < 8; ++l)
      if (off[l] != off[0] + 2 * l) contig = 0;
  }
};

// 8 adjacent pairs <-> their re and im parts (lo: pairs 0-3, hi: 4-7).
CX_LANE_INLINE static cx<vf> deinterleave8(__m256 lo, __m256 hi) {
  // [r0 r1 r4 r5 | r2 r3 r6 r7], the 64-bit halves then put in order
  const __m256 re = _mm256_shuffle_ps(lo, hi, 0x88), im = _mm256_shuffle_ps(lo, hi, 0xDD);
  return cx_make<vf>((vf)_mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(re), 0xD8)),
                     (vf)_mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(im), 0xD8)));
}
CX_LANE_INLINE static void interleave8(cx<vf> z, __m256& lo, __m256& hi) {
  const __m256 a = _mm256_unpacklo_ps((__m256)z.re, (__m256)z.im);  // pairs 0 1 | 4 5
  const __m256 b = _mm256_unpackhi_ps((__m256)z.re, (__m256)z.im);  // pairs 2 3 | 6 7
  lo = _mm256_permute2f128_ps(a, b, 0x20);
  hi = _mm256_permute2f128_ps(a, b, 0x31);
}

// z[0..c) (c <= 4 vectors of 8 rows) times (sr, si) part by part, then
// transposed: r[l] holds row l's pairs 0..c-1 as adjacent scalars, zeros
// after them.
CX_LANE_INLINE static void pack4_rows(const cx<vf>* z, int c, float sr, float si, vf* r) {
  for (int q = 0; q < 4; ++q) {
    r[2 * q] = q < c ? z[q].re * sr : (vf){};
    r[2 * q + 1] = q < c ? z[q].im * si : (vf){};
  }
  transpose8_ps(r);
}

// Runs of adjacent pairs of the 8 rows of a group, 4 pairs (8 scalars, one
// vector) of each row at a time and an 8 x 8 transpose between rows and
// lanes: vector 2q of the transpose holds pair q's re of every row, 2q + 1
// its im. The lane-by-lane moves they replace were a quarter of the lane
// engine's time (n = 1155: stage_in 9 %, the writer's flush 13 %).
template <class T>
struct pair_io<float, T, lanes_of<float> > : pair_io_lanewise<float, T, lanes_of<float> > {
  typedef vf V;
  typedef pair_io_lanewise<float, T, lanes_of<float> > base;
  typedef avx2_index index;
  // One pair of every row: two vector moves where the rows are adjacent
  // (a gather lane by lane otherwise; columns of 512 complex32, 8 adjacent
  // columns a group: see docs/measurements.md).
  CX_LANE_INLINE static cx<V> load(const T* p, const cx_i64* off, const index& ix) {
    if (!ix.contig) return base::load(p, off, typename base::index());
    const T* b = p + off[0];
    return deinterleave8((__m256)run8_load(b, 8), (__m256)run8_load(b + 8, 8));
  }
  CX_LANE_INLINE static void store(T* p, const cx_i64* off, const index& ix, int nl, cx<V> z) {
    if (!ix.contig) return base::store(p, off, typename base::index(), nl, z);
    __m256 lo, hi;
    interleave8(z, lo, hi);
    T* b = p + off[0];
    run8_store(b, (vf)lo, 2 * nl);
    if (nl > 4) run8_store(b + 8, (vf)hi, 2 * nl - 8);
  }
  // A group's stores at one offset: two vector moves where the rows are
  // adjacent (a strided c2c's columns: the stores were 27 % of fft(dim=1)
  // of (4, 512, 385) lane by lane), lane by lane otherwise. put_ahead
  // fetches the next group's 32 bytes at the same offset: the columns'
  // rows are too many streams for the hardware prefetcher. Into L2: the
  // next group stores there after a whole transform (512 rows: 32 KiB of
  // lines), by which time L1 has let them go (1 thread, the rfft2 of
  // (4, 512, 768) taking turns with ducc0's: 1.14-1.17 -> 1.18-1.20 x its
  // speed).
  struct sink {
    T* p;
    const cx_i64* off;
    const index* ix;
    int nl;
    sink(T* p_, const cx_i64* off_, const index& ix_, int nl_) : p(p_), off(off_), ix(&ix_), nl(nl_) {}
    CX_LANE_INLINE void put(cx_i64 s, cx<V> z) const { store(p + s, off, *ix, nl, z); }
    CX_LANE_INLINE void put_ahead(cx_i64 s, cx<V> z) const {
      put(s, z);
      if (ix->contig) __builtin_prefetch((const char*)(p + off[0] + s + 16), 1, 2);
    }
  };
  static void load_run(const T* p, const cx_i64* off, const index&, cx<V>* z, int count) {
    for (int j = 0; j < count; j += 4) {
      const int c = count - j < 4 ? count - j : 4;
      vf r[8];
      for (int l = 0; l < 8; ++l) r[l] = run8_load(p + off[l] + 2 * j, 2 * c);
      transpose8_ps(r);
      for (int q = 0; q < c; ++q) z[j + q] = cx_make<V>(r[2 * q], r[2 * q + 1]);
    }
  }
  static void store_run(T* p, const cx_i64* off, const index&, int nl, const cx<V>* z,
                        int count, float sr = 1, float si = 1) {
    int j0 = 0;
    if (sizeof(T) == 2)
      // fp16: 8 pairs of a row (32 bytes) a store, from two transposes.
      // With a 16-byte store per 4 pairs, the stores stalled on lines not
      // yet owned and took most of stage_out's samples (c2c 1000); half as
      // many stores measured 1.07-1.09 x at c2c 1000, 1155 and 2187.
      for (; count - j0 >= 8; j0 += 8) {
        vf r[8], u[8];
        pack4_rows(z + j0, 4, sr, si, r);
        pack4_rows(z + j0 + 4, 4, sr, si, u);
        for (int l = 0; l < nl; ++l)
          _mm256_storeu_si256((__m256i*)(p + off[l] + 2 * j0),
                              _mm256_set_m128i(cvt8_ph(u[l]), cvt8_ph(r[l])));
      }
    for (int j = j0; j < count; j += 4) {
      const int c = count - j < 4 ? count - j : 4;
      vf r[8];
      pack4_rows(z + j, c, sr, si, r);
      for (int l = 0; l < nl; ++l) run8_store(p + off[l] + 2 * j, r[l], 2 * c);
    }
  }
};
