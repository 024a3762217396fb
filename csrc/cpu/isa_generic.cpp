// Lane kernels for any x86-64 or other CPU: 16-byte vectors, software
// float16 conversion.
#define CX_NS cx_generic
#define CX_VEC_BYTES 16
#include "lanes_impl.h"
