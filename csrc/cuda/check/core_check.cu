// Compile check of the portable kernel core under nvcc: every template of
// csrc/core is instantiated in device code for float and double, so a
// construct nvcc rejects fails the build here rather than in a later CUDA
// kernel. Nothing here is linked into the extension (setup.py only globs
// csrc/cuda/*.cu, not this folder); .ci/run compiles it with
// nvcc -c -std=c++17 -arch=sm_80 and -arch=sm_90.
//
// It includes only CUDA headers and the core: CPU wheels of torch lack some
// of torch's CUDA headers.
#include <cuda_runtime.h>

#include "../../core/cx_complex.h"
#include "../../core/cx_butterfly.h"
#include "../../core/cx_stockham.h"
#include "../../core/cx_factor.h"
#include "../../core/cx_half.h"

#if !defined(CX_CUDA)
#error "cx_defs.h did not select its CUDA qualifiers under nvcc"
#endif

namespace {

// One transform of length R per thread: load fp16 pairs, twiddle, run the
// butterfly, store through the Stockham output index.
template <typename T>
__device__ void check_radix(const cx_half_t* in, cx_half_t* out, const cx<T>* tw,
                            const cx<T>* roots, int R, int ns) {
  cx<T> v[CX_MAX_RADIX];
  const cx_i64 j = threadIdx.x;
  for (int r = 0; r < R; ++r) {
    v[r] = cx_make<T>((T)cx_half_to_float(in[2 * r]), (T)cx_half_to_float(in[2 * r + 1]));
  }
  cx_apply_twiddles<T, T>(v, R, tw);
  cx_dft<T, T>(v, R, roots);
  const cx_i64 o = cx_stockham_out_index(j, ns, R);
  for (int r = 0; r < R; ++r) {
    cx<T> z = cx_conj(cx_mul_conj(v[r], tw[0]));
    out[2 * (o + r * ns)] = cx_float_to_half((float)z.re);
    out[2 * (o + r * ns) + 1] = cx_float_to_half((float)z.im);
  }
}

template <typename T>
__device__ void check_all_radices(const cx_half_t* in, cx_half_t* out, const cx<T>* tw,
                                  const cx<T>* roots, int ns) {
  // Instantiates the dispatcher cx_dft, and through it every butterfly it
  // knows (the kernel is compiled, never launched, so R need not be a
  // radix a plan would use).
  for (int R = 2; R <= CX_MAX_RADIX; ++R) check_radix<T>(in, out, tw, roots, R, ns);
}

template <typename T>
__device__ void check_named_butterflies(cx<T>* v, const cx<T>* roots) {
  cx_dft2<T, T>(v);
  cx_dft3<T, T>(v);
  cx_dft4<T, T>(v);
  cx_dft5<T, T>(v);
  cx_dft8<T, T>(v);
  cx_dft_odd<T, T>(v, 7, roots);
  cx_dft_odd<T, T>(v, 11, roots);
  cx_dft_odd<T, T>(v, 13, roots);
  v[0] = cx_mul_i(v[0]) + cx_mul_neg_i(v[1]) - cx_scale(v[2], (T)0.5);
  v[1] = cx_mul(v[1], roots[1]);
}

}  // namespace

__global__ void cx_core_check_kernel(const cx_half_t* in, cx_half_t* out,
                                     const cx<float>* twf, const cx<float>* rootsf,
                                     const cx<double>* twd, const cx<double>* rootsd,
                                     cx_i64 n, cx_i64* smooth, int* npasses) {
  check_all_radices<float>(in, out, twf, rootsf, 1 + (int)threadIdx.y);
  check_all_radices<double>(in, out, twd, rootsd, 1 + (int)threadIdx.y);
  cx<float> vf[CX_MAX_RADIX];
  cx<double> vd[CX_MAX_RADIX];
  for (int r = 0; r < CX_MAX_RADIX; ++r) {
    vf[r] = cx_make<float>(cx_half_to_float(in[r]), 0.0f);
    vd[r] = cx_make<double>((double)cx_half_to_float(in[r]), 0.0);
  }
  check_named_butterflies<float>(vf, rootsf);
  check_named_butterflies<double>(vd, rootsd);
  out[0] = cx_float_to_half(vf[0].re + (float)vd[0].re);
  int radices[CX_MAX_PASSES];
  *npasses = cx_factorize(n, radices);
  *smooth = cx_next_smooth(2 * n - 1);
}

// Host side: the plan descriptor the kernels will be handed, and the same
// integer planning code on the host.
void cx_core_check_host(cx_i64 n, int* npasses, cx_i64* smooth) {
  cx_plan_desc<float> df{};
  cx_plan_desc<double> dd{};
  int radices[CX_MAX_PASSES];
  *npasses = cx_factorize(n, radices) + df.npasses + dd.npasses;
  cx_pass p{};
  p.radix = radices[0];
  *smooth = cx_next_smooth(n) + p.radix;
}
