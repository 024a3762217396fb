// FRAGMENT, not a header: lanes_impl.h includes it inside its instruction-set
// namespace (CX_NS), once per isa_*.cpp; include it nowhere else. No include
// guard, no includes of its own.
//
// A group of the lane engine: W rows of one job gathered into the lanes of
// a buffer (stage_in: element k of every row one vector, fp16 widened, the
// input window and conjugation applied; an even real row packed as a
// complex row of half its length, odd real rows two to a lane, c2r's half
// spectrum folded) and scattered back from the transform's result
// (stage_out: scaled, windowed, the real post-process, the four-step row
// twiddle, stores in runs of 16 pairs, straight or through run_writer).
// run_typed in lanes_impl.h drives it around fft_any. Included after the
// passes (pass_fixed, stockham, fft_any) and the pair moves (lane_gather.h,
// lane_rows.h).

// ---- one group of W rows ---------------------------------------------------
template <class S, class Ti, class To, class L>
struct group {
  typedef typename L::V V;
  enum { W = L::W };
  typedef pair_io<S, Ti, L> in_io;
  typedef pair_io<S, To, L> out_io;
  const cx_axis_job* J;
  cx_i64 ioff[W];  // offsets of each lane's row, in scalars of Ti / To
  cx_i64 ooff[W];
  typename in_io::index iidx;
  typename out_io::index oidx;
  // J's pointers and strides, held here: the compiler cannot tell that the
  // output stores leave *J alone and would reload them for every element.
  const Ti* in;
  To* out;
  cx_i64 in_stride, out_stride;
  cx_i64 row0;
  int nl;          // lanes holding a real row (the rest repeat the last)
  // Odd real transforms take two rows a lane (paired): rows g + 2l (ioff,
  // ooff) and g + 2l + 1 (ioff2, ooff2) as the real and imaginary parts of
  // one complex row, split after the transform. nl2: lanes with a second
  // row (a prefix); the others read their first row again, times im_on = 0.
  bool paired;
  int nl2;
  // How far ahead the paired rows are fetched, in reals read and in bins
  // written. rfft, AVX-512, one thread, 4 Mi values a call, time with the
  // fetches : without: 2187 0.75, 1155 0.93, 2053 0.94, 4099 0.93, 10007
  // 0.88; AVX2 (16 streams) 0.97-0.99. The same fetches on the 16 streams
  // of c2c measured nothing (1.00 at 4099, 2187, 1024).
  static constexpr cx_i64 kPairedAhead = 512, kPairedOutAhead = 32;
  cx_i64 ioff2[W], ooff2[W];
  typename out_io::index oidx2;
  typename in_io::index iidx2;
  V im_on;

  // Rows a group takes: W, or 2W when paired.
  static bool pairs_rows(const cx_axis_job* J) {
    return W > 1 && J->kind == CX_R2C && J->n % 2 == 1;
  }

  void locate(cx_i64 g, cx_i64 nrows) {
    in = (const Ti*)J->in;
    out = (To*)J->out;
    in_stride = J->in_stride;
    out_stride = J->out_stride;
    row0 = g;
    paired = pairs_rows(J);
    const int cin = J->kind == CX_R2C ? 1 : 2, cout = J->kind == CX_C2R ? 1 : 2;
    row_cursor at(J, g);  // lanes past nl repeat the last row
    if (paired) {
      const cx_i64 rows = nrows - g < 2 * W ? nrows - g : 2 * W;
      nl = (int)((rows + 1) / 2);
      nl2 = (int)(rows / 2);
      for (int l = 0; l < W; ++l) {
        ioff[l] = at.io * cin;
        ooff[l] = at.oo * cout;
        if (l < nl2) at.next();
        ioff2[l] = at.io * cin;
        ooff2[l] = at.oo * cout;
        im_on[l] = l < nl2 ? (S)1 : (S)0;
        if (l + 1 < nl) at.next();
      }
      oidx2.set(ooff2);
      iidx2.set(ioff2);
    } else {
      nl = (int)(nrows - g < W ? nrows - g : W);
      for (int l = 0; l < W; ++l) {
        ioff[l] = at.io * cin;
        ooff[l] = at.oo * cout;
        if (l + 1 < nl) at.next();
      }
    }
    iidx.set(ioff);
    oidx.set(ooff);
  }
  // The pair of scalars at scalar offset s of each lane's row.
  cx<V> load2(cx_i64 s) const { return in_io::load(in + s, ioff, iidx); }
  void store2(cx_i64 s, cx<V> z) const { out_io::store(out + s, ooff, oidx, nl, z); }
  cx<V> load_c(cx_i64 k) const { return load2(k * in_stride * 2); }
  // Writes pairs k = 0, 1, 2, ... in order (scalar offset 2*k*step): when
  // the pairs of a row are adjacent they go out in runs of 16, gathered in
  // the caller's buf. Otherwise each pair is a store of its own, through a
  // sink. Every member function is inlined and buf is not a member, so
  // the writer's address never escapes and count and k0 stay in registers.
  // With buf a member and flush out of line, count went through memory on
  // every pair, a store-to-load chain in the loop of every staged output
  // (AVX2, 1 thread, whole transforms: c2c 1000 1.12 x, 1155 1.08 x,
  // 2187 1.05 x; rfft 1155 1.08 x, 2187 1.04 x). Fetching the output lines
  // ahead as well measured nothing.
  struct run_writer {
    const group* G;
    cx_i64 step, k0;
    int count;
    typename out_io::sink o;
    cx<V>* buf;
    const cx_i64* off;
    const typename out_io::index* idx;
    int n_l;
    // buf: 16 pairs; second: the paired rows' second set (ooff2)
    run_writer(const group* g, cx<V>* buf_, cx_i64 step_, bool second = false)
        : G(g), step(step_), k0(0), count(0),
          o(g->out, second ? g->ooff2 : g->ooff, second ? g->oidx2 : g->oidx,
            second ? g->nl2 : g->nl),
          buf(buf_), off(second ? g->ooff2 : g->ooff), idx(second ? &g->oidx2 : &g->oidx),
          n_l(second ? g->nl2 : g->nl) {}
    // inlined: a call per element passed the pair of vectors on the stack
    CX_LANE_INLINE void put(cx<V> z) {
      if (step != 1) {
        o.put_ahead(2 * k0 * step, z);
        ++k0;
        return;
      }
      buf[count++] = z;
      if (count == 16) flush();
    }
    CX_LANE_INLINE void flush() {
      if (count && n_l) out_io::store_run(G->out + 2 * k0, off, *idx, n_l, buf, count);
      k0 += count;
      count = 0;
    }
    CX_LANE_INLINE ~run_writer() { flush(); }
  };
  void store_c(cx_i64 k, cx<V> z) const { store2(k * out_stride * 2, z); }
  V load_r(cx_i64 k) const {
    const cx_i64 s = k * in_stride;
    V z;
    for (int l = 0; l < W; ++l) z[l] = ld<S>(in + ioff[l] + s);
    return z;
  }
  V load_r2(cx_i64 k) const {
    const cx_i64 s = k * in_stride;
    V z;
    for (int l = 0; l < W; ++l) z[l] = ld<S>(in + ioff2[l] + s);
    return z;
  }
  void store_r(cx_i64 k, V z) const {
    const cx_i64 s = k * out_stride;
    for (int l = 0; l < nl; ++l) st<S>(out + ooff[l] + s, z[l]);
  }

  // Stage the input rows into a as the complex sequence to transform.
  void stage_in(cx<V>* a) const {
    const cx_i64 n = J->n, h = n / 2;
    const S* wi = (const S*)J->win_in;
    V zero = {};
    if (J->kind == CX_C2C) {
      // A long stride defeats the hardware prefetcher (a new page every few
      // elements): fetch kAhead elements ahead for the first and last lane,
      // which covers every lane when they are adjacent. 24 rather than 8
      // (the loads wait on L3 or memory): fft(dim=1) of (4, 512, 385)
      // complex32 0.95 x the time at 1 thread, 0.91 x at 2.
      const bool far = in_stride * 2 * (cx_i64)sizeof(Ti) >= 256;
      const cx_i64 kAhead = 24;
      if (in_stride == 1 && W == 1) {
        // one staged row: converted as a run of reals
        get_reals(in + ioff[0], (S*)a, 2 * n);
        if (J->conj_in || wi)
          for (cx_i64 k = 0; k < n; ++k) {
            if (J->conj_in) a[k] = cx_conj(a[k]);
            if (wi) a[k] = cx_scale(a[k], wi[k]);
          }
        return;
      }
      if (in_stride == 1) {
        // adjacent pairs: runs of 16 per row
        for (cx_i64 k = 0; k < n; k += 16) {
          const int c = (int)(n - k < 16 ? n - k : 16);
          in_io::load_run(in + 2 * k, ioff, iidx, a + k, c);
          for (int j = 0; j < c; ++j) {
            if (J->conj_in) a[k + j] = cx_conj(a[k + j]);
            if (wi) a[k + j] = cx_scale(a[k + j], wi[k + j]);
          }
        }
        return;
      }
      for (cx_i64 k = 0; k < n; ++k) {
        if (far && k + kAhead < n) {
          __builtin_prefetch(in + ioff[0] + (k + kAhead) * in_stride * 2);
          __builtin_prefetch(in + ioff[W - 1] + (k + kAhead) * in_stride * 2);
        }
        a[k] = J->conj_in ? cx_conj(load_c(k)) : load_c(k);
        if (wi) a[k] = cx_scale(a[k], wi[k]);
      }
    } else if (J->kind == CX_R2C && n % 2 == 0 && in_stride == 1 && W == 1) {
      // one staged row: its reals converted as a run
      get_reals(in + ioff[0], (S*)a, n);
      if (wi)
        for (cx_i64 k = 0; k < h; ++k)
          a[k] = cx_make<V>(a[k].re * wi[2 * k], a[k].im * wi[2 * k + 1]);
    } else if (J->kind == CX_R2C && n % 2 == 0 && in_stride == 1) {
      // pairs of adjacent reals, in runs of 16 per row
      for (cx_i64 k = 0; k < h; k += 16) {
        const int c = (int)(h - k < 16 ? h - k : 16);
        in_io::load_run(in + 2 * k, ioff, iidx, a + k, c);
        if (wi)
          for (int j = 0; j < c; ++j)
            a[k + j] = cx_make<V>(a[k + j].re * wi[2 * (k + j)], a[k + j].im * wi[2 * (k + j) + 1]);
      }
    } else if (J->kind == CX_R2C && n % 2 == 0) {
      for (cx_i64 k = 0; k < h; ++k) {
        a[k] = in_stride == 1 ? load2(2 * k) : cx_make<V>(load_r(2 * k), load_r(2 * k + 1));
        if (wi) a[k] = cx_make<V>(a[k].re * wi[2 * k], a[k].im * wi[2 * k + 1]);
      }
    } else if (J->kind == CX_R2C && paired) {
      // odd n: row 2l the real part, row 2l + 1 the imaginary part. Unit
      // strides: two neighbouring reals as one pair, 16 pairs of each row
      // a run (load_run), then the last real alone. The 2W rows are more
      // streams than the hardware prefetcher follows (32 on AVX-512, whose
      // load_run then waited on L3 for a fifth of an rfft of 2187): each
      // run fetches every row kPairedAhead reals ahead, into L2.
      cx_i64 k = 0;
      if (in_stride == 1)
        for (; n - k >= 2;) {
          const int c = (int)((n - k) / 2 < 16 ? (n - k) / 2 : 16);
          if (k + kPairedAhead < n)
            for (int l = 0; l < W; ++l) {
              prefetch_lines<0, 1>(in + ioff[l] + k + kPairedAhead, 32 * sizeof(Ti));
              prefetch_lines<0, 1>(in + ioff2[l] + k + kPairedAhead, 32 * sizeof(Ti));
            }
          cx<V> z1[16], z2[16];
          in_io::load_run(in + k, ioff, iidx, z1, c);
          in_io::load_run(in + k, ioff2, iidx2, z2, c);
          for (int j = 0; j < c; ++j, k += 2) {
            const S w0 = wi ? wi[k] : (S)1, w1 = wi ? wi[k + 1] : (S)1;
            a[k] = cx_make<V>(z1[j].re * w0, z2[j].re * im_on * w0);
            a[k + 1] = cx_make<V>(z1[j].im * w1, z2[j].im * im_on * w1);
          }
        }
      for (; k < n; ++k) {
        const V re = load_r(k), im = load_r2(k) * im_on;
        a[k] = wi ? cx_make<V>(re * wi[k], im * wi[k]) : cx_make<V>(re, im);
      }
    } else if (J->kind == CX_R2C) {
      for (cx_i64 k = 0; k < n; ++k) a[k] = cx_make<V>(wi ? load_r(k) * wi[k] : load_r(k), zero);
    } else if (n % 2 == 0) {
      // c2r, even n: fold the half spectrum into a length-n/2 sequence
      //   Z[k] = (X[k] + conj X[h-k]) + i*conj(w^k)*(X[k] - conj X[h-k])
      // and take its inverse DFT by conjugation. The imaginary parts of
      // X[0] and X[h] do not exist in a real signal's spectrum: dropped.
      const cx<S>* w = (const cx<S>*)J->rtw;
      // one staged row with adjacent bins: k >= 1 in vectors (c2r_pre_row)
      const cx_i64 kv = W == 1 && in_stride == 1 ? h : 1;
      if (W > 1 && in_stride == 1) {
        // adjacent bins: X[k0 ..] and X[.. h-k0] of every row in runs of
        // 16 (load_run), the second run read back to front
        for (cx_i64 k0 = 0; k0 < h; k0 += 16) {
          const int c = (int)(h - k0 < 16 ? h - k0 : 16);
          cx<V> xs[16], ys[16];
          in_io::load_run(in + 2 * k0, ioff, iidx, xs, c);
          in_io::load_run(in + 2 * (h - k0 - c + 1), ioff, iidx, ys, c);
          for (int i = 0; i < c; ++i) {
            cx<V> x = xs[i], y = cx_conj(ys[c - 1 - i]);
            if (k0 + i == 0) {
              x.im = zero;
              y.im = zero;
            }
            a[k0 + i] = cx_conj((x + y) + cx_mul_i(cx_mul_conj(x - y, w[k0 + i])));
          }
        }
        return;
      }
      for (cx_i64 k = 0; k < h; k = k == 0 ? kv : k + 1) {
        cx<V> x = load_c(k), y = cx_conj(load_c(h - k));
        if (k == 0) {
          x.im = zero;
          y.im = zero;
        }
        cx<V> z = (x + y) + cx_mul_i(cx_mul_conj(x - y, w[k]));
        a[k] = cx_conj(z);
      }
      if (kv != 1) c2r_pre_row<S, Ti>(in + ioff[0], w, h, 1, h, (cx<S>*)a);
    } else {
      // c2r, odd n: the full Hermitian spectrum, conjugated.
      a[0] = cx_make<V>(load_c(0).re, zero);
      if (W > 1 && in_stride == 1) {
        // adjacent bins: runs of 16 of every row (load_run)
        for (cx_i64 k0 = 1; k0 <= h; k0 += 16) {
          const int c = (int)(h + 1 - k0 < 16 ? h + 1 - k0 : 16);
          cx<V> xs[16];
          in_io::load_run(in + 2 * k0, ioff, iidx, xs, c);
          for (int i = 0; i < c; ++i) {
            a[k0 + i] = cx_conj(xs[i]);
            a[n - k0 - i] = xs[i];
          }
        }
        return;
      }
      for (cx_i64 k = 1; k <= h; ++k) {
        cx<V> x = load_c(k);
        a[k] = cx_conj(x);
        a[n - k] = x;
      }
    }
  }

  // Store the transformed sequence r to the output rows.
  void stage_out(const cx<V>* r) const {
    const cx_i64 n = J->n, h = n / 2;
    const S sc = (S)J->scale;
    const S* wo = (const S*)J->win_out;
    if (J->kind == CX_C2C) {
      const cx<S>* rt = (const cx<S>*)J->row_tw;
      const S* lre = (const S*)J->row_tw_re;
      const S* lim = (const S*)J->row_tw_im;
      const cx_i64 N = J->row_tw_n, step = rt ? row0 % N : 0;
      if (W == 1 && out_stride == 1 && !rt && !wo) {
        // one staged row: scaled (and conjugated) a run at a time
        put_scaled_pairs((const cx<S>*)r, J->out_len, sc, J->conj_out ? -sc : sc, out + ooff[0]);
        return;
      }
      if (out_stride == 1 && !rt && !wo) {
        // adjacent pairs: runs of 16 straight from r, scaled (and
        // conjugated) as store_run packs them
        const S si = J->conj_out ? -sc : sc;
        for (cx_i64 k = 0; k < J->out_len; k += 16) {
          const int c = (int)(J->out_len - k < 16 ? J->out_len - k : 16);
          if (nl) out_io::store_run(out + 2 * k, ooff, oidx, nl, r + k, c, sc, si);
        }
        return;
      }
      cx_i64 idx = 0;
      cx<V> wb[16];
      run_writer w(this, wb, out_stride);
      for (cx_i64 k = 0; k < J->out_len; ++k) {
        cx<V> z = cx_scale(J->conj_out ? cx_conj(r[k]) : r[k], wo ? sc * wo[k] : sc);
        if (rt) {
          cx<V> t;
          __builtin_memcpy(&t.re, lre + k * 16, sizeof(V));
          __builtin_memcpy(&t.im, lim + k * 16, sizeof(V));
          z = cx_mul(cx_mul(z, t), rt[idx]);
          idx += step;
          idx -= idx >= N ? N : 0;
        }
        w.put(z);
      }
    } else if (J->kind == CX_R2C && n % 2 == 0) {
      // With x = Z[k], y = conj Z[h-k], A = x + y, B = w^k (x - y):
      //   X[k] = (A - iB)/2,  X[h-k] = conj(A + iB)/2   (w^(h-k) = -conj w^k)
      // so bins k and h-k come from one load of each and one multiply.
      // Every bin is a store of its own (bins are out_stride apart); the
      // next group's store to the same bin is fetched ahead, as the bins
      // are too many streams for the hardware prefetcher.
      const cx<S>* w = (const cx<S>*)J->rtw;
      const S half = (S)0.5 * sc;
      const cx_i64 top = J->out_len < h + 1 ? J->out_len : h + 1, os = 2 * out_stride;
      const bool full = J->out_len == n;
      if (out_stride == 1 && W == 1 && !full) {
        // one staged row: the bins in vectors (r2c_post_row); k = 0 and
        // k = h, which take Z[0] twice, here
        To* o = out + ooff[0];
        for (cx_i64 k = 0; k <= h; k += h) {
          if (k >= top) break;
          const cx<V> x = r[k == h ? 0 : k], y = cx_conj(r[k == 0 ? 0 : h - k]);
          const cx<V> X = r2c_bin(x, y, w[k], half);
          st<S>(o + 2 * k, X.re[0]);
          st<S>(o + 2 * k + 1, X.im[0]);
        }
        r2c_post_row<S, To>((const cx<S>*)r, w, h, 1, top < h ? top : h, half, o);
        return;
      }
      if (out_stride == 1) {
        // the bins of a row adjacent: in order, through runs of 16
        cx<V> wb[16];
        run_writer o(this, wb, 1);
        for (cx_i64 k = 0; k < J->out_len; ++k) {
          const cx_i64 j = k <= h ? k : n - k;  // bins past h: conj X[n-k]
          const cx<V> x = r[j == h ? 0 : j], y = cx_conj(r[j == 0 ? 0 : h - j]);
          const cx<V> X = r2c_bin(x, y, w[j], half);
          o.put(k <= h ? X : cx_conj(X));
        }
        return;
      }
      const typename out_io::sink o(out, ooff, oidx, nl);
      for (cx_i64 k = 0; 2 * k <= h; ++k) {
        const cx_i64 k2 = h - k;
        const cx<V> x = r[k], y = cx_conj(r[k == 0 ? 0 : k2]);
#ifdef CX_POST_IN_DOUBLE
        // both bins from r2c_bin (formed in double)
        const cx<V> X1 = r2c_bin(x, y, w[k], half);
#else
        // bin k2's sum and difference are bin k's conjugated: one product for both
        const cx<V> A = x + y, B = cx_mul(x - y, w[k]);
        const cx<V> X1 = cx_scale(A + cx_mul_neg_i(B), half);
#endif
        if (k < top) {
          o.put_ahead(k * os, X1);
          if (full && k > 0) o.put_ahead((n - k) * os, cx_conj(X1));
        }
        if (k2 != k && k2 < top) {
#ifdef CX_POST_IN_DOUBLE
          const cx<V> X2 = r2c_bin(r[k2 == h ? 0 : k2], cx_conj(r[k]), w[k2], half);
#else
          const cx<V> X2 = cx_scale(cx_conj(A + cx_mul_i(B)), half);
#endif
          o.put_ahead(k2 * os, X2);
          if (full && k2 < h) o.put_ahead((n - k2) * os, cx_conj(X2));
        }
      }
    } else if (J->kind == CX_R2C && paired) {
      // z = x1 + i x2 (odd n): X1[k] = (Z[k] + conj Z[n-k]) / 2 and
      // X2[k] = -i (Z[k] - conj Z[n-k]) / 2, each row's bins in order.
      // Adjacent bins: every 16, each of the 2W rows' lines kPairedOutAhead
      // bins ahead are fetched for writing, as on the input side.
      const S half = (S)0.5 * sc;
      cx<V> wb1[16], wb2[16];
      run_writer w1(this, wb1, out_stride), w2(this, wb2, out_stride, true);
      for (cx_i64 k = 0; k < J->out_len; ++k) {
        if (out_stride == 1 && k % 16 == 0 && k + kPairedOutAhead < J->out_len)
          for (int l = 0; l < W; ++l) {
            prefetch_lines<1>(out + ooff[l] + 2 * (k + kPairedOutAhead), 32 * sizeof(To));
            prefetch_lines<1>(out + ooff2[l] + 2 * (k + kPairedOutAhead), 32 * sizeof(To));
          }
        const cx<V> x = r[k], y = cx_conj(r[k == 0 ? 0 : n - k]);
        w1.put(cx_scale(x + y, half));
        w2.put(cx_scale(cx_mul_neg_i(x - y), half));
      }
    } else if (J->kind == CX_R2C) {
      cx<V> wb[16];
      run_writer w(this, wb, out_stride);
      for (cx_i64 k = 0; k < J->out_len; ++k) w.put(cx_scale(r[k], sc));
    } else if (n % 2 == 0 && W == 1 && out_stride == 1 && !wo) {
      // one staged row: conjugated and scaled a run at a time
      put_scaled_pairs((const cx<S>*)r, h, sc, -sc, out + ooff[0]);
    } else if (n % 2 == 0) {
      cx<V> wb[16];
      run_writer w(this, wb, 1);
      for (cx_i64 k = 0; k < h; ++k) {
        cx<V> z = cx_scale(cx_conj(r[k]), sc);
        if (wo) z = cx_make<V>(z.re * wo[2 * k], z.im * wo[2 * k + 1]);
        if (out_stride == 1) {
          w.put(z);
        } else {
          store_r(2 * k, z.re);
          store_r(2 * k + 1, z.im);
        }
      }
    } else {
      // c2r, odd n: the real parts. Unit strides: two neighbouring reals
      // as one pair, 16 pairs of each row a run (store_run), then the last
      // real alone.
      cx_i64 k = 0;
      if (out_stride == 1 && nl)
        for (; n - k >= 2;) {
          const int c = (int)((n - k) / 2 < 16 ? (n - k) / 2 : 16);
          cx<V> z[16];
          for (int j = 0; j < c; ++j)
            z[j] = cx_make<V>(r[k + 2 * j].re * (wo ? sc * wo[k + 2 * j] : sc),
                              r[k + 2 * j + 1].re * (wo ? sc * wo[k + 2 * j + 1] : sc));
          out_io::store_run(out + k, ooff, oidx, nl, z, c);
          k += 2 * c;
        }
      for (; k < n; ++k) store_r(k, r[k].re * (wo ? sc * wo[k] : sc));
    }
  }
};
