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

// Prefetches each 64-byte line of [p, p + bytes) into L1 (Loc = 3) or L2
// (Loc = 2 or 1), for reading (RW = 0) or for writing (RW = 1).
template <int RW, int Loc = 3>
CX_LANE_INLINE static void prefetch_lines(const void* p, cx_i64 bytes) {
  const char* c = (const char*)p;
  for (cx_i64 b = 0; b < bytes; b += 64) __builtin_prefetch(c + b, RW, Loc);
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

// Radix 15 as 3 x 5 by Good and Thomas (3 and 5 coprime: no twiddles
// between the two): input j = (5 j1 + 3 j2) mod 15 at row j1, column j2,
// a DFT-3 down each of the 5 columns, a DFT-5 along each of the 3 rows,
// and output (k1, k2) to k = (10 k1 + 6 k2) mod 15. One pass where a 3
// and a 5 took two, and 14 twiddle products a butterfly instead of 5 x 2
// + 3 x 4. It holds 15 complex vectors, so only the lane engines with 32
// registers take it (takes_radix15). Loading, twiddling and transforming
// one column at a time, with each row stored as its DFT-5 ends, spilled
// less (41 stack references against 208) and measured 1.06-1.10 x slower
// than this.
template <typename T, typename S>
CX_LANE_INLINE static void dft15(cx<T>* v) {
  cx<T> t[3][5];
  for (int j2 = 0; j2 < 5; ++j2) {
    cx<T> q[3];
    for (int j1 = 0; j1 < 3; ++j1) q[j1] = v[(5 * j1 + 3 * j2) % 15];
    cx_dft3<T, S>(q);
    for (int k1 = 0; k1 < 3; ++k1) t[k1][j2] = q[k1];
  }
  for (int k1 = 0; k1 < 3; ++k1) {
    cx_dft5<T, S>(t[k1]);
    for (int k2 = 0; k2 < 5; ++k2) v[(10 * k1 + 6 * k2) % 15] = t[k1][k2];
  }
}

// The butterfly of a fixed-radix pass.
template <int R, class V, class S>
CX_LANE_INLINE static void dft_fixed(cx<V>* v, const cx<S>* tw) {
  if constexpr (R == 9)
    dft9<V, S>(v);
  else if constexpr (R == 15)
    dft15<V, S>(v);
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
// pass_fixed<8, rv> against 118 here). Radix 16, which the plans of m do
// not use (kLaneTopRadix in plan.cpp), keeps pass16. Element e, half h: re in vf
// 4e + h, im in 4e + 2 + h.
template <int R, class S>
static void pass_halves(const cx<rv>* __restrict x, cx<rv>* __restrict y, cx_i64 n, cx_i64 ns,
                        const cx<S>* tw) {
  const cx_i64 q = n / R;
  const vf* X = (const vf*)x;
  vf* Y = (vf*)y;
  for (cx_i64 g = 0; g < q / ns; ++g)
    for (cx_i64 k = 0; k < ns; ++k) {
      const cx_i64 i0 = g * ns + k, o0 = g * ns * R + k;
#pragma GCC unroll 1
      for (int h = 0; h < 2; ++h) {
        cx<vf> v[R];
        for (int r = 0; r < R; ++r)
          v[r] = cx_make<vf>(X[4 * (i0 + r * q) + h], X[4 * (i0 + r * q) + 2 + h]);
        if (ns > 1) cx_apply_twiddles<vf, S>(v, R, tw + k * (R - 1));
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
static void pass16(const cx<V>* __restrict x, cx<V>* __restrict y, cx_i64 n, cx_i64 ns,
                   const cx<S>* tw) {
  const cx_i64 q = n / 16;
  for (cx_i64 g = 0; g < q / ns; ++g) {
    const cx<V>* xg = x + g * ns;
    cx<V>* yg = y + g * ns * 16;
    for (cx_i64 k = 0; k < ns; ++k) {
      V r[16], i[16];
      for (int u = 0; u < 16; ++u) {
        r[u] = xg[k + u * q].re;
        i[u] = xg[k + u * q].im;
      }
      if (ns > 1) {
        const cx<S>* w = tw + k * 15;
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
static void pass_fixed(const cx<V>* __restrict x, cx<V>* __restrict y, cx_i64 n, cx_i64 ns,
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
    for (cx_i64 k = 0; k < ns; ++k) {
      cx<V> v[R];
      for (int r = 0; r < R; ++r) v[r] = xg[k + r * q];
      cx_apply_twiddles<V, S>(v, R, tw + k * (R - 1));
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
static void pass_odd_fixed(const cx<V>* __restrict x, cx<V>* __restrict y, cx_i64 n, cx_i64 ns,
                           const cx<S>* tw, const cx<S>* roots) {
  const cx_i64 q = n / R;
  for (cx_i64 g = 0; g < q / ns; ++g) {
    const cx<V>* xg = x + g * ns;
    cx<V>* yg = y + g * ns * R;
    for (cx_i64 k = 0; k < ns; ++k) {
      cx<V> v[R];
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r) v[r] = xg[k + r * q];
      if (ns > 1) cx_apply_twiddles<V, S>(v, R, tw + k * (R - 1));
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
      case 15: pass_fixed<15, V, S>(a, b, p->n, ps.ns, tw); break;
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

#include "lane_bluestein.h"

#include "lane_rowm.h"

#include "lane_group.h"

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

int takes_radix15() {
#if defined(CX_AVX512)
  return 1;
#else
  return 0;
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
