// FRAGMENT, not a header: lanes_impl.h includes it inside its instruction-set
// namespace (CX_NS), once per isa_*.cpp; include it nowhere else. No include
// guard, no includes of its own.
//
// Bluestein on the lane engine, and fft_any, the transform a group of lanes
// runs: a plan's Stockham passes, Bluestein around its inner plan, or the
// split that runs Bluestein transforms of a factor as its first pass.
// Included after the passes (pass_fixed, stockham, with_smooth_radix).

// Bluestein's first pass of its forward transform (ns = 1, no twiddles):
// x[k * xs] times pre[k] for k < lim, zero from lim on (xs = 1 unless
// STRIDED). The chirp and the zero padding then cost no sweep of their own;
// the filter rides on the middle pass (pass_middle_times).
template <int R, bool STRIDED, class V, class S>
static void pass_first_times(const cx<V>* __restrict x, cx_i64 xs, cx<V>* __restrict y,
                             cx_i64 m, const cx<S>* tw, const cx<S>* pre, cx_i64 lim) {
  const cx_i64 q = m / R;
  const V zero = {};
  for (cx_i64 j = 0; j < q; ++j) {
    cx<V> v[R];
    for (int r = 0; r < R; ++r) {
      const cx_i64 k = j + r * q;
      v[r] = k < lim ? cx_mul(x[STRIDED ? k * xs : k], pre[k]) : cx_make<V>(zero, zero);
    }
    dft_fixed<R, V, S>(v, tw);
    for (int r = 0; r < R; ++r) y[j * R + r] = v[r];
  }
}

// Bluestein's last pass of the inverse transform (ns = m / R): only the
// outputs k < lim, each conjugated and times post[k].
template <int R, class V, class S>
static void pass_last_times(const cx<V>* __restrict x, cx<V>* __restrict y, cx_i64 m,
                            const cx<S>* tw, const cx<S>* post, cx_i64 lim) {
  const cx_i64 ns = m / R;
  for (cx_i64 k = 0; k < ns; ++k) {
    cx<V> v[R];
    for (int r = 0; r < R; ++r) v[r] = x[k + r * ns];
    cx_apply_twiddles<V, S>(v, R, tw + k * (R - 1));
    dft_fixed<R, V, S>(v, tw);
    for (int r = 0; r < R; ++r) {
      const cx_i64 o = k + r * ns;
      if (o < lim) y[o] = cx_mul(cx_conj(v[r]), post[o]);
    }
  }
}

// The middle of a cyclic convolution, in one sweep: the forward
// transform's last pass (radix R at ns = m / R, twiddles tw), the products
// with the filter, conjugated, and the first pass of the transform back
// (radix R at ns = 1, the inner plan's back: fill_back in
// plan_convolution.cpp), whose step k reads the outputs k + r m / R that
// the forward pass's step k leaves. Where dc is given, the forward
// transform's output 0 goes there (Rader's sum of its inputs). One store of
// the m vectors where the two passes took two.
template <int R, class V, class S>
static void pass_middle_times(const cx<V>* __restrict x, cx<V>* __restrict y, cx_i64 m,
                              const cx<S>* tw, const cx<S>* filter, cx<V>* dc) {
  const cx_i64 q = m / R;
  for (cx_i64 k = 0; k < q; ++k) {
    cx<V> v[R];
    for (int r = 0; r < R; ++r) v[r] = x[k + r * q];
    cx_apply_twiddles<V, S>(v, R, tw + k * (R - 1));
    dft_fixed<R, V, S>(v, nullptr);
    if (dc && k == 0) *dc = v[0];
    for (int r = 0; r < R; ++r) v[r] = cx_conj(cx_mul(v[r], filter[k + r * q]));
    dft_fixed<R, V, S>(v, nullptr);
    for (int r = 0; r < R; ++r) y[k * R + r] = v[r];
  }
}

// The forward transform of a cyclic convolution from pass `first` on (its
// earlier passes done, their result in u), its middle (pass_middle_times),
// and the passes 1 to last - 1 of the transform back (p->back; last = -1:
// to its end), in the two buffers u and w of the inner plan p's length;
// returns the one, u or w, that holds the result.
template <class V, class S>
static cx<V>* convolve_middle(const cx_plan_desc<S>* p, cx<V>* u, cx<V>* w, int first, int last,
                              const cx<S>* filter, cx<V>* dc) {
  const cx_plan_desc<S>* bk = p->back;
  const int np = p->npasses;
  cx<V>* r = stockham<V, S>(p, u, w, first, np - 1);
  cx<V>* o = r == u ? w : u;
  const cx_pass& pl = p->passes[np - 1];
  with_smooth_radix(pl.radix, [&](auto R) {
    pass_middle_times<decltype(R)::value, V, S>(r, o, p->n, p->tw + pl.tw, filter, dc);
  });
  return stockham<V, S>(bk, o, r, 1, last);
}

// Two levels (p->bluestein == 3, m = R * m2, fill_blocked_bluestein): the
// forward transform's first pass is a decimation in frequency,
//   u_k1[i2] = w_m^(i2 k1) * DFT_R(a[i2 + m2 i1], over i1)[k1],
// after which X[k1 + R k2] = DFT_m2(u_k1)[k2]: R rows of m2 vectors, each
// small enough to stay in L2 while it is transformed, multiplied by the
// filter (stored in that order) and transformed back. The inverse's last
// pass, a decimation in time, joins them:
//   z[j2 + m2 j1] = DFT_R(w_m^(j2 k1) * s_k1[j2], over k1)[j1],
// so only these two passes sweep the m-vector buffers (pass_dif_times,
// pass_dit_last_times), where one transform of m sweeps them once a pass.
template <int R, bool STRIDED, class V, class S>
static void pass_dif_times(const cx<V>* __restrict x, cx_i64 xs, cx<V>* __restrict y, cx_i64 m2,
                           const cx<S>* tw, const cx<S>* pre, cx_i64 lim) {
  const V zero = {};
  for (cx_i64 i2 = 0; i2 < m2; ++i2) {
    cx<V> v[R];
    for (int r = 0; r < R; ++r) {
      const cx_i64 k = i2 + r * m2;
      v[r] = k < lim ? cx_mul(x[STRIDED ? k * xs : k], pre[k]) : cx_make<V>(zero, zero);
    }
    dft_fixed<R, V, S>(v, nullptr);
    cx_apply_twiddles<V, S>(v, R, tw + i2 * (R - 1));
    for (int r = 0; r < R; ++r) y[r * m2 + i2] = v[r];
  }
}

template <int R, class V, class S>
static void pass_dit_last_times(const cx<V>* __restrict s, cx<V>* __restrict y, cx_i64 m2,
                                const cx<S>* tw, const cx<S>* post, cx_i64 lim) {
  for (cx_i64 j2 = 0; j2 < m2; ++j2) {
    cx<V> v[R];
    for (int r = 0; r < R; ++r) v[r] = s[r * m2 + j2];
    cx_apply_twiddles<V, S>(v, R, tw + j2 * (R - 1));
    dft_fixed<R, V, S>(v, nullptr);
    for (int r = 0; r < R; ++r) {
      const cx_i64 o = j2 + r * m2;
      if (o < lim) y[o] = cx_mul(cx_conj(v[r]), post[o]);
    }
  }
}

// bluestein() in two levels (above): p the blocked cut, p->inner the plan
// of m2, p->filter the filter at [k1 m2 + k2] = filter[k1 + R k2], p->tw
// w_m^(i2 k1) at [i2 (R - 1) + k1 - 1]. Same buffers and result as bluestein().
template <bool STRIDED, class V, class S>
static cx<V>* bluestein_blocked(const cx_plan_desc<S>* p, const cx<V>* x, cx_i64 xs, cx<V>* a,
                                cx<V>* b, cx<V>* y) {
  const cx_plan_desc<S>* in = p->inner;
  const cx_i64 n = p->n, m2 = in->n;
  const int R = p->passes[0].radix;
  with_smooth_radix(R, [&](auto r) {
    pass_dif_times<decltype(r)::value, STRIDED, V, S>(x, xs, b, m2, p->tw, p->chirp, n);
  });
  cx<V>* s = b;
  for (int k1 = 0; k1 < R; ++k1) {
    cx<V>* u = b + k1 * m2;
    cx<V>* w = a + k1 * m2;
    s = convolve_middle<V, S>(in, u, w, 0, -1, p->filter + k1 * m2, nullptr) == u ? b : a;
  }
  cx<V>* t = y ? y : s == b ? a : b;
  with_smooth_radix(R, [&](auto r) {
    pass_dit_last_times<decltype(r)::value, V, S>(s, t, m2, p->tw, p->chirp, n);
  });
  return t;
}

// Rader (p->bluestein == 4, the lane cut of a prime n whose n - 1 the
// passes take, fill_rader): with g a generator mod n and L = n - 1,
//   X[0] = x[0] + sum_r a[r],  X[g^-q] = x[0] + c[q],  q < L,
//   c = a (*) b, the cyclic convolution of a[r] = x[g^r] and b[s] = w_n^(g^-s),
// done as in Bluestein with two transforms of L instead of m >= 2n - 1:
//   A = DFT(a),  c = conj(DFT(conj(A * F))),  F = DFT(b) / L (p->filter),
// and sum_r a[r] = A[0]. The input order rides on the first pass's reads,
// the output order and x[0] on the last pass's stores (p->perm_in,
// p->perm_out). Same buffers and result as bluestein().
template <int R, bool STRIDED, class V, class S>
static void pass_first_perm(const cx<V>* __restrict x, cx_i64 xs, cx<V>* __restrict y, cx_i64 L,
                            const int* perm) {
  const cx_i64 q = L / R;
  for (cx_i64 j = 0; j < q; ++j) {
    cx<V> v[R];
    for (int r = 0; r < R; ++r) {
      const cx_i64 k = perm[j + r * q];
      v[r] = x[STRIDED ? k * xs : k];
    }
    dft_fixed<R, V, S>(v, nullptr);
    for (int r = 0; r < R; ++r) y[j * R + r] = v[r];
  }
}

template <int R, class V, class S>
static void pass_last_perm(const cx<V>* __restrict s, cx<V>* __restrict y, cx_i64 L,
                           const cx<S>* tw, const int* perm, cx<V> x0) {
  const cx_i64 ns = L / R;
  for (cx_i64 k = 0; k < ns; ++k) {
    cx<V> v[R];
    for (int r = 0; r < R; ++r) v[r] = s[k + r * ns];
    cx_apply_twiddles<V, S>(v, R, tw + k * (R - 1));
    dft_fixed<R, V, S>(v, nullptr);
    for (int r = 0; r < R; ++r) y[perm[k + r * ns]] = cx_conj(v[r]) + x0;
  }
}

template <bool STRIDED, class V, class S>
static cx<V>* rader(const cx_plan_desc<S>* p, const cx<V>* x, cx_i64 xs, cx<V>* a, cx<V>* b,
                    cx<V>* y) {
  const cx_plan_desc<S>* in = p->inner;
  const cx_plan_desc<S>* bk = in->back;
  const cx_i64 L = in->n;
  const int np = in->npasses;
  const cx_pass &p0 = in->passes[0], &pl = bk->passes[np - 1];
  const cx<S>* twl = bk->tw + pl.tw;
  const cx<V> x0 = x[0];
  with_smooth_radix(p0.radix, [&](auto R) {
    pass_first_perm<decltype(R)::value, STRIDED, V, S>(x, xs, b, L, p->perm_in);
  });
  cx<V> dc;
  cx<V>* s = convolve_middle<V, S>(in, b, a, 1, np - 1, p->filter, &dc);
  const cx<V> sum = x0 + dc;
  cx<V>* t = y ? y : s == a ? b : a;
  with_smooth_radix(pl.radix, [&](auto R) {
    pass_last_perm<decltype(R)::value, V, S>(s, t, L, twl, p->perm_out, x0);
  });
  t[0] = sum;
  return t;
}

// Bluestein (p->bluestein == 1) wraps a cyclic convolution of length m
// around the inner Stockham plan:
//   a = x * chirp, zero-padded to m;  A = DFT(a) * filter
//   X = chirp * conj(DFT(conj(A)))    (an inverse DFT by conjugation)
// The chirp products ride on the first and last passes (pass_first_times,
// pass_last_times), and the inverse's last pass stores only the n outputs:
// four sweeps of the m-vector buffers fewer (AVX2, 1 thread, m = 8640 with
// 8 rows a group, 553 KiB a buffer, beyond L2: 4099 1.07 x, 2053 1.05 x,
// 6126 1.07 x, 10007 1.11 x, rfft 6126 1.08 x). The filter rides on the
// middle pass (pass_middle_times, convolve_middle), one sweep fewer again;
// its back plan (d.back) is the inner plan's. fill_bluestein checks that
// the inner plan has the shape this needs: two passes or more, each of a
// radix with_smooth_radix takes (m is 2,3,5-smooth).
//
// The input is x[k * xs], k < n (STRIDED; else xs = 1), which a and b
// (m vectors each) may overlap only as x == a. The result goes to y[0, n)
// when y is given, else to a or b, whichever the passes end in; returns
// where it went.
template <bool STRIDED, class V, class S>
static cx<V>* bluestein(const cx_plan_desc<S>* p, const cx<V>* x, cx_i64 xs, cx<V>* a,
                        cx<V>* b, cx<V>* y) {
  if (p->lane && p->lane->bluestein == 4) return rader<STRIDED, V, S>(p->lane, x, xs, a, b, y);
  if (p->lane) return bluestein_blocked<STRIDED, V, S>(p->lane, x, xs, a, b, y);
  const cx_i64 n = p->n, m = p->m;
  const cx_plan_desc<S>* in = p->inner;
  const int np = in->npasses;
  const cx_pass &p0 = in->passes[0], &pl = in->back->passes[np - 1];
  const cx<S>*tw0 = in->tw + p0.tw, *twl = in->back->tw + pl.tw;
  with_smooth_radix(p0.radix, [&](auto R) {
    pass_first_times<decltype(R)::value, STRIDED, V, S>(x, xs, b, m, tw0, p->chirp, n);
  });
  cx<V>* s = convolve_middle<V, S>(in, b, a, 1, np - 1, p->filter, nullptr);
  cx<V>* t = y ? y : s == a ? b : a;
  with_smooth_radix(pl.radix, [&](auto R) {
    pass_last_times<decltype(R)::value, V, S>(s, t, m, twl, p->chirp, n);
  });
  return t;
}

// Any plan. A split Bluestein plan (p->bluestein == 2, the lane cut of a
// Bluestein plan, fill_split_bluestein) has n = c * q, c 13-smooth and q
// not: its first pass, of radix q (ns = 1, no twiddles), is c Bluestein
// transforms of q (p->inner) of the decimated rows x[j + c k], each in
// scratch past the n vectors of a and b, and its other passes are c's.
template <class V, class S>
static cx<V>* fft_any(const cx_plan_desc<S>* p, cx<V>* a, cx<V>* b) {
  if (!p->bluestein) return stockham<V, S>(p->lane ? p->lane : p, a, b);
  if (!p->lane || p->lane->bluestein != 2) return bluestein<false, V, S>(p, a, 1, a, b, nullptr);
  p = p->lane;
  const cx_plan_desc<S>* bq = p->inner;
  const cx_i64 n = p->n, q = bq->n, c = n / q;
  cx<V>* sa = a + n + CX_LANE_SKEW;
  cx<V>* sb = b + n + CX_LANE_SKEW;
  for (cx_i64 j = 0; j < c; ++j) bluestein<true, V, S>(bq, a + j, c, sa, sb, b + j * q);
  return stockham<V, S>(p, b, a, 1);
}
