// Lane kernels for any x86-64 or other CPU: 16-byte vectors, software
// float16 conversion.
#define CX_NS cx_generic
#define CX_VEC_BYTES 16
// x86-64 without FMA: the even real post-process forms its bins in double
// (r2c_bin, lane_rows.h). (The AVX2 unit's `#pragma GCC target` does not
// define __FMA__, so the test is made here, for this unit only.)
#if defined(__x86_64__) && !defined(__FMA__)
#define CX_POST_IN_DOUBLE 1
#endif
#include "lanes_impl.h"
