// Real values in fp16 or fp32 storage, computed in fp32 (the complex ones
// are the core's cx_load/cx_store).
#pragma once
#include "../core/cx_half.h"

CX_FN float mtl_real(const CX_GLOBAL cx_half_t* p, cx_i64 i) { return cx_half_to_float(p[i]); }
CX_FN float mtl_real(const CX_GLOBAL float* p, cx_i64 i) { return p[i]; }
CX_FN void mtl_put_real(CX_GLOBAL cx_half_t* p, cx_i64 i, float v) { p[i] = cx_float_to_half(v); }
CX_FN void mtl_put_real(CX_GLOBAL float* p, cx_i64 i, float v) { p[i] = v; }
