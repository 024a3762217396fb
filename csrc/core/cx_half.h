// IEEE binary16 load and store with fp32 compute.
//
// Storage is the 16-bit pattern on the host and CUDA (cx_half_t), Metal's
// native half there. Conversions round to nearest even, keep NaN payloads
// quiet, send overflow to inf and handle subnormals exactly, the same as
// torch's own float16 conversion.
#pragma once
#include "cx_defs.h"

#if defined(CX_METAL)
typedef half cx_half_t;
CX_FN float cx_half_to_float(cx_half_t h) { return float(h); }
CX_FN cx_half_t cx_float_to_half(float f) { return half(f); }
#elif defined(CX_CUDA) && defined(__CUDACC_RTC__)
// NVRTC (kernels compiled at first use): no cuda_fp16.h, the conversions in PTX.
typedef cx_u16 cx_half_t;
CX_FN float cx_half_to_float(cx_half_t h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
}
CX_FN cx_half_t cx_float_to_half(float f) {
  cx_half_t h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
}
// A pair of fp16 values as one 32-bit word (the first in the low half).
CX_FN float2 cx_h2_to_f2(cx_u32 w) {
  float2 f;
  asm("{\n\t.reg .b16 lo, hi;\n\tmov.b32 {lo, hi}, %2;\n\t"
      "cvt.f32.f16 %0, lo;\n\tcvt.f32.f16 %1, hi;\n\t}"
      : "=f"(f.x), "=f"(f.y) : "r"(w));
  return f;
}
CX_FN cx_u32 cx_f2_to_h2(float a, float b) {
  cx_u32 w;
#if __CUDA_ARCH__ >= 800
  asm("cvt.rn.f16x2.f32 %0, %2, %1;" : "=r"(w) : "f"(a), "f"(b));  // a in the low half
#else
  asm("{\n\t.reg .b16 lo, hi;\n\tcvt.rn.f16.f32 lo, %1;\n\tcvt.rn.f16.f32 hi, %2;\n\t"
      "mov.b32 %0, {lo, hi};\n\t}"
      : "=r"(w) : "f"(a), "f"(b));
#endif
  return w;
}
#elif defined(CX_CUDA)
#include <cuda_fp16.h>
typedef cx_u16 cx_half_t;
CX_FN float cx_half_to_float(cx_half_t h) { return __half2float(__ushort_as_half(h)); }
CX_FN cx_half_t cx_float_to_half(float f) { return __half_as_ushort(__float2half_rn(f)); }
CX_FN float2 cx_h2_to_f2(cx_u32 w) {
  return __half22float2(*reinterpret_cast<const __half2*>(&w));
}
CX_FN cx_u32 cx_f2_to_h2(float a, float b) {
  const __half2 h = __floats2half2_rn(a, b);
  return *reinterpret_cast<const cx_u32*>(&h);
}
#else
typedef cx_u16 cx_half_t;

CX_FN cx_u32 cx_f32_bits(float f) {
  union { float f; cx_u32 u; } v;
  v.f = f;
  return v.u;
}
CX_FN float cx_bits_f32(cx_u32 u) {
  union { float f; cx_u32 u; } v;
  v.u = u;
  return v.f;
}

// Portable conversions. ISA-specific CPU code overrides them with F16C.
CX_FN float cx_half_to_float_soft(cx_half_t h) {
  cx_u32 sign = (cx_u32)(h & 0x8000u) << 16;
  cx_u32 exp = (h >> 10) & 0x1fu;
  cx_u32 man = h & 0x3ffu;
  if (exp == 0) {
    // zero or subnormal: man * 2^-24 is exact in fp32
    float mag = (float)man * 5.9604644775390625e-8f;
    return cx_bits_f32(cx_f32_bits(mag) | sign);
  }
  if (exp == 31) return cx_bits_f32(sign | 0x7f800000u | (man << 13));
  return cx_bits_f32(sign | ((exp + 112u) << 23) | (man << 13));
}

CX_FN cx_half_t cx_float_to_half_soft(float f) {
  cx_u32 x = cx_f32_bits(f);
  cx_u32 sign = (x >> 16) & 0x8000u;
  x &= 0x7fffffffu;
  if (x >= 0x7f800000u) {  // inf or NaN (NaN stays NaN: set the quiet bit)
    cx_u32 nan = x > 0x7f800000u ? (0x200u | ((x >> 13) & 0x3ffu)) : 0u;
    return (cx_half_t)(sign | 0x7c00u | nan);
  }
  if (x >= 0x477ff000u) return (cx_half_t)(sign | 0x7c00u);  // >= 65520: inf
  if (x < 0x38800000u) {
    // Below 2^-14 the result is subnormal: adding 0.5 makes the FPU round
    // the value at a resolution of 2^-24 (the half subnormal step).
    float t = cx_bits_f32(x) + 0.5f;
    return (cx_half_t)(sign | (cx_f32_bits(t) - 0x3f000000u));
  }
  // Normal: rebias the exponent (127 - 15 = 112) and round the 13 dropped
  // bits to nearest even.
  cx_u32 odd = (x >> 13) & 1u;
  x += 0xc8000000u + 0xfffu + odd;
  return (cx_half_t)(sign | (x >> 13));
}

#if defined(CX_F16C)
// Set only by CPU translation units compiled for F16C.
CX_FN float cx_half_to_float(cx_half_t h) { return _cvtsh_ss(h); }
CX_FN cx_half_t cx_float_to_half(float f) { return (cx_half_t)_cvtss_sh(f, 0); }
#else
CX_FN float cx_half_to_float(cx_half_t h) { return cx_half_to_float_soft(h); }
CX_FN cx_half_t cx_float_to_half(float f) { return cx_float_to_half_soft(f); }
#endif
#endif
