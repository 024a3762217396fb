// FRAGMENT, not a header: lanes_impl.h includes it inside its instruction-set
// namespace (CX_NS), once per isa_*.cpp; include it nowhere else. No include
// guard, no includes of its own.
//
// Rows staged one at a time (lengths too long for lane buffers, see
// lanes_impl.h): runs of reals converted between memory and the compute
// type, and the even real transforms' post-process and fold, W bins at a
// time in vectors. Done one scalar bin at a time they took longer than the
// transform itself. Included inside the ISA namespace of lanes_impl.h,
// after lane_gather.h; no standard or torch headers.

// ---- runs of reals in memory <-> the compute type --------------------------
template <class S> static inline void put_reals(const S* a, S* y, cx_i64 n) {
  for (cx_i64 u = 0; u < n; ++u) y[u] = a[u];
}
static inline void put_reals(const double* a, float* y, cx_i64 n) {
  for (cx_i64 u = 0; u < n; ++u) y[u] = (float)a[u];
}
static inline void put_reals(const float* a, double* y, cx_i64 n) {
  for (cx_i64 u = 0; u < n; ++u) y[u] = a[u];
}
template <class S> static inline void put_reals(const S* a, cx_half_t* y, cx_i64 n) {
  cx_i64 u = 0;
#if defined(CX_F16C)
  if (sizeof(S) == 4)
    for (; u + 8 <= n; u += 8)
      _mm_storeu_si128((__m128i*)(y + u),
                       _mm256_cvtps_ph(_mm256_loadu_ps((const float*)a + u),
                                       _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
#endif
  for (; u < n; ++u) st<S>(y + u, a[u]);
}

template <class S> static inline void get_reals(const S* x, S* a, cx_i64 n) {
  for (cx_i64 u = 0; u < n; ++u) a[u] = x[u];
}
static inline void get_reals(const float* x, double* a, cx_i64 n) {
  for (cx_i64 u = 0; u < n; ++u) a[u] = x[u];
}
static inline void get_reals(const double* x, float* a, cx_i64 n) {
  for (cx_i64 u = 0; u < n; ++u) a[u] = (float)x[u];
}
template <class S> static inline void get_reals(const cx_half_t* x, S* a, cx_i64 n) {
  cx_i64 u = 0;
#if defined(CX_F16C)
  if (sizeof(S) == 4)
    for (; u + 8 <= n; u += 8)
      _mm256_storeu_ps((float*)a + u, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i*)(x + u))));
#endif
  for (; u < n; ++u) a[u] = ld<S>(x + u);
}

// n pairs z[k] scaled by (sre, sim) into out (adjacent pairs), a run at a
// time: a staged complex row's store, scaled and perhaps conjugated.
template <class S, class To>
static void put_scaled_pairs(const cx<S>* z, cx_i64 n, S sre, S sim, To* out) {
  alignas(64) S buf[256];
  for (cx_i64 k = 0; k < n; k += 128) {
    const cx_i64 c = n - k < 128 ? n - k : 128;
    for (cx_i64 j = 0; j < c; ++j) {
      buf[2 * j] = z[k + j].re * sre;
      buf[2 * j + 1] = z[k + j].im * sim;
    }
    put_reals(buf, out + 2 * k, 2 * c);
  }
}

template <bool C, class A, class B> struct conditional_int { typedef A type; };
template <class A, class B> struct conditional_int<false, A, B> { typedef B type; };

// W adjacent (re, im) pairs in memory <-> a vector of re and one of im.
template <class S>
struct pair_runs {
  typedef typename lanes_of<S>::V V;
  enum { W = lanes_of<S>::W };
  typedef int IS __attribute__((mode(SI)));
  typedef long long IL;
  typedef typename conditional_int<sizeof(S) == 4, IS, IL>::type I;
  typedef I M __attribute__((vector_size(sizeof(V))));
  M even, odd, reven, rodd, mlo, mhi;
  pair_runs() {
    for (int l = 0; l < W; ++l) {
      even[l] = 2 * l;
      odd[l] = 2 * l + 1;
      reven[l] = 2 * (W - 1 - l);
      rodd[l] = 2 * (W - 1 - l) + 1;
      mlo[l] = (l % 2 ? W : 0) + l / 2;
      mhi[l] = (l % 2 ? W : 0) + W / 2 + l / 2;
    }
  }
  // pairs p[0..W) -> re[l], im[l] = pair l (reversed: pair W-1-l)
  void split(const S* p, V& re, V& im, bool reversed = false) const {
    V a, b;
    __builtin_memcpy(&a, p, sizeof(V));
    __builtin_memcpy(&b, p + W, sizeof(V));
    re = __builtin_shuffle(a, b, reversed ? reven : even);
    im = __builtin_shuffle(a, b, reversed ? rodd : odd);
  }
  void join(V re, V im, S* p) const {
    const V lo = __builtin_shuffle(re, im, mlo), hi = __builtin_shuffle(re, im, mhi);
    __builtin_memcpy(p, &lo, sizeof(V));
    __builtin_memcpy(p + W, &hi, sizeof(V));
  }
};

// One bin of an even real transform's post-process,
//   half * ((x + y) - i w (x - y)),  x = Z[k], y = conj Z[h-k], w = w^k,
// for x, y vectors and w a complex of vectors or of scalars. Where the
// build has no FMA (the portable lanes on x86-64), each product and sum
// of it rounds in fp32 once more than with FMA, and an rfft's error came
// out 3-5 % above torch's (n = 200, 400, 1024 in float32; torch's real
// transforms take no post-process); there (isa_generic.cpp defines
// CX_POST_IN_DOUBLE) a float bin is formed in double and rounded once.
// Elsewhere it is the same expression in the same type.
template <class V> struct post_type {
  typedef V T;
  static V to(V v) { return v; }
  static V back(T v) { return v; }
};
#ifdef CX_POST_IN_DOUBLE
template <> struct post_type<vf> {
  typedef double T __attribute__((vector_size(2 * sizeof(vf))));
  static T to(vf v) { return __builtin_convertvector(v, T); }
  static vf back(T v) { return __builtin_convertvector(v, vf); }
};
template <> struct post_type<one_lane<float>::V> {
  typedef one_lane<float>::V V;
  typedef double T __attribute__((vector_size(sizeof(double))));
  static T to(V v) { return __builtin_convertvector(v, T); }
  static V back(T v) { return __builtin_convertvector(v, V); }
};
#endif
template <class V, class WT, class S>
CX_LANE_INLINE static cx<V> r2c_bin(const cx<V>& x, const cx<V>& y, const cx<WT>& w, S half) {
  typedef post_type<V> P;
  typedef typename P::T T;
  const T xr = P::to(x.re), xi = P::to(x.im), yr = P::to(y.re), yi = P::to(y.im);
  const T wr = P::to((V){} + w.re), wi = P::to((V){} + w.im);
  const T ar = xr + yr, ai = xi + yi, dr = xr - yr, di = xi - yi;
  const T br = dr * wr - di * wi, bi = dr * wi + di * wr;
  const T hv = (T){} + half;
  return cx_make<V>(P::back((ar + bi) * hv), P::back((ai - br) * hv));
}

// The post-process of an even real transform for one staged row whose bins
// are adjacent in memory: X[k] = half*((x + y) - i*w^k*(x - y)), x = Z[k],
// y = conj Z[h-k], for k in [k0, k1) with 1 <= k0, k1 <= h.
template <class S, class To>
static void r2c_post_row(const cx<S>* Z, const cx<S>* w, cx_i64 h, cx_i64 k0, cx_i64 k1, S half,
                         To* out) {
  typedef typename pair_runs<S>::V V;
  enum { W = pair_runs<S>::W };
  const pair_runs<S> P;
  alignas(64) S buf[2 * W];
  const S* z = (const S*)Z;
  const S* ws = (const S*)w;
  cx_i64 k = k0;
  for (; k + W <= k1; k += W) {
    V xr, xi, yr, yi, wr, wi;
    P.split(z + 2 * k, xr, xi);
    P.split(z + 2 * (h - k - (W - 1)), yr, yi, true);  // the partners, reversed
    yi = -yi;
    P.split(ws + 2 * k, wr, wi);
    const cx<V> X = r2c_bin(cx_make<V>(xr, xi), cx_make<V>(yr, yi), cx_make<V>(wr, wi), half);
    P.join(X.re, X.im, buf);
    put_reals(buf, out + 2 * k, 2 * W);
  }
  typedef typename one_lane<S>::V V1;
  for (; k < k1; ++k) {
    const cx<S> x = Z[k], y = cx_conj(Z[h - k]);
    const cx<V1> X = r2c_bin(cx_make<V1>((V1){x.re}, (V1){x.im}),
                             cx_make<V1>((V1){y.re}, (V1){y.im}), w[k], half);
    buf[0] = X.re[0];
    buf[1] = X.im[0];
    put_reals(buf, out + 2 * k, 2);
  }
}

// The fold of an even inverse real transform for one staged row whose bins
// are adjacent in memory: a[k] = conj((x + y) + i*conj(w^k)*(x - y)),
// x = X[k], y = conj X[h-k], for k in [k0, k1), 1 <= k0, k1 <= h.
template <class S, class Ti>
static void c2r_pre_row(const Ti* X, const cx<S>* w, cx_i64 h, cx_i64 k0, cx_i64 k1, cx<S>* a) {
  typedef typename pair_runs<S>::V V;
  enum { W = pair_runs<S>::W };
  const pair_runs<S> P;
  alignas(64) S bx[2 * W], by[2 * W];
  const S* ws = (const S*)w;
  S* as = (S*)a;
  cx_i64 k = k0;
  for (; k + W <= k1; k += W) {
    get_reals(X + 2 * k, bx, 2 * W);
    get_reals(X + 2 * (h - k - (W - 1)), by, 2 * W);  // the partners, reversed
    V xr, xi, yr, yi, wr, wi;
    P.split(bx, xr, xi);
    P.split(by, yr, yi, true);
    yi = -yi;
    P.split(ws + 2 * k, wr, wi);
    const V sr = xr + yr, si = xi + yi, dr = xr - yr, di = xi - yi;
    const V er = dr * wr + di * wi, ei = di * wr - dr * wi;  // d * conj(w)
    P.join(sr - ei, -(si + er), as + 2 * k);                 // conj(s + i*e)
  }
  for (; k < k1; ++k) {
    S b[4];
    get_reals(X + 2 * k, b, 2);
    get_reals(X + 2 * (h - k), b + 2, 2);
    const cx<S> x = cx_make<S>(b[0], b[1]), y = cx_make<S>(b[2], -b[3]);
    a[k] = cx_conj((x + y) + cx_mul_i(cx_mul_conj(x - y, w[k])));
  }
}
