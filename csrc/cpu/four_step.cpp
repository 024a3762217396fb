// The large transforms of one row (plan.h: four_step, large_fft): the
// execution of a four-step or large Bluestein plan through the axis
// executor (axis.h). The plans and their tables are plan.cpp's.
#include "plan.h"

#include <c10/util/Exception.h>

#include <vector>

#include "../core/cx_half.h"
#include "axis.h"
#include "isa.h"

namespace complexext {

// ---- large transforms, one contiguous row ---------------------------------
namespace {

template <class S>
void set_plan(cx_axis_job& J, const Plan<S>& P);

}  // namespace

template <class S>
void four_step(const Plan<S>& P, const StridedRow& row);

namespace {

template <class S>
void set_plan(cx_axis_job& J, const Plan<S>& P) {
  J.plan = P.large ? (const void*)&P : (const void*)&P.d;
  J.large_fft = P.large ? &large_fft<S> : nullptr;
}

template <class S>
cx_axis_job c2c_job(int64_t n, void* in, void* out) {
  cx_axis_job J{};
  J.kind = CX_C2C;
  J.in_type = J.out_type = sizeof(S) == 8 ? CX_F64 : CX_F32;
  J.n = J.in_len = J.out_len = n;
  J.in = in;
  J.out = out;
  J.nd = 1;
  J.scale = 1.0;
  return J;
}

}  // namespace

// Four-step, n = n1*n2, x[j1*n2 + j2] -> X[k1 + n1*k2]:
//   A: for each column j2, Y[k1][j2] = DFT_n1(x[:, j2])[k1] * w_n^(k1*j2)
//   B: for each row k1,    X[k1 + n1*k2] = DFT_n2(Y[k1, :])[k2]
// A reads the row where it lies (any storage type and stride) and B writes
// the result where it goes, so the row is never staged; Y is fp32/fp64.
template <class S>
void four_step(const Plan<S>& P, const StridedRow& row) {
  const int64_t n1 = P.n1, n2 = P.n2;
  Scratch y(sizeof(cx<S>) * P.n);
  cx_axis_job A = c2c_job<S>(n1, const_cast<void*>(row.in), y.p);
  A.in_type = row.in_type;
  A.conj_in = row.conj;
  A.in_stride = row.in_stride * n2;
  A.out_stride = n2;
  A.nrows = A.sizes[0] = n2;
  A.in_strides[0] = row.in_stride;
  A.out_strides[0] = 1;
  A.row_tw = P.big_tw.data();
  A.row_tw_n = P.n;
  A.row_tw_re = P.lane_re.data();
  A.row_tw_im = P.lane_im.data();
  set_plan(A, *P.p1);
  run_job(A);
  cx_axis_job B = c2c_job<S>(n2, y.p, row.out);
  B.out_type = row.out_type;
  B.conj_out = row.conj;
  B.scale = row.scale;
  B.in_stride = 1;
  B.out_stride = row.out_stride * n1;
  B.nrows = B.sizes[0] = n1;
  B.in_strides[0] = n2;
  B.out_strides[0] = row.out_stride;
  set_plan(B, *P.p2);
  run_job(B);
}
template void four_step<float>(const Plan<float>&, const StridedRow&);
template void four_step<double>(const Plan<double>&, const StridedRow&);

namespace {

// Element i of a strided complex row of storage type t, in S, and back
// (fp16 rounded to nearest even).
template <class S>
cx<S> load_at(const void* p, int t, int64_t i) {
  if (t == CX_F16) {
    const cx_half_t* h = (const cx_half_t*)p + 2 * i;
    return cx_make<S>((S)cx_half_to_float(h[0]), (S)cx_half_to_float(h[1]));
  }
  if (t == CX_F32) return cx_make<S>((S)((const float*)p)[2 * i], (S)((const float*)p)[2 * i + 1]);
  return cx_make<S>((S)((const double*)p)[2 * i], (S)((const double*)p)[2 * i + 1]);
}
template <class S>
void store_at(void* p, int t, int64_t i, cx<S> z) {
  if (t == CX_F16) {
    cx_half_t* h = (cx_half_t*)p + 2 * i;
    h[0] = cx_float_to_half((float)z.re);
    h[1] = cx_float_to_half((float)z.im);
  } else if (t == CX_F32) {
    ((float*)p)[2 * i] = (float)z.re;
    ((float*)p)[2 * i + 1] = (float)z.im;
  } else {
    ((double*)p)[2 * i] = (double)z.re;
    ((double*)p)[2 * i + 1] = (double)z.im;
  }
}
// The same for a real row.
template <class S>
S load_real_at(const void* p, int t, int64_t i) {
  if (t == CX_F16) return (S)cx_half_to_float(((const cx_half_t*)p)[i]);
  if (t == CX_F32) return (S)((const float*)p)[i];
  return (S)((const double*)p)[i];
}
template <class S>
void store_real_at(void* p, int t, int64_t i, S v) {
  if (t == CX_F16) ((cx_half_t*)p)[i] = cx_float_to_half((float)v);
  else if (t == CX_F32) ((float*)p)[i] = (float)v;
  else ((double*)p)[i] = (double)v;
}

// A c2c transform of the contiguous row buf[0..n), in place, as a one-row
// job through run_rows (which picks its kernel: the few-rows four-step
// split for the lengths the callers below pass); inverse by conjugation.
template <class S>
void one_row_c2c(cx<S>* buf, int64_t n, bool inverse = false) {
  cx_axis_job J = c2c_job<S>(n, buf, buf);
  J.in_stride = J.out_stride = 1;
  J.nrows = J.sizes[0] = 1;
  J.in_strides[0] = J.out_strides[0] = n;
  J.conj_in = J.conj_out = inverse ? 1 : 0;
  run_rows(J);
}

}  // namespace

// x[k] * chirp[k], zero-padded to m; its DFT; times the filter,
// conjugated; the DFT again; conjugated, times chirp[k] and the scale
// (the lane engine's order of operations, bluestein() in lane_bluestein.h).
// The transforms of m are one-row c2c jobs through run_rows, which gives
// them the few-rows four-step split (every lane busy).
template <class S>
void bluestein_row(const Plan<S>& P, const StridedRow& row) {
  const int64_t n = P.n, m = P.d.m;
  Scratch s(sizeof(cx<S>) * m);
  cx<S>* a = (cx<S>*)s.p;
  for (int64_t k = 0; k < n; ++k) {
    cx<S> x = load_at<S>(row.in, row.in_type, k * row.in_stride);
    if (row.conj) x = cx_conj(x);
    a[k] = cx_mul(x, P.chirp[k]);
  }
  for (int64_t k = n; k < m; ++k) a[k] = cx_make<S>(0, 0);
  one_row_c2c(a, m);
  for (int64_t k = 0; k < m; ++k) a[k] = cx_conj(cx_mul(a[k], P.filter[k]));
  one_row_c2c(a, m);
  const S sc = (S)row.scale;
  for (int64_t k = 0; k < n; ++k) {
    cx<S> y = cx_mul(cx_conj(a[k]), P.chirp[k]);
    y = cx_make<S>(y.re * sc, y.im * sc);
    store_at<S>(row.out, row.out_type, k * row.out_stride, row.conj ? cx_conj(y) : y);
  }
}
template void bluestein_row<float>(const Plan<float>&, const StridedRow&);
template void bluestein_row<double>(const Plan<double>&, const StridedRow&);

// z = x0 + i x1, Z = DFT(z); X0[k] = (Z[k] + conj Z[n-k]) / 2 and
// X1[k] = -i (Z[k] - conj Z[n-k]) / 2 (the lane engine's pairing of odd
// real rows, lane_group.h), times the scale.
template <class S>
void r2c_rows_as_c2c(const StridedRow* rows, int count, int64_t n, int64_t in_len,
                     int64_t out_len) {
  Scratch s(sizeof(cx<S>) * n);
  cx<S>* z = (cx<S>*)s.p;
  const auto real_at = [&](int j, int64_t k) {
    return j < count && k < in_len ? load_real_at<S>(rows[j].in, rows[j].in_type,
                                                     k * rows[j].in_stride)
                                   : (S)0;
  };
  for (int64_t k = 0; k < n; ++k) z[k] = cx_make<S>(real_at(0, k), real_at(1, k));
  one_row_c2c(z, n);
  const S half = (S)(0.5 * rows[0].scale);
  for (int64_t k = 0; k < out_len; ++k) {
    const cx<S> x = z[k], y = cx_conj(z[k == 0 ? 0 : n - k]);
    const cx<S> a = x + y, d = x - y;
    store_at<S>(rows[0].out, rows[0].out_type, k * rows[0].out_stride,
                cx_make<S>(a.re * half, a.im * half));
    if (count > 1)  // -i d / 2
      store_at<S>(rows[1].out, rows[1].out_type, k * rows[1].out_stride,
                  cx_make<S>(d.im * half, -d.re * half));
  }
}
template void r2c_rows_as_c2c<float>(const StridedRow*, int, int64_t, int64_t, int64_t);
template void r2c_rows_as_c2c<double>(const StridedRow*, int, int64_t, int64_t, int64_t);

template <class S>
void c2r_rows_as_c2c(const StridedRow* rows, int count, int64_t n, int64_t in_len) {
  Scratch s(sizeof(cx<S>) * n);
  cx<S>* z = (cx<S>*)s.p;
  const int64_t h = n / 2;
  const auto bin = [&](int j, int64_t k) {  // bin k <= h of row j
    if (j >= count || k >= in_len) return cx_make<S>(0, 0);
    const cx<S> x = load_at<S>(rows[j].in, rows[j].in_type, k * rows[j].in_stride);
    return k == 0 ? cx_make<S>(x.re, 0) : x;
  };
  for (int64_t k = 0; k <= h; ++k) {
    const cx<S> f0 = bin(0, k), f1 = bin(1, k);
    z[k] = cx_make<S>(f0.re - f1.im, f0.im + f1.re);  // F0 + i F1
    if (k > 0)  // F_j[n-k] = conj F_j[k]
      z[n - k] = cx_make<S>(f0.re + f1.im, f1.re - f0.im);
  }
  one_row_c2c(z, n, /*inverse=*/true);
  const S sc = (S)rows[0].scale;
  for (int j = 0; j < count; ++j)
    for (int64_t k = 0; k < n; ++k)
      store_real_at<S>(rows[j].out, rows[j].out_type, k * rows[j].out_stride,
                       (j == 0 ? z[k].re : z[k].im) * sc);
}
template void c2r_rows_as_c2c<float>(const StridedRow*, int, int64_t, int64_t);
template void c2r_rows_as_c2c<double>(const StridedRow*, int, int64_t, int64_t);

namespace {

template <class S>
void bluestein_large(const Plan<S>& P, cx<S>* x) {
  const int64_t n = P.n, m = P.d.m;
  std::vector<cx<S>> a(m, cx_make<S>(0, 0));
  for (int64_t k = 0; k < n; ++k) a[k] = cx_mul(x[k], P.chirp[k]);
  large_fft<S>(P.inner.get(), a.data());
  for (int64_t k = 0; k < m; ++k) a[k] = cx_conj(cx_mul(a[k], P.filter[k]));
  large_fft<S>(P.inner.get(), a.data());
  for (int64_t k = 0; k < n; ++k) x[k] = cx_mul(cx_conj(a[k]), P.chirp[k]);
}

}  // namespace

template <class S>
void large_fft(const void* plan, void* buf) {
  const Plan<S>& P = *(const Plan<S>*)plan;
  cx<S>* x = (cx<S>*)buf;
  if (!P.large) {
    cx_axis_job J = c2c_job<S>(P.n, x, x);
    J.nrows = J.sizes[0] = 1;
    set_plan(J, P);
    run_job(J);
  } else if (P.n1) {
    const int t = sizeof(S) == 8 ? CX_F64 : CX_F32;
    four_step(P, StridedRow{x, t, 1, x, t, 1, false, 1.0});
  } else {
    bluestein_large(P, x);
  }
}
template void large_fft<float>(const void*, void*);
template void large_fft<double>(const void*, void*);

}  // namespace complexext
