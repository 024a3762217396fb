// FRAGMENT, not a header: lanes_impl.h includes it inside its instruction-set
// namespace (CX_NS), once per isa_*.cpp; include it nowhere else. No include
// guard, no includes of its own.
//
// Length 256 complex (and 512 even real) transforms one row at a time,
// vectorised along the row (16 lanes: AVX-512, or AVX2 as two halves;
// lane_rowvec.h): the commonest lengths of all
// (a 512-point STFT frame is a 256-point complex transform) skip the lane
// buffers altogether.
//
// Element m = 16*a + b of a row sits in vector a, lane b: the 16 vectors
// are 16 plain loads of the row. Then
//   DFT-16 down the vectors (a -> c, every lane b at once),
//   twiddle: vector c, lane b times exp(-2*pi*i*b*c/256),
//   16 x 16 transpose (vector b, lane c),
//   DFT-16 down the vectors (b -> d): vector d, lane c holds X[c + 16*d],
// so the result comes out in order, a vector per 16 adjacent outputs, and
// the row is only ever in registers and an L1-sized spill area. This is
// the plan's two radix-16 Stockham passes (same twiddles, same order of
// operations), laid out for one row instead of across rows: the lane
// engine moves every element through two buffers and two transposes of
// 16 rows, which costs more than the transform itself at this length.
// Included inside the ISA namespace of lanes_impl.h.

#if defined(CX_ROWS)
// ---- the steps every row kernel shares ------------------------------------
// v[c] times the twiddles (re, im)[16c .. 16c + 16) (vector c, lane b
// times w^(b*c)); c = 0 is all ones and returned as is.
CX_LANE_INLINE static cx<rv> row_twiddled(const cx<rv>* v, cx_i64 c, const float* re,
                                          const float* im) {
  if (c == 0) return v[0];
  return cx_mul(v[c], cx_make<rv>(rv_load(re + 16 * c), rv_load(im + 16 * c)));
}
// v[c] = row_twiddled(v, c, re, im) for 1 <= c < count, in place.
CX_LANE_INLINE static void row_twiddle(cx<rv>* v, cx_i64 count, const float* re, const float* im) {
  for (cx_i64 c = 1; c < count; ++c) v[c] = row_twiddled(v, c, re, im);
}

#if defined(CX_AVX2)
// Half h of x's lanes (lanes 8h .. 8h + 7): the AVX2 row kernels work one
// half of a row's lanes at a time.
CX_LANE_INLINE static vf& rv_half(rv& x, int h) { return h ? x.hi : x.lo; }
CX_LANE_INLINE static vf rv_half(const rv& x, int h) { return h ? x.hi : x.lo; }
#endif

// cx_dft16 down the 16 vectors of v, in place (X[u] to v[u]). On AVX2 one
// half of the lanes at a time, the halves being independent: 16 complex
// registers live instead of 32, as in the last step below.
CX_LANE_INLINE static void row_dft16(cx<rv>* v) {
#if defined(CX_AVX2)
#pragma GCC unroll 1
  for (int h = 0; h < 2; ++h) {
    vf r[16], i[16];
    for (int k = 0; k < 16; ++k) {
      r[k] = rv_half(v[k].re, h);
      i[k] = rv_half(v[k].im, h);
    }
    dft16_ri<vf, float>(r, i);  // X[u] at 4 (u % 4) + u / 4
    for (int u = 0; u < 16; ++u) {
      const int p = 4 * (u % 4) + u / 4;
      rv_half(v[u].re, h) = r[p];
      rv_half(v[u].im, h) = i[p];
    }
  }
#else
  cx_dft16<rv, float>(v);
#endif
}

// The last step: out[0..16) from vectors c < cnt of v (lane b; the rest
// taken as 0), transposed (vector b, lane c) and put through a DFT-16 down
// the vectors: out[d], lane c = sum_b v[c] lane b * w16^(b*d). v is read
// whole before out is written, so out may be v.
#if defined(CX_AVX2)
// The DFT-16 of one vector across its 16 lanes, x[b] in lane b: X[u] =
// sum_b x[b] w16^(b u) in every lane of (xr[u], xi[u]). As dft16_ri (4 x 4),
// but in one vector's lanes: the DFT-4 of x[j], x[j+4], x[j+8], x[j+12]
// from the halves' sum and difference and their 128-bit halves, the
// twiddles, and the DFT-4 across j within each 128-bit half. About 60
// operations against 250 for a half of the last step on transposes.
CX_LANE_INLINE static void row_lane_dft16(const cx<rv>& x, vf* xr, vf* xi) {
  const __m256 sr = (__m256)(x.re.lo + x.re.hi), si = (__m256)(x.im.lo + x.im.hi);
  const __m256 dr = (__m256)(x.re.lo - x.re.hi), di = (__m256)(x.im.lo - x.im.hi);
  // t0 | t1 (j = 0..3) and t2 | u, t0 = x[j] + x[j+8], t2 = x[j+4] + x[j+12],
  // t1 = x[j] - x[j+8], u = x[j+4] - x[j+12]; then t2 | -i u
  const __m256 lr = _mm256_permute2f128_ps(sr, dr, 0x20), li = _mm256_permute2f128_ps(si, di, 0x20);
  const __m256 hr = _mm256_permute2f128_ps(sr, dr, 0x31), hi = _mm256_permute2f128_ps(si, di, 0x31);
  const __m256 qr = _mm256_blend_ps(hr, hi, 0xf0), qi = _mm256_blend_ps(hi, (__m256)(-(vf)hr), 0xf0);
  // k1 = 0 | 1 and 2 | 3, times w16^(j k1)
  const float c = 0.92387953251128675613f, s = 0.38268343236508977173f,
              h = 0.70710678118654752440f;
  __m256 ar = lr + qr, ai = li + qi, br = lr - qr, bi = li - qi;
  {
    const vf wr = {1, 1, 1, 1, 1, c, h, s}, wi = {0, 0, 0, 0, 0, -s, -h, -c};
    const vf r = (vf)ar * wr - (vf)ai * wi, i = (vf)ar * wi + (vf)ai * wr;
    ar = (__m256)r;
    ai = (__m256)i;
  }
  {
    const vf wr = {1, h, 0, -h, 1, s, -h, -c}, wi = {0, -h, -1, -h, 0, -c, -h, s};
    const vf r = (vf)br * wr - (vf)bi * wi, i = (vf)br * wi + (vf)bi * wr;
    br = (__m256)r;
    bi = (__m256)i;
  }
  // the DFT-4 across lanes j of each 128-bit half: k2 in lane k2
  const vf pm = {1, 1, -1, -1, 1, 1, -1, -1};
  const auto dft4 = [&](__m256& zr, __m256& zi) {
    vf gr = (vf)_mm256_shuffle_ps(zr, zr, 0x44) + (vf)_mm256_shuffle_ps(zr, zr, 0xee) * pm;
    vf gi = (vf)_mm256_shuffle_ps(zi, zi, 0x44) + (vf)_mm256_shuffle_ps(zi, zi, 0xee) * pm;
    // g = s02, s13, d02, d13; lane 3 times -i
    const __m256 er = _mm256_blend_ps((__m256)gr, (__m256)gi, 0x88);
    const __m256 ei = _mm256_blend_ps((__m256)gi, (__m256)(-gr), 0x88);
    zr = (__m256)((vf)_mm256_shuffle_ps(er, er, 0x88) + (vf)_mm256_shuffle_ps(er, er, 0xdd) * pm);
    zi = (__m256)((vf)_mm256_shuffle_ps(ei, ei, 0x88) + (vf)_mm256_shuffle_ps(ei, ei, 0xdd) * pm);
  };
  dft4(ar, ai);
  dft4(br, bi);
  // X[k1 + 4 k2]: k1 = 0, 1 in a (lane 4 k1 + k2), k1 = 2, 3 in b
  for (int u = 0; u < 16; ++u) {
    const int k1 = u % 4, k2 = u / 4;
    const __m256i at = _mm256_set1_epi32(4 * (k1 & 1) + k2);
    xr[u] = (vf)_mm256_permutevar8x32_ps(k1 < 2 ? ar : br, at);
    xi[u] = (vf)_mm256_permutevar8x32_ps(k1 < 2 ? ai : bi, at);
  }
}

// AVX2: one half of the result at a time. Lanes 8h..8h+7 of the result are
// the 8 x 8 transposes of vectors 8h..8h+7 of v (their two halves one
// after the other), put through a DFT-16 of their own: 16 complex
// registers live instead of 32 (the whole-rv step spilled most of them).
// A second half with no column (cnt <= 8) is left out, and one with a
// single column (cnt = 9) takes that column's DFT across its lanes.
CX_LANE_INLINE static void row_last_step(const cx<rv>* v, int cnt, cx<rv>* out) {
  vf hr[2][16], hi[2][16];
  const vf zero = {};
  const int nh = cnt > 9 ? 2 : 1;
  for (int h = 0; h < nh; ++h) {
    vf* r = hr[h];
    vf* i = hi[h];
    for (int j = 0; j < 8; ++j) {
      const bool in = 8 * h + j < cnt;
      r[j] = in ? v[8 * h + j].re.lo : zero;
      r[8 + j] = in ? v[8 * h + j].re.hi : zero;
      i[j] = in ? v[8 * h + j].im.lo : zero;
      i[8 + j] = in ? v[8 * h + j].im.hi : zero;
    }
  }
#pragma GCC unroll 1
  for (int h = 0; h < nh; ++h) {
    vf* r = hr[h];
    vf* i = hi[h];
    transpose8_ps(r);
    transpose8_ps(r + 8);
    transpose8_ps(i);
    transpose8_ps(i + 8);
    dft16_ri<vf, float>(r, i);  // X[u] at 4 (u % 4) + u / 4
  }
  vf cr[16], ci[16];
  if (cnt == 9) row_lane_dft16(v[8], cr, ci);
  for (int u = 0; u < 16; ++u) {
    const int p = 4 * (u % 4) + u / 4;
    const vf r1 = cnt > 9 ? hr[1][p] : cnt == 9 ? cr[u] : zero;
    const vf i1 = cnt > 9 ? hi[1][p] : cnt == 9 ? ci[u] : zero;
    out[u] = cx_make<rv>(rv_make(hr[0][p], r1), rv_make(hi[0][p], i1));
  }
}
#else
CX_LANE_INLINE static void row_last_step(const cx<rv>* v, int cnt, cx<rv>* out) {
  rv re[16], im[16];
  for (int i = 0; i < 16; ++i) {
    re[i] = i < cnt ? v[i].re : (rv){};
    im[i] = i < cnt ? v[i].im : (rv){};
  }
  transpose16_ps(re);
  transpose16_ps(im);
  for (int i = 0; i < 16; ++i) out[i] = cx_make<rv>(re[i], im[i]);
  cx_dft16<rv, float>(out);
}
#endif

// A full block whose column c is get(c) (twiddled as the caller wants).
template <class G>
CX_LANE_INLINE static void row_last_step_full(G get, cx<rv>* out) {
  cx<rv> v[16];
  for (int c = 0; c < 16; ++c) v[c] = get(c);
  row_last_step(v, 16, out);
}

// What every row kernel needs of a job: fp32 compute, unit strides, no
// four-step twiddle and no output window.
static inline bool row_job_shape(const cx_axis_job* J) {
  return !J->large_fft && !J->row_tw && !J->win_out && J->in_stride == 1 && J->out_stride == 1 &&
         J->in_type != CX_F64 && J->out_type != CX_F64;
}

// The tables of one job, in vector layout; built once per call of the
// kernel (a few hundred scalar moves).
struct row256_tables {
  alignas(64) float twr[16][16], twi[16][16];  // [c][b] exp(-2*pi*i*b*c/256)
  // even real: [d][l] -i w512^k, k = 16d + l (re = Im w, im = -Re w)
  alignas(64) float rwr[16][16], rwi[16][16];
  // the window at the pairs' two scalars; for an even real job halved
  // (exact), or 1/2 with no window: the split's 1/2 taken on the load
  alignas(64) float win_re[16][16], win_im[16][16];
  // False unless J is a job this kernel does: fp32 compute, a plan of two
  // radix-16 passes (n = 256), unit strides, every output written.
  static bool accepts(const cx_axis_job* J) {
    if (!row_job_shape(J)) return false;
    const bool c2c = J->kind == CX_C2C && J->n == 256 && J->out_len == 256;
    const bool r2c = J->kind == CX_R2C && J->n == 512 && J->out_len == 257;
    if ((!c2c && !r2c) || J->in_len != J->n) return false;
    const cx_plan_desc<float>* p = (const cx_plan_desc<float>*)J->plan;
    if (p->bluestein || p->n != 256 || p->npasses != 2) return false;
    const cx_pass& a = p->passes[0];
    const cx_pass& b = p->passes[1];
    return a.radix == 16 && a.ns == 1 && b.radix == 16 && b.ns == 16;
  }
  bool init(const cx_axis_job* J) {
    if (!accepts(J)) return false;
    const bool c2c = J->kind == CX_C2C;
    const cx_plan_desc<float>* p = (const cx_plan_desc<float>*)J->plan;
    const cx_pass& b = p->passes[1];
    // pass b, step k: input r is multiplied by tw[k*15 + r - 1] = w256^(r*k)
    const cx<float>* tw = p->tw + b.tw;
    for (int c = 0; c < 16; ++c)
      for (int l = 0; l < 16; ++l) {
        twr[c][l] = c ? tw[l * 15 + c - 1].re : 1.0f;
        twi[c][l] = c ? tw[l * 15 + c - 1].im : 0.0f;
      }
    if (!c2c) {
      const cx<float>* w = (const cx<float>*)J->rtw;
      for (int k = 0; k < 256; ++k) {
        rwr[k >> 4][k & 15] = w[k].im;
        rwi[k >> 4][k & 15] = -w[k].re;
      }
    }
    const float* w = (const float*)J->win_in;
    if (w || !c2c)
      for (int m = 0; m < 256; ++m) {
        win_re[m >> 4][m & 15] = c2c ? w[m] : w ? 0.5f * w[2 * m] : 0.5f;
        win_im[m >> 4][m & 15] = c2c ? w[m] : w ? 0.5f * w[2 * m + 1] : 0.5f;
      }
    return true;
  }
};

// The 256-point DFT of v (element 16a+b in v[a], lane b), in place: on
// return v[d] lane c holds X[c + 16d].
static inline void row256_fft(cx<rv>* v, const row256_tables& T) {
  row_dft16(v);
  row_last_step_full([&](int c) { return row_twiddled(v, c, &T.twr[0][0], &T.twi[0][0]); }, v);
}

// Loads a row's 256 pairs, conjugated (c2c inverse) and windowed as asked.
template <class Ti>
CX_LANE_INLINE static void row256_load(const Ti* in, const row256_tables& T, bool conj, bool win,
                                       cx<rv>* v) {
  for (int a = 0; a < 16; ++a) {
    cx<rv> z = row_pairs<Ti>::load(in + 32 * a);
    if (conj) z.im = -z.im;
    if (win) {
      const rv wr = rv_load(T.win_re[a]), wi = rv_load(T.win_im[a]);
      z = cx_make<rv>(z.re * wr, z.im * wi);
    }
    v[a] = z;
  }
}

// Rows [r0, r1) of a job that row256_tables::init accepted.
template <class Ti, class To>
static void row256_run(const cx_axis_job* J, const row256_tables& T, cx_i64 r0, cx_i64 r1) {
  const Ti* in = (const Ti*)J->in;
  To* out = (To*)J->out;
  const bool c2c = J->kind == CX_C2C, win = J->win_in != 0 || !c2c, conj_in = J->conj_in != 0;
  const int cin = c2c ? 2 : 1;
  const float sc = (float)J->scale;
  const bool scaled = sc != 1.0f;
  row_cursor at(J, r0);
  for (cx_i64 r = r0; r < r1; ++r, at.next()) {
    const cx_i64 io = at.io, oo = at.oo;
    const Ti* x = in + io * cin;
    To* y = out + oo * 2;
    cx<rv> v[16];
    row256_load<Ti>(x, T, conj_in, win, v);
    row256_fft(v, T);
    if (c2c) {
      const float si = J->conj_out ? -sc : sc;
      for (int d = 0; d < 16; ++d) row_pairs<To>::store(y + 32 * d, cx_make<rv>(v[d].re * sc, v[d].im * si));
      continue;
    }
    // Even real: Z = v is the DFT of the pairs z[m] = x[2m] + i x[2m+1],
    // halved by the table's window. With x = Z[k], y = conj Z[256-k],
    // X[k] = (x + y) - i w^k (x - y): two sums, two differences and four
    // FMAs a vector (the 1/2 already in Z). Lane l of vector d is
    // k = 16d + l, and Z[256-k] is lane 0 of vector (16-d)%16 for l = 0,
    // else lane 16-l of vector 15-d.
    const float z0re = v[0].re[0], z0im = v[0].im[0];
#pragma GCC unroll 16
    for (int d = 0; d < 16; ++d) {
      const cx<rv>& A = v[(16 - d) & 15];
      const cx<rv>& B = v[15 - d];
      const rv pr = rv_mirror(A.re, B.re);
      const rv pi = rv_mirror(A.im, B.im);
      const rv wr = rv_load(T.rwr[d]), wi = rv_load(T.rwi[d]);
      const rv sr = v[d].re + pr, si = v[d].im - pi, dr = v[d].re - pr, di = v[d].im + pi;
      cx<rv> X = cx_make<rv>(sr + wr * dr - wi * di, si + wr * di + wi * dr);
      if (scaled) X = cx_scale(X, sc);
      row_pairs<To>::store(y + 32 * d, X);
    }
    st<float>(y + 512, 2.0f * (z0re - z0im) * sc);
    st<float>(y + 513, 0.0f);
  }
}

// Length 512 complex, the same way with 32 vectors: element 16a + b in
// vector a, lane b. The DFT-32 down the vectors is a DFT-16 of the even and
// of the odd vectors and a radix-2 step (twiddle w512^(16c)); then vector
// c, lane b times w512^(b*c); then, for each half c < 16 and c >= 16, a
// transpose and a DFT-16 down the vectors, vector d, lane c holding
// X[c + 32d]. Every twiddle is one of the plan's last pass (w512^k, k <
// 256, and its negation past 256), rounded once from double.
struct row512_tables {
  alignas(64) float twr[32][16], twi[32][16];  // [c][b] w512^(b*c)
  float hr[16], hi[16];                        // w512^(16c), c < 16
  static bool accepts(const cx_axis_job* J) {
    if (!row_job_shape(J) || J->win_in) return false;
    if (J->kind != CX_C2C || J->n != 512 || J->in_len != 512 || J->out_len != 512) return false;
    const cx_plan_desc<float>* p = (const cx_plan_desc<float>*)J->plan;
    if (p->bluestein || p->n != 512 || p->npasses != 3) return false;
    return p->passes[2].radix == 2 && p->passes[2].ns == 256;
  }
  bool init(const cx_axis_job* J) {
    if (!accepts(J)) return false;
    const cx_plan_desc<float>* p = (const cx_plan_desc<float>*)J->plan;
    const cx_pass& last = p->passes[2];
    const cx<float>* w = p->tw + last.tw;  // w[k] = w512^k, k < 256
    for (int c = 0; c < 32; ++c)
      for (int b = 0; b < 16; ++b) {
        const int k = (b * c) & 511;
        twr[c][b] = k < 256 ? w[k].re : -w[k - 256].re;
        twi[c][b] = k < 256 ? w[k].im : -w[k - 256].im;
      }
    for (int c = 0; c < 16; ++c) {
      hr[c] = w[16 * c].re;
      hi[c] = w[16 * c].im;
    }
    return true;
  }
};

template <class Ti, class To>
static void row512_run(const cx_axis_job* J, const row512_tables& T, cx_i64 r0, cx_i64 r1) {
  const Ti* in = (const Ti*)J->in;
  To* out = (To*)J->out;
  const float sc = (float)J->scale, si = J->conj_out ? -sc : sc;
  const bool conj = J->conj_in != 0;
  row_cursor at(J, r0);
  for (cx_i64 r = r0; r < r1; ++r, at.next()) {
    const cx_i64 io = at.io, oo = at.oo;
    const Ti* x = in + io * 2;
    To* y = out + oo * 2;
    cx<rv> e[16], o[16], a[32];
    for (int j = 0; j < 16; ++j) {
      e[j] = row_pairs<Ti>::load(x + 64 * j);
      o[j] = row_pairs<Ti>::load(x + 64 * j + 32);
      if (conj) {
        e[j].im = -e[j].im;
        o[j].im = -o[j].im;
      }
    }
#if defined(CX_AVX2)
    // one half of the lanes at a time, up to the last step
#pragma GCC unroll 1
    for (int h = 0; h < 2; ++h) {
      vf er[16], ei[16], qr[16], qi[16];
      for (int k = 0; k < 16; ++k) {
        er[k] = rv_half(e[k].re, h);
        ei[k] = rv_half(e[k].im, h);
        qr[k] = rv_half(o[k].re, h);
        qi[k] = rv_half(o[k].im, h);
      }
      dft16_ri<vf, float>(er, ei);  // X[c] at 4 (c % 4) + c / 4
      dft16_ri<vf, float>(qr, qi);
      for (int c = 0; c < 16; ++c) {
        const int p = 4 * (c % 4) + c / 4;
        vf tr = qr[p], ti = qi[p];
        if (c) mul_ri(tr, ti, T.hr[c], T.hi[c]);
        vf ar = er[p] + tr, ai = ei[p] + ti, br = er[p] - tr, bi = ei[p] - ti;
        if (c) mul_ri(ar, ai, (vf)_mm256_load_ps(T.twr[c] + 8 * h), (vf)_mm256_load_ps(T.twi[c] + 8 * h));
        mul_ri(br, bi, (vf)_mm256_load_ps(T.twr[c + 16] + 8 * h),
               (vf)_mm256_load_ps(T.twi[c + 16] + 8 * h));
        rv_half(a[c].re, h) = ar;
        rv_half(a[c].im, h) = ai;
        rv_half(a[c + 16].re, h) = br;
        rv_half(a[c + 16].im, h) = bi;
      }
    }
#else
    row_dft16(e);
    row_dft16(o);
    for (int c = 0; c < 16; ++c) {
      const cx<rv> t = c ? cx_mul(o[c], cx_make<float>(T.hr[c], T.hi[c])) : o[c];
      a[c] = e[c] + t;
      a[c + 16] = e[c] - t;
    }
    row_twiddle(a, 32, &T.twr[0][0], &T.twi[0][0]);
#endif
    for (int h = 0; h < 2; ++h) {
      cx<rv> v[16];
      row_last_step(a + 16 * h, 16, v);
      for (int d = 0; d < 16; ++d)
        row_pairs<To>::store(y + 64 * d + 32 * h, cx_make<rv>(v[d].re * sc, v[d].im * si));
    }
  }
}

// Runs rows [r0, r1) of J here if it is a job for these kernels.
static bool row256_job(const cx_axis_job* J, cx_i64 r0, cx_i64 r1) {
  {
    row512_tables T;
    if (T.init(J)) {
      with_fp32_storage(J, [&](auto in, auto out) {
        row512_run<typename decltype(in)::type, typename decltype(out)::type>(J, T, r0, r1);
      });
      return true;
    }
  }
  row256_tables T;
  if (!T.init(J)) return false;
  with_fp32_storage(J, [&](auto in, auto out) {
    row256_run<typename decltype(in)::type, typename decltype(out)::type>(J, T, r0, r1);
  });
  return true;
}
static bool row256_takes(const cx_axis_job* J) {
  return row512_tables::accepts(J) || row256_tables::accepts(J);
}
#else
static bool row256_takes(const cx_axis_job*) { return false; }
static bool row256_job(const cx_axis_job*, cx_i64, cx_i64) { return false; }
#endif
