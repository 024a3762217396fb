// Lane kernels for AVX-512 (F, VL, BW, DQ) + FMA + F16C: 64-byte vectors.
// (PREFETCHW, which every AVX-512 CPU has, fetches output lines for writing.)
// Chosen at run time only where the CPU has them.
#if defined(__x86_64__) || defined(_M_X64)
#pragma GCC target("avx512f,avx512vl,avx512bw,avx512dq,avx2,fma,f16c,prfchw")
#include <immintrin.h>
#define CX_F16C 1
#define CX_AVX512 1
#define CX_NS cx_avx512
#define CX_VEC_BYTES 64
#include "lanes_impl.h"
#else
#define CX_NS cx_avx512
#define CX_VEC_BYTES 16
#include "lanes_impl.h"
#endif
