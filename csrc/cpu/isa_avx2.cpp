// Lane kernels for AVX2 + FMA + F16C: 32-byte vectors, hardware float16
// conversion. Chosen at run time only where the CPU has them.
#if defined(__x86_64__) || defined(_M_X64)
#pragma GCC target("avx2,fma,f16c")
#include <immintrin.h>
#define CX_F16C 1
#define CX_AVX2 1
#define CX_NS cx_avx2
#define CX_VEC_BYTES 32
#include "lanes_impl.h"
#else
#define CX_NS cx_avx2
#define CX_VEC_BYTES 16
#include "lanes_impl.h"
#endif
