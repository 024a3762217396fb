// FRAGMENT, not a header: each isa_*.cpp includes it once per instruction set
// with CX_NS and CX_VEC_BYTES defined (see below); include it nowhere else.
//
// The CPU FFT engine, vectorised across transforms: W transforms ("lanes")
// are gathered into a buffer where element k of all W lanes forms one
// vector, so every butterfly works on W transforms at once and the vector
// width never depends on the length or its factors.
//
//   buf[k][l] = load(x[row l][k])           (convert fp16 -> fp32 here)
//   buf = stockham(buf)                      (or Bluestein around it)
//   y[row l][k] = store(buf[k][l] * scale)   (and fp32 -> fp16 here)
//
// Included by isa_*.cpp with CX_NS (a namespace for the instruction set)
// and CX_VEC_BYTES (vector size) defined. It must not include any standard
// or torch header: its inline functions would be compiled for the ISA of
// this translation unit and could be picked by the linker for generic code.
#include "axis_job.h"
#include "../core/cx_half.h"

namespace CX_NS {

typedef float vf __attribute__((vector_size(CX_VEC_BYTES)));
typedef double vd __attribute__((vector_size(CX_VEC_BYTES)));
template <class S> struct lanes_of;
template <> struct lanes_of<float> { typedef vf V; enum { W = CX_VEC_BYTES / 4 }; };
template <> struct lanes_of<double> { typedef vd V; enum { W = CX_VEC_BYTES / 8 }; };
static_assert(lanes_of<float>::W <= 16, "four-step lane twiddle tables hold 16 lanes");

// One lane, for rows staged one at a time (a one-element GCC vector has the
// layout of its scalar).
template <class S> struct one_lane {
  typedef S V __attribute__((vector_size(sizeof(S))));
  enum { W = 1 };
};

// ---- scalar load and store of the three storage types -------------------
template <class S> static inline S ld(const cx_half_t* p) { return (S)cx_half_to_float(*p); }
template <class S> static inline S ld(const float* p) { return (S)*p; }
template <class S> static inline S ld(const double* p) { return (S)*p; }
template <class S> static inline void st(cx_half_t* p, S v) { *p = cx_float_to_half((float)v); }
template <class S> static inline void st(float* p, S v) { *p = (float)v; }
template <class S> static inline void st(double* p, S v) { *p = (double)v; }

// f(in, out) for a job computed in fp32, with in and out tags of its
// storage types (fp16 or fp32 each; tag::type is the type): the one place
// the four combinations are spelt out.
template <class T> struct storage_tag { typedef T type; };
template <class F> static inline void with_fp32_storage(const cx_axis_job* J, F f) {
  const bool hi = J->in_type == CX_F16, ho = J->out_type == CX_F16;
  if (hi && ho) f(storage_tag<cx_half_t>(), storage_tag<cx_half_t>());
  else if (hi) f(storage_tag<cx_half_t>(), storage_tag<float>());
  else if (ho) f(storage_tag<float>(), storage_tag<cx_half_t>());
  else f(storage_tag<float>(), storage_tag<float>());
}

#include "lane_gather.h"
#include "lane_rows.h"
#include "lane_ola.h"

// Prefetches each 64-byte line of [p, p + bytes) into L1, for reading (RW
// = 0) or for writing (RW = 1).
template <int RW>
CX_LANE_INLINE static void prefetch_lines(const void* p, cx_i64 bytes) {
  const char* c = (const char*)p;
  for (cx_i64 b = 0; b < bytes; b += 64) __builtin_prefetch(c + b, RW, 3);
}

// Where row r of J starts, in elements of the input and the output, and
// then each row after it: the index of every dim is carried as the row
// advances, so the divisions are paid once a call, not once a row (for a
// 400-point row they cost as much as its split). The lane engine takes
// its groups' rows from one too.
struct row_cursor {
  const cx_axis_job* J;
  cx_i64 io, oo;  // where the current row starts
  cx_i64 idx[CX_MAX_DIMS];
  row_cursor(const cx_axis_job* job, cx_i64 r) : J(job), io(0), oo(0) {
    for (int d = J->nd - 1; d >= 0; --d) {
      idx[d] = r % J->sizes[d];
      r /= J->sizes[d];
      io += idx[d] * J->in_strides[d];
      oo += idx[d] * J->out_strides[d];
    }
  }
  // To the next row (past the last one, back to row 0).
  __attribute__((always_inline)) void next() {
    for (int d = J->nd - 1; d >= 0; --d) {
      io += J->in_strides[d];
      oo += J->out_strides[d];
      if (++idx[d] < J->sizes[d]) return;
      io -= J->sizes[d] * J->in_strides[d];
      oo -= J->sizes[d] * J->out_strides[d];
      idx[d] = 0;
    }
  }
};

// Radix 9 as 3 x 3, for the CPU's own cuts (AVX2 merges each pair of 3s
// into a 9, plan.cpp): DFT-3 of the triples j, j+3, j+6, twiddles
// exp(-2*pi*i*j*k1/9), DFT-3 across, output k1 + 3*k2. 6 DFT-3s and 4
// products, where two radix-3 passes take 6 DFT-3s, 2 x 4 products and
// two sweeps of the buffers. (The portable executors run a 9 by
// cx_dft_odd, from the plan's roots.)
template <typename T, typename S>
CX_LANE_INLINE static void dft9(cx<T>* v) {
  const cx_kreal c1 = 0.76604444311897803520;   // cos(2pi/9)
  const cx_kreal s1 = 0.64278760968653932632;   // sin(2pi/9)
  const cx_kreal c2 = 0.17364817766693034885;   // cos(4pi/9)
  const cx_kreal s2 = 0.98480775301220805937;   // sin(4pi/9)
  const cx_kreal c4 = -0.93969262078590838405;  // cos(8pi/9)
  const cx_kreal s4 = 0.34202014332566873304;   // sin(8pi/9)
  cx<T> t[9];
  for (int j = 0; j < 3; ++j) {
    cx<T> q[3] = {v[j], v[j + 3], v[j + 6]};
    cx_dft3<T, S>(q);
    for (int k1 = 0; k1 < 3; ++k1) t[3 * j + k1] = q[k1];
  }
  // row j = 1: w^0, w^1, w^2; j = 2: w^0, w^2, w^4
  t[4] = cx_mul(t[4], cx_make<S>((S)c1, (S)-s1));
  t[5] = cx_mul(t[5], cx_make<S>((S)c2, (S)-s2));
  t[7] = cx_mul(t[7], cx_make<S>((S)c2, (S)-s2));
  t[8] = cx_mul(t[8], cx_make<S>((S)c4, (S)-s4));
  for (int k1 = 0; k1 < 3; ++k1) {
    cx<T> q[3] = {t[k1], t[3 + k1], t[6 + k1]};
    cx_dft3<T, S>(q);
    for (int k2 = 0; k2 < 3; ++k2) v[k1 + 3 * k2] = q[k2];
  }
}

// The butterfly of a fixed-radix pass.
template <int R, class V, class S>
CX_LANE_INLINE static void dft_fixed(cx<V>* v, const cx<S>* tw) {
  if constexpr (R == 9)
    dft9<V, S>(v);
  else
    cx_dft<V, S>(v, R, tw);
}

// ---- Stockham passes over lane buffers ----------------------------------
// A DFT-4 in place on separate re / im arrays, at positions a, b, c, d
// (cx_dft4's operations and order): outputs 0, 1, 2, 3 to a, b, c, d.
template <class V>
CX_LANE_INLINE static void dft4_ri(V* r, V* i, int a, int b, int c, int d) {
  const V t0r = r[a] + r[c], t0i = i[a] + i[c], t1r = r[a] - r[c], t1i = i[a] - i[c];
  const V t2r = r[b] + r[d], t2i = i[b] + i[d], ur = r[b] - r[d], ui = i[b] - i[d];
  r[a] = t0r + t2r;
  i[a] = t0i + t2i;
  r[c] = t0r - t2r;
  i[c] = t0i - t2i;
  r[b] = t1r + ui;  // t3 = -i (b - d) = (ui, -ur)
  i[b] = t1i - ur;
  r[d] = t1r - ui;
  i[d] = t1i + ur;
}
// z *= (wr, wi), as cx_mul
template <class V, class S>
CX_LANE_INLINE static void mul_ri(V& zr, V& zi, S wr, S wi) {
  const V r = zr * wr - zi * wi, i = zr * wi + zi * wr;
  zr = r;
  zi = i;
}
// cx_dft16 (4 x 4: DFT-4 down the columns, twiddles, DFT-4 across) in
// place on re / im arrays: X[k1 + 4 k2] is left at position 4 k1 + k2.
// With an array of cx<V> the compiler copied the 64-byte pairs through
// general registers and 16-byte halves (the radix-16 pass was 28 % of a
// 4099-point transform, most of it those copies and their stalled reloads).
template <class V, class S>
CX_LANE_INLINE static void dft16_ri(V* r, V* i) {
  const S c = (S)0.92387953251128675613, s = (S)0.38268343236508977173,
          h = (S)0.70710678118654752440;
  for (int j = 0; j < 4; ++j) dft4_ri(r, i, j, j + 4, j + 8, j + 12);  // t[4j + k1] at j + 4 k1
  mul_ri(r[5], i[5], c, -s);   // t[5]
  mul_ri(r[9], i[9], h, -h);   // t[6]
  mul_ri(r[13], i[13], s, -c); // t[7]
  mul_ri(r[6], i[6], h, -h);   // t[9]
  {                            // t[10] * -i
    const V t = r[10];
    r[10] = i[10];
    i[10] = -t;
  }
  mul_ri(r[14], i[14], -h, -h);  // t[11]
  mul_ri(r[7], i[7], s, -c);     // t[13]
  mul_ri(r[11], i[11], -h, -h);  // t[14]
  mul_ri(r[15], i[15], -c, s);   // t[15]
  for (int k1 = 0; k1 < 4; ++k1) dft4_ri(r, i, 4 * k1, 4 * k1 + 1, 4 * k1 + 2, 4 * k1 + 3);
}

// The row kernels' vectors and kernels of 256 and 512 (which run dft16_ri
// on AVX2).
#include "lane_rowvec.h"
#include "lane_row256.h"

#if defined(CX_AVX2)
// A pass over the row kernels' 16-lane vectors (rv, two registers on
// AVX2), one half at a time: lanes 0-7 and 8-15 are independent, so each
// butterfly holds R complex registers instead of 2R (a radix-8 step on
// whole rv vectors needs 32, and spilled: 265 stack references in
// pass_fixed<8, rv> against 118 here). Radix 16, which AVX2's plans of m
// do not use (top_radix), keeps pass16. Element e, half h: re in vf
// 4e + h, im in 4e + 2 + h.
template <int R, class S>
static void pass_halves(const cx<rv>* __restrict x, cx<rv>* __restrict y, cx_i64 n, int ns,
                        const cx<S>* tw) {
  const cx_i64 q = n / R;
  const vf* X = (const vf*)x;
  vf* Y = (vf*)y;
  for (cx_i64 g = 0; g < q / ns; ++g)
    for (int k = 0; k < ns; ++k) {
      const cx_i64 i0 = g * ns + k, o0 = g * ns * R + k;
#pragma GCC unroll 1
      for (int h = 0; h < 2; ++h) {
        cx<vf> v[R];
        for (int r = 0; r < R; ++r)
          v[r] = cx_make<vf>(X[4 * (i0 + r * q) + h], X[4 * (i0 + r * q) + 2 + h]);
        if (ns > 1) cx_apply_twiddles<vf, S>(v, R, tw + (cx_i64)k * (R - 1));
        dft_fixed<R, vf, S>(v, tw);
        for (int r = 0; r < R; ++r) {
          Y[4 * (o0 + r * ns) + h] = v[r].re;
          Y[4 * (o0 + r * ns) + 2 + h] = v[r].im;
        }
      }
    }
}
template <class V> struct is_rv { enum { value = 0 }; };
template <> struct is_rv<rv> { enum { value = 1 }; };
#endif

// pass_fixed for R = 16 on dft16_ri.
template <class V, class S>
static void pass16(const cx<V>* __restrict x, cx<V>* __restrict y, cx_i64 n, int ns,
                   const cx<S>* tw) {
  const cx_i64 q = n / 16;
  for (cx_i64 g = 0; g < q / ns; ++g) {
    const cx<V>* xg = x + g * ns;
    cx<V>* yg = y + g * ns * 16;
    for (int k = 0; k < ns; ++k) {
      V r[16], i[16];
      for (int u = 0; u < 16; ++u) {
        r[u] = xg[k + u * q].re;
        i[u] = xg[k + u * q].im;
      }
      if (ns > 1) {
        const cx<S>* w = tw + (cx_i64)k * 15;
        for (int u = 1; u < 16; ++u) mul_ri(r[u], i[u], w[u - 1].re, w[u - 1].im);
      }
      dft16_ri<V, S>(r, i);
      for (int u = 0; u < 16; ++u) {  // X[u] at 4 (u % 4) + u / 4
        const int p = 4 * (u % 4) + u / 4;
        yg[k + u * ns] = cx_make<V>(r[p], i[p]);
      }
    }
  }
}

template <int R, class V, class S>
static void pass_fixed(const cx<V>* __restrict x, cx<V>* __restrict y, cx_i64 n, int ns,
                       const cx<S>* tw) {
#if defined(CX_AVX2)
  if constexpr (is_rv<V>::value && R != 16) return pass_halves<R, S>(x, y, n, ns, tw);
#endif
  const cx_i64 q = n / R;
  if (R == 16) return pass16(x, y, n, ns, tw);
  if (ns == 1) {
    for (cx_i64 j = 0; j < q; ++j) {
      cx<V> v[R];
      for (int r = 0; r < R; ++r) v[r] = x[j + r * q];
      dft_fixed<R, V, S>(v, tw);
      for (int r = 0; r < R; ++r) y[j * R + r] = v[r];
    }
    return;
  }
  for (cx_i64 g = 0; g < q / ns; ++g) {
    const cx<V>* xg = x + g * ns;
    cx<V>* yg = y + g * ns * R;
    for (int k = 0; k < ns; ++k) {
      cx<V> v[R];
      for (int r = 0; r < R; ++r) v[r] = xg[k + r * q];
      cx_apply_twiddles<V, S>(v, R, tw + (cx_i64)k * (R - 1));
      dft_fixed<R, V, S>(v, tw);
      for (int r = 0; r < R; ++r) yg[k + r * ns] = v[r];
    }
  }
}

template <class V, class S>
static void pass_odd(const cx<V>* __restrict x, cx<V>* __restrict y, cx_i64 n, int R, int ns,
                     const cx<S>* tw, const cx<S>* roots) {
  const cx_i64 q = n / R;
  for (cx_i64 j = 0; j < q; ++j) {
    const int k = (int)(j % ns);
    cx<V> v[CX_MAX_RADIX];
    for (int r = 0; r < R; ++r) v[r] = x[j + r * q];
    if (ns > 1) cx_apply_twiddles<V, S>(v, R, tw + (cx_i64)k * (R - 1));
    cx_dft_odd<V, S>(v, R, roots);
    const cx_i64 o = cx_stockham_out_index(j, ns, R);
    for (int r = 0; r < R; ++r) y[o + (cx_i64)r * ns] = v[r];
  }
}

// pass_odd with R known when compiling (7, 11, 13): the butterfly's loops
// and root indices unrolled, and the steps walked as pass_fixed walks them
// (no division per element). At n = 1155 (3 5 7 11) the run-time radix
// took 28 % of the time.
template <int R, class V, class S>
static void pass_odd_fixed(const cx<V>* __restrict x, cx<V>* __restrict y, cx_i64 n, int ns,
                           const cx<S>* tw, const cx<S>* roots) {
  const cx_i64 q = n / R;
  for (cx_i64 g = 0; g < q / ns; ++g) {
    const cx<V>* xg = x + g * ns;
    cx<V>* yg = y + g * ns * R;
    for (int k = 0; k < ns; ++k) {
      cx<V> v[R];
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r) v[r] = xg[k + r * q];
      if (ns > 1) cx_apply_twiddles<V, S>(v, R, tw + (cx_i64)k * (R - 1));
      cx_dft_odd<V, S>(v, R, roots);
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r) yg[k + r * ns] = v[r];
    }
  }
}

// A count known when compiling (no standard headers here).
template <int N> struct fixed_int {
  enum { value = N };
  constexpr operator int() const { return N; }
};

// f(fixed_int<R>()) for the radices that pass_fixed takes
// (cx_lane_fixed_radices: every pass of a 2,3,5-smooth length, Bluestein's
// m among them: fft_any's first and last passes); false, f not called, for
// any other.
template <int I = 0, class F>
CX_LANE_INLINE static bool with_smooth_radix(int R, F f) {
  constexpr int count = sizeof(cx_lane_fixed_radices) / sizeof(cx_lane_fixed_radices[0]);
  if constexpr (I == count) {
    return false;
  } else {
    constexpr int Q = cx_lane_fixed_radices[I];
    if (R == Q) {
      f(fixed_int<Q>());
      return true;
    }
    return with_smooth_radix<I + 1>(R, f);
  }
}

// Runs the passes of a (non-Bluestein) plan, from pass `first` on (the
// earlier ones done by the caller, their result in a); returns the buffer
// holding the result, a or b.
template <class V, class S>
static cx<V>* stockham(const cx_plan_desc<S>* p, cx<V>* a, cx<V>* b, int first = 0,
                       int end = -1) {
  if (end < 0) end = p->npasses;
  for (int i = first; i < end; ++i) {
    const cx_pass& ps = p->passes[i];
    const cx<S>* tw = p->tw + ps.tw;
    // A plain switch (cx_lane_fixed_radices, then the odd radices), not
    // with_smooth_radix: through its lambdas GCC inlined the radix 3, 4
    // and 5 passes into this function, and the row kernels' DFT of m ran
    // 1.2 x slower at n = 400 (m = 25).
    const cx<S>* roots = p->roots + ps.roots;
    switch (ps.radix) {
      case 2: pass_fixed<2, V, S>(a, b, p->n, ps.ns, tw); break;
      case 3: pass_fixed<3, V, S>(a, b, p->n, ps.ns, tw); break;
      case 4: pass_fixed<4, V, S>(a, b, p->n, ps.ns, tw); break;
      case 5: pass_fixed<5, V, S>(a, b, p->n, ps.ns, tw); break;
      case 8: pass_fixed<8, V, S>(a, b, p->n, ps.ns, tw); break;
      case 9: pass_fixed<9, V, S>(a, b, p->n, ps.ns, tw); break;
      case 16: pass_fixed<16, V, S>(a, b, p->n, ps.ns, tw); break;
      case 7: pass_odd_fixed<7, V, S>(a, b, p->n, ps.ns, tw, roots); break;
      case 11: pass_odd_fixed<11, V, S>(a, b, p->n, ps.ns, tw, roots); break;
      case 13: pass_odd_fixed<13, V, S>(a, b, p->n, ps.ns, tw, roots); break;
      default: pass_odd<V, S>(a, b, p->n, ps.radix, ps.ns, tw, roots); break;
    }
    cx<V>* t = a;
    a = b;
    b = t;
  }
  return a;
}

// Bluestein's first pass of each of its transforms (ns = 1, no twiddles):
// x[k] times pre[k] (conjugated when CONJ) for k < lim, zero from lim on.
// The chirp and the zero padding before the forward transform, and the
// filter before the inverse one, then cost no sweeps of their own.
template <int R, bool CONJ, class V, class S>
static void pass_first_times(const cx<V>* __restrict x, cx<V>* __restrict y, cx_i64 m,
                             const cx<S>* tw, const cx<S>* pre, cx_i64 lim) {
  const cx_i64 q = m / R;
  const V zero = {};
  for (cx_i64 j = 0; j < q; ++j) {
    cx<V> v[R];
    for (int r = 0; r < R; ++r) {
      const cx_i64 k = j + r * q;
      if (k < lim) {
        const cx<V> t = cx_mul(x[k], pre[k]);
        v[r] = CONJ ? cx_conj(t) : t;
      } else {
        v[r] = cx_make<V>(zero, zero);
      }
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

// Any plan: Bluestein wraps a cyclic convolution of length m around the
// inner Stockham plan (the buffers hold p->work >= m elements):
//   a = x * chirp, zero-padded to m;  A = DFT(a) * filter
//   X = chirp * conj(DFT(conj(A)))    (an inverse DFT by conjugation)
// The products ride on the first and last passes (pass_first_times,
// pass_last_times), and the inverse's last pass stores only the n outputs:
// four sweeps of the m-vector buffers fewer (AVX2, 1 thread, m = 8640 with
// 8 rows a group, 553 KiB a buffer, beyond L2: 4099 1.07 x, 2053 1.05 x,
// 6126 1.07 x, 10007 1.11 x, rfft 6126 1.08 x). fill_bluestein checks that
// the inner plan has the shape this needs: two passes or more, each of a
// radix with_smooth_radix takes (m is 2,3,5-smooth).
template <class V, class S>
static cx<V>* fft_any(const cx_plan_desc<S>* p, cx<V>* a, cx<V>* b) {
  if (!p->bluestein) return stockham<V, S>(p->lane ? p->lane : p, a, b);
  const cx_i64 n = p->n, m = p->m;
  const cx_plan_desc<S>* in = p->inner;
  const int np = in->npasses;
  const cx_pass &p0 = in->passes[0], &pl = in->passes[np - 1];
  const cx<S>*tw0 = in->tw + p0.tw, *twl = in->tw + pl.tw;
  const auto first = [&](auto conj, const cx<V>* x, cx<V>* y, const cx<S>* pre, cx_i64 lim) {
    with_smooth_radix(p0.radix, [&](auto R) {
      pass_first_times<decltype(R)::value, decltype(conj)::value != 0, V, S>(x, y, m, tw0, pre,
                                                                             lim);
    });
  };
  first(fixed_int<0>(), a, b, p->chirp, n);
  cx<V>* r = stockham<V, S>(in, b, a, 1);
  cx<V>* o = r == a ? b : a;
  first(fixed_int<1>(), r, o, p->filter, m);
  cx<V>* s = stockham<V, S>(in, o, r, 1, np - 1);
  cx<V>* t = s == o ? r : o;
  with_smooth_radix(pl.radix, [&](auto R) {
    pass_last_times<decltype(R)::value, V, S>(s, t, m, twl, p->chirp, n);
  });
  return t;
}

#include "lane_rowm.h"

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
  cx_i64 ioff2[W], ooff2[W];
  typename out_io::index oidx2;
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
      // elements): fetch a few elements ahead for the first and last lane,
      // which covers every lane when they are adjacent.
      const bool far = in_stride * 2 * (cx_i64)sizeof(Ti) >= 256;
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
        if (far && k + 8 < n) {
          __builtin_prefetch(in + ioff[0] + (k + 8) * in_stride * 2);
          __builtin_prefetch(in + ioff[W - 1] + (k + 8) * in_stride * 2);
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
      // odd n: row 2l the real part, row 2l + 1 the imaginary part
      for (cx_i64 k = 0; k < n; ++k) {
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
      // X2[k] = -i (Z[k] - conj Z[n-k]) / 2, each row's bins in order
      const S half = (S)0.5 * sc;
      cx<V> wb1[16], wb2[16];
      run_writer w1(this, wb1, out_stride), w2(this, wb2, out_stride, true);
      for (cx_i64 k = 0; k < J->out_len; ++k) {
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
      for (cx_i64 k = 0; k < n; ++k) store_r(k, r[k].re * (wo ? sc * wo[k] : sc));
    }
  }
};

template <class S, class Ti, class To>
static void run_typed(const cx_axis_job* J, cx_i64 r0, cx_i64 r1, void* scratch) {
  if (J->large_fft) {
    typedef typename one_lane<S>::V V;
    group<S, Ti, To, one_lane<S> > G;
    G.J = J;
    cx<V>* a = (cx<V>*)scratch;
    for (cx_i64 g = r0; g < r1; ++g) {
      G.locate(g, r1);
      G.stage_in(a);
      J->large_fft(J->plan, a);
      G.stage_out(a);
    }
    return;
  }
  typedef typename lanes_of<S>::V V;
  const cx_plan_desc<S>* p = (const cx_plan_desc<S>*)J->plan;
  cx<V>* a = (cx<V>*)scratch;
  cx<V>* b = a + p->work + CX_LANE_SKEW;
  group<S, Ti, To, lanes_of<S> > G;
  G.J = J;
  const cx_i64 step = G.pairs_rows(J) ? 2 * lanes_of<S>::W : lanes_of<S>::W;
  for (cx_i64 g = r0; g < r1; g += step) {
    G.locate(g, r1);
    G.stage_in(a);
    G.stage_out(fft_any<V, S>(p, a, b));
  }
}

int takes_rows(const cx_axis_job* J) {
  return !cx_job_double(J) && (row256_takes(J) || rowm_takes(J));
}

int has_rows() {
#if defined(CX_ROWS)
  return 1;
#else
  return 0;
#endif
}

// AVX2: a radix-16 step holds 32 vectors in 16 registers, and the spills
// made the lane engine's radix-16 pass slower than an 8 and a 2 (Bluestein
// at n = 6126, inner length 12288 = 16^3 * 3 against 8^4 * 3: 1.34 x;
// docs/measurements.md).
int top_radix() {
#if defined(CX_AVX2)
  return 8;
#else
  return 16;
#endif
}

int lanes(int is_double) { return is_double ? (int)lanes_of<double>::W : (int)lanes_of<float>::W; }

// Rows [r0, r1) of the job; scratch holds two buffers of plan->work vectors
// of the compute type, aligned to the vector size.
void run_axis_job(const cx_axis_job* J, cx_i64 r0, cx_i64 r1, void* scratch) {
  if (cx_job_double(J)) {
    run_typed<double, double, double>(J, r0, r1, scratch);
    return;
  }
  if (row256_job(J, r0, r1) || rowm_job(J, r0, r1, scratch)) return;
  with_fp32_storage(J, [&](auto in, auto out) {
    run_typed<float, typename decltype(in)::type, typename decltype(out)::type>(J, r0, r1, scratch);
  });
}

}  // namespace CX_NS
