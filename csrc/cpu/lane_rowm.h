// FRAGMENT, not a header: lanes_impl.h includes it inside its instruction-set
// namespace (CX_NS), once per isa_*.cpp; include it nowhere else. No include
// guard, no includes of its own.
//
// Any length n = 16*m (m >= 16) one row at a time, vectorised along the
// row (16 lanes, lane_rowvec.h): the general form of the n = 256 and 512 kernels of
// lane_row256.h, for the lengths those do not take (400, 1024, 4096, ...;
// even real transforms of n = 32*m).
//
// Element 16a + b of a row sits in vector a, lane b, so the m vectors are m
// plain loads of the row (no transpose between rows and lanes). Then
//   the DFT of length m down the vectors: the plan of m (d.row) run by the
//     lane engine's Stockham passes, the 16 lanes being the row's 16
//     interleaved subsequences;
//   vector c, lane b times exp(-2*pi*i*b*c/n) (d.row_re / row_im);
//   for each block of 16 vectors c0..c0+15 (the last one padded): a
//     16 x 16 transpose and a DFT-16 down the vectors, which leaves
//     X[c0 + c + m*d] in vector d, lane c: 16 adjacent outputs per store.
// A row needs 2m vectors of scratch (m = 256: 64 KiB), against 2n for 16
// rows on the lane engine. Even real transforms run this on the pairs
// z[k] = x[2k] + i x[2k+1] (n/2 = 16m), write Z to a row of scratch and
// take the post-process from there, its real and imaginary parts apart.
// Included inside the ISA namespace of lanes_impl.h, after lane_row256.h.

#if defined(CX_ROWS)
// The plan of J if this kernel takes J, else 0: fp32 compute, unit
// strides, no four-step twiddle or output window, every output written.
static const cx_plan_desc<float>* rowm_plan(const cx_axis_job* J) {
  if (!row_job_shape(J)) return 0;
  const cx_plan_desc<float>* p = (const cx_plan_desc<float>*)J->plan;
  if (p->bluestein || !p->row || J->in_len != J->n) return 0;
  if (J->kind == CX_C2C && p->n == J->n && J->out_len == J->n) return p;
  if (J->kind == CX_R2C && J->n % 2 == 0 && p->n == J->n / 2 && J->out_len == J->n / 2 + 1)
    return p;
  return 0;
}

// The first pass of the plan of m (radix R, ns = 1) with the row read as
// it goes: get(a) gives vector a of the row (element 16a + b in lane b).
template <int R, class G>
CX_LANE_INLINE static void rowm_first_pass(cx_i64 m, const cx<float>* tw, cx<rv>* y, G get) {
  const cx_i64 q = m / R;
  for (cx_i64 j = 0; j < q; ++j) {
    cx<rv> v[R];
    for (int r = 0; r < R; ++r) v[r] = get(j + r * q);
    cx_dft<rv, float>(v, R, tw);
    for (int r = 0; r < R; ++r) y[j * R + r] = v[r];
  }
}

// The DFT of a row whose vector a is get(a) (element 16a + b in lane b; A
// and B scratch of m vectors each): put(c0, cnt, v) receives each block,
// v[d] lane c holding X[c0 + c + m*d] for c < cnt. The row is read by the
// plan's first pass itself when that is a radix 2, 3, 4, 5 or 8 (pass_fixed's
// ns = 1 case, the same operations; the plan of m is a lane cut, with no
// 16: kLaneTopRadix), else (and always on AVX2) into A first.
template <class G, class F>
CX_LANE_INLINE static void rowm_dft(const cx_plan_desc<float>* p, cx<rv>* A, cx<rv>* B, G get,
                                    F put) {
  const cx_i64 m = p->row->n;
  const cx_pass& p0 = p->row->passes[0];
  const cx<float>* tw0 = p->row->tw + p0.tw;
#if defined(CX_AVX2)
  // AVX2: a whole rv is two registers, and the first pass on whole rv held
  // 2R of them (spilled); loading the row into A and running every pass
  // by halves (pass_halves) measured 1.10-1.29 x (1 thread: c2c 400 1.29,
  // 1024 1.22, 2048 1.21, 4096 1.18, 8192 1.23, 16384 1.10; rfft 1024-8192
  // 1.12-1.17; 2 threads 1024 1.23, 4096 1.15).
  int done = 0;
#else
  int done = p0.ns == 1 ? 1 : 0;
#endif
  switch (done ? p0.radix : 0) {
    case 2: rowm_first_pass<2>(m, tw0, A, get); break;
    case 3: rowm_first_pass<3>(m, tw0, A, get); break;
    case 4: rowm_first_pass<4>(m, tw0, A, get); break;
    case 5: rowm_first_pass<5>(m, tw0, A, get); break;
    case 8: rowm_first_pass<8>(m, tw0, A, get); break;
    default:
      done = 0;
      for (cx_i64 a = 0; a < m; ++a) A[a] = get(a);
  }
  const cx<rv>* R = stockham<rv, float>(p->row, A, B, done);
  // The partial block, if any, first (so that a put may store it whole,
  // its idle lanes landing on the next row's first columns, which a full
  // block then writes), then the full blocks with a count known when
  // compiling (the block then stays in registers and put stores it
  // unmasked: measured 4 % of the 400-point pair kernel's time).
  const cx_i64 full = m / 16 * 16;
  // The partial block's count is known when compiling too: row_last_step
  // then keeps the block in registers and drops the shuffles of the zero
  // rows. With the count an int, every access to the block went through
  // memory: 1.05-1.25 x slower rows at 320, 384, 400, 480, 640 and 768
  // (m % 16 = 4, 8, 9, 14, 8, 8; at m = 24 the partial block is one of
  // two). Out of line, one copy per count, it measured between the two.
  const auto tail = [&](auto count) {
    cx<rv> v[16];
    for (int i = 0; i < count; ++i) v[i] = row_twiddled(R, full + i, p->row_re, p->row_im);
    row_last_step(v, count, v);
    put(full, count, v);
  };
  switch ((int)(m - full)) {
    case 0: break;
    case 1: tail(fixed_int<1>()); break;
    case 2: tail(fixed_int<2>()); break;
    case 3: tail(fixed_int<3>()); break;
    case 4: tail(fixed_int<4>()); break;
    case 5: tail(fixed_int<5>()); break;
    case 6: tail(fixed_int<6>()); break;
    case 7: tail(fixed_int<7>()); break;
    case 8: tail(fixed_int<8>()); break;
    case 9: tail(fixed_int<9>()); break;
    case 10: tail(fixed_int<10>()); break;
    case 11: tail(fixed_int<11>()); break;
    case 12: tail(fixed_int<12>()); break;
    case 13: tail(fixed_int<13>()); break;
    case 14: tail(fixed_int<14>()); break;
    default: tail(fixed_int<15>()); break;
  }
  for (cx_i64 c0 = 0; c0 < full; c0 += 16) {
    cx<rv> v[16];
    row_last_step_full([&](int c) { return row_twiddled(R, c0 + c, p->row_re, p->row_im); }, v);
    put(c0, 16, v);
  }
}

// C2C: the kind, fixed when compiling, so that the complex rows' code
// carries none of the real post-process.
template <class Ti, class To, bool C2C>
static void rowm_run(const cx_axis_job* J, const cx_plan_desc<float>* p, cx_i64 r0, cx_i64 r1,
                     void* scratch) {
  const cx_i64 m = p->row->n, h = p->n;  // h = 16m complex values a row
  const bool c2c = C2C, conj = J->conj_in != 0;
  const float* win = (const float*)J->win_in;
  const float sc = (float)J->scale, si = J->conj_out ? -sc : sc;
  cx<rv>* A = (cx<rv>*)scratch;
  cx<rv>* B = A + m + CX_LANE_SKEW;
  // r2c: the row's Z, h values, its real and imaginary parts apart, each
  // with 16 floats of slack before it (the partners' reversed loads, below)
  // and Zi with 16 after (the partial block's spill, as in rowm_pair_run)
  float* Zr = (float*)(B + m + CX_LANE_SKEW) + 16;
  float* Zi = Zr + h + 16;
  // Prefetches. The first pass reads the row in R strided streams and the
  // blocks write it in 16, too many for the hardware prefetcher, which
  // also starts afresh at each 4 KiB page: a row's loads and stores then
  // wait on memory. So, where a row's input and output fit in 16 KiB, each
  // vector read and each block written prefetches the same lines of the
  // next row (AVX2, 1 thread: 1024 1.15 x, 2048 1.09 x, 400 1.02 x; 2
  // threads: 1024 1.20 x); longer rows, whose next row would evict this
  // one's scratch from L1 (16384: 0.91 x), prefetch only the next block's
  // output lines (4096 1.01-1.03 x, 8192 1.03 x, 16384 unchanged).
  // The 256- and 512-point kernels, which read and write their rows in
  // order, measured 0.92 x with either prefetch and take neither.
  // A longer row is read into A in order (AVX2), a 4 KiB page every 16 or
  // 32 vectors, and its first load in each page waited on memory: 17 % of
  // the kernel's samples at c2c 4096. So each vector read fetches the one
  // kAhead vectors on (the next row's first ones at the end of a row, if
  // adjacent). 1 thread, medians of five rounds (ms): c2c 4096 9.04 ->
  // 8.37, 8192 9.44 -> 8.98, 16384 10.08 -> 9.74; rfft 8192 and 16384
  // (h = 4096, 8192) unchanged.
  const bool near = h * 4 * (cx_i64)sizeof(Ti) <= 16384;
  const cx_i64 kAhead = 32;
  row_cursor at(J, r0), ahead(J, r0 + 1);
  for (cx_i64 r = r0; r < r1; ++r, at.next(), ahead.next()) {
    const cx_i64 io = at.io, oo = at.oo;
    const Ti* x = (const Ti*)J->in + io * (c2c ? 2 : 1);
    To* y = (To*)J->out + oo * 2;
    const bool pf = near && r + 1 < r1;  // prefetch the next row
    const char* xn = (const char*)((const Ti*)J->in + ahead.io * (c2c ? 2 : 1));
    const char* yn = (const char*)((To*)J->out + ahead.oo * 2);
    const auto get = [&](cx_i64 a) {
      if (pf) prefetch_lines<0>(xn + 32 * sizeof(Ti) * a, 32 * sizeof(Ti));
      else if (!near) prefetch_lines<0>((const char*)(x + 32 * (a + kAhead)), 32 * sizeof(Ti));
      cx<rv> z = row_pairs<Ti>::load(x + 32 * a);
      if (conj) z.im = -z.im;
      if (win && c2c) {
        const rv w = rv_load(win + 16 * a);
        z = cx_make<rv>(z.re * w, z.im * w);
      } else if (win) {  // the window at the pair's two reals
        const cx<rv> w = row_pairs<float>::load(win + 32 * a);
        z = cx_make<rv>(z.re * w.re, z.im * w.im);
      }
      return z;
    };
    // A longer row's blocks each fetch the next row's input a block's share
    // at a time into L2 (not L1, where this row's scratch lives), so that
    // its reads into A (above) find it there: 1 thread, medians of eight
    // alternating rounds, c2c 4096 and 16384 0.97 x the time.
    const bool pf2 = !near && r + 1 < r1;
    rowm_dft(p, A, B, get, [&](cx_i64 c0, int cnt, const cx<rv>* v) {
      if (pf2) prefetch_lines<0, 2>(xn + 32 * sizeof(Ti) * c0, 32 * sizeof(Ti) * cnt);
      if (pf)
        for (int d = 0; d < 16; ++d)
          prefetch_lines<1>(yn + 2 * sizeof(To) * (c0 + m * d), 32 * sizeof(To));
      if (c2c) {
        if (!near && c0 + 16 < m)  // the next block's lines (blocks run c0 = 0, 16, ...)
          for (int d = 0; d < 16; ++d)
            prefetch_lines<1>(y + 2 * (c0 + 16 + m * d), 32 * sizeof(To));
        for (int d = 0; d < 16; ++d)
          row_pairs_masked<To>::store(y + 2 * (c0 + m * d), cx_make<rv>(v[d].re * sc, v[d].im * si),
                                      cnt);
      } else {
        // every block whole, the partial one first: its idle lanes fall on
        // the next d's first columns (written after it) or, for d = 15,
        // into the slack after Zr or Zi
        for (int d = 0; d < 16; ++d) rv_store(Zr + c0 + m * d, v[d].re);
        for (int d = 0; d < 16; ++d) rv_store(Zi + c0 + m * d, v[d].im);
      }
    });
    if (c2c) continue;
    // Even real: X[k] = half*((x + y) - i*w^k*(x - y)), x = Z[k], y =
    // conj Z[h-k]; k = 0 and k = h take Z[0] twice (real results).
    st<float>(y, (Zr[0] + Zi[0]) * sc);
    st<float>(y + 1, 0.0f);
    st<float>(y + 2 * h, (Zr[0] - Zi[0]) * sc);
    st<float>(y + 2 * h + 1, 0.0f);
    // Bins 1..h-1, 16 at a time, on the split parts: lane l takes x =
    // Z[k+l] and y = conj Z[h-k-l] (Z[h-k-15 ..] reversed). The lanes past
    // h-1 of the last block read slack and are not stored. Interleaved Z
    // and twiddles (r2c_post_row) cost two shuffles a vector more each
    // way: 40 % of the 768-point rfft's time went to the post-process.
    const float half = 0.5f * sc;
    const float *wr = (const float*)J->rtw_re, *wi = (const float*)J->rtw_im;
    for (cx_i64 k = 1; k < h; k += 16) {
      const int cnt = (int)(h - k < 16 ? h - k : 16);
      const rv xr = rv_load(Zr + k), xi = rv_load(Zi + k);
      const rv yr = rv_reverse(rv_load(Zr + h - k - 15));
      const rv zi = rv_reverse(rv_load(Zi + h - k - 15));  // y.im = -zi
      const rv ar = xr + yr, ai = xi - zi, dr = xr - yr, di = xi + zi;
      const rv tr = rv_load(wr + k), ti = rv_load(wi + k);
      const rv br = dr * tr - di * ti, bi = dr * ti + di * tr;
      row_pairs_masked<To>::store(y + 2 * k, cx_make<rv>((ar + bi) * half, (ai - br) * half),
                                  cnt);
    }
  }
}

// Even real transforms whose half length is not 16*m (n = 400: 200 = 8 *
// 25) take two rows at a time instead: z = x1 + i x2 is a complex row of n
// = 16*m, transformed as above with the plan of n (J->plan_pair), and
//   X1[k] = (Z[k] + conj Z[n-k]) / 2,   X2[k] = -i (Z[k] - conj Z[n-k]) / 2
// for k <= n/2. An odd row out pairs with zeros.
template <class Ti, class To>
static void rowm_pair_run(const cx_axis_job* J, const cx_plan_desc<float>* p, cx_i64 r0,
                          cx_i64 r1, void* scratch) {
  const cx_i64 m = p->row->n, n = p->n, h = n / 2;
  cx<rv>* A = (cx<rv>*)scratch;
  cx<rv>* B = A + m + CX_LANE_SKEW;
  // Z's real and imaginary parts, apart: both the blocks' stores and the
  // split's loads (forwards and lane-reversed) are then plain vectors
  float* Zr = (float*)(B + m + CX_LANE_SKEW);
  float* Zi = Zr + n;
  // The split's 1/2 goes into the window (hw = w/2: exact, and the DFT is
  // linear, so Z comes out exactly halved and the split adds without
  // multiplying; sc multiplies only where it is not 1). 12n + 64 bytes
  // after A and B, all within the 2 * (n/2 + 8) * 16 complex values of
  // scratch.
  const float* win = (const float*)J->win_in;
  float* hw = Zi + n + 16;  // past the partial block's spill (see below)
  if (win)
    for (cx_i64 i = 0; i < n; ++i) hw[i] = 0.5f * win[i];
  const float sc = (float)J->scale;
  const bool scaled = sc != 1.0f;
  const cx_i64 out_bytes = (h + 1) * 2 * (cx_i64)sizeof(To);
  // the output bytes of a row fetched ahead per vector read: whole lines
  const cx_i64 out_step = (out_bytes + 64 * m - 1) / (64 * m) * 64;
  row_cursor at(J, r0), ahead(J, r0 + 2);
  for (cx_i64 r = r0; r < r1; r += 2) {
    const bool two = r + 1 < r1;
    const Ti* x[2];
    To* y[2];
    for (int j = 0; j < 2; ++j) {
      x[j] = (const Ti*)J->in + at.io;
      y[j] = (To*)J->out + at.oo * 2;
      if (j == 0 || two) at.next();
    }
    // The next pair's rows, fetched a little at a time as this pair's
    // vectors are read: its input (a pair of 1024-point float16 rows is
    // one 4 KiB page, at which the hardware prefetcher starts afresh) and
    // its output lines, for writing (they are then owned by the time the
    // split stores to them). Against the output lines alone, all at the
    // start of the pair, with the input in memory rather than cache (1
    // thread, 4 Mi values): 768 1.07 x, 1024 1.03 x, 4096 the same; the
    // loads of the input had 20 % of the kernel's samples. `ahead` is two
    // rows ahead of `at`, stepped beside it: a copy of `at` each pair
    // stalled on its fresh index stores.
    const char* xn[2] = {0, 0};
    const char* on[2] = {0, 0};
    for (int j = 0; j < 2 && r + 2 + j < r1; ++j, ahead.next()) {
      xn[j] = (const char*)((const Ti*)J->in + ahead.io);
      on[j] = (const char*)((To*)J->out + ahead.oo * 2);
    }
    const auto get = [&](cx_i64 a) {
      for (int j = 0; j < 2; ++j) {
        if (!xn[j]) continue;
        prefetch_lines<0>(xn[j] + 16 * sizeof(Ti) * a, 16 * sizeof(Ti));
        const cx_i64 b0 = a * out_step, b1 = b0 + out_step < out_bytes ? b0 + out_step : out_bytes;
        if (b0 < b1) prefetch_lines<1>(on[j] + b0, b1 - b0);
      }
      rv re = row_reals(x[0] + 16 * a), im = two ? row_reals(x[1] + 16 * a) : (rv){};
      const rv w = win ? rv_load(hw + 16 * a) : (rv){} + 0.5f;
      return cx_make<rv>(re * w, im * w);
    };
    // Every block stored whole, the partial one too: it comes first, and
    // its idle lanes fall on columns 0..15-cnt of the next d (written by
    // the full block after it) or, for the last d, past the row (into Zi,
    // written after, and 16 floats of slack after Zi). Masked, its line-
    // splitting stores took three times as long as the full block's: 10 %
    // of the kernel's samples against 3.5 %.
    rowm_dft(p, A, B, get, [&](cx_i64 c0, int, const cx<rv>* v) {
      for (int d = 0; d < 16; ++d) rv_store(Zr + c0 + m * d, v[d].re);
      for (int d = 0; d < 16; ++d) rv_store(Zi + c0 + m * d, v[d].im);
    });
    // k = 0: x = Z[0], y = conj Z[0]; then bins 1..h, 16 at a time: lane l
    // takes x = Z[k+l] and y = conj Z[n-k-l] (Z[n-k-15 ..] reversed), in
    // reach for every k <= h as n - k - 15 >= 0
    st<float>(y[0], Zr[0] * (2 * sc));
    st<float>(y[0] + 1, 0.0f);
    if (two) {
      st<float>(y[1], Zi[0] * (2 * sc));
      st<float>(y[1] + 1, 0.0f);
    }
    for (cx_i64 k = 1; k <= h; k += 16) {
      const int cnt = (int)(h + 1 - k < 16 ? h + 1 - k : 16);
      const rv xr = rv_load(Zr + k), xi = rv_load(Zi + k);
      const rv yr = rv_reverse(rv_load(Zr + n - k - 15));
      // y = conj Z[n-k]: yi is minus this
      const rv zi = rv_reverse(rv_load(Zi + n - k - 15));
      cx<rv> X1 = cx_make<rv>(xr + yr, xi - zi), X2 = cx_make<rv>(xi + zi, yr - xr);
      if (scaled) {
        X1 = cx_make<rv>(X1.re * sc, X1.im * sc);
        X2 = cx_make<rv>(X2.re * sc, X2.im * sc);
      }
      row_pairs_masked<To>::store(y[0] + 2 * k, X1, cnt);
      if (two) row_pairs_masked<To>::store(y[1] + 2 * k, X2, cnt);
    }
  }
}

// Whether rowm_job takes J (plan_pair first, as there).
static bool rowm_pair_plan(const cx_axis_job* J) {
  const cx_plan_desc<float>* pp = (const cx_plan_desc<float>*)J->plan_pair;
  return pp && row_job_shape(J) && J->kind == CX_R2C && pp->row && pp->n == J->n &&
         J->in_len == J->n && J->out_len == J->n / 2 + 1;
}

// Runs rows [r0, r1) of J here if it is a job for this kernel.
static bool rowm_job(const cx_axis_job* J, cx_i64 r0, cx_i64 r1, void* scratch) {
  if (rowm_pair_plan(J)) {
    const cx_plan_desc<float>* pp = (const cx_plan_desc<float>*)J->plan_pair;
    with_fp32_storage(J, [&](auto in, auto out) {
      rowm_pair_run<typename decltype(in)::type, typename decltype(out)::type>(J, pp, r0, r1,
                                                                               scratch);
    });
    return true;
  }
  const cx_plan_desc<float>* p = rowm_plan(J);
  if (!p) return false;
  with_fp32_storage(J, [&](auto in, auto out) {
    typedef typename decltype(in)::type Ti;
    typedef typename decltype(out)::type To;
    if (J->kind == CX_C2C) rowm_run<Ti, To, true>(J, p, r0, r1, scratch);
    else rowm_run<Ti, To, false>(J, p, r0, r1, scratch);
  });
  return true;
}
static bool rowm_takes(const cx_axis_job* J) { return rowm_pair_plan(J) || rowm_plan(J); }
#else
static bool rowm_job(const cx_axis_job*, cx_i64, cx_i64, void*) { return false; }
static bool rowm_takes(const cx_axis_job*) { return false; }
#endif
