// Qualifier macros that let the kernel core compile as C++ (g++/clang),
// CUDA (nvcc) and the Metal Shading Language.
//
// The core keeps to the subset all three accept: templates, overloading,
// structs with member functions and the preprocessor. No standard library,
// lambdas, recursion, virtual functions, exceptions, new/delete, goto,
// thread_local or function pointers. Every pointer in a signature carries an
// address-space macro.
#pragma once

#if defined(__METAL_VERSION__)
#define CX_FN inline
#define CX_GLOBAL device
#define CX_SHARED threadgroup
#define CX_CONST constant
#define CX_PRIVATE thread
#define CX_METAL 1
#elif defined(__CUDACC__)
#define CX_FN __host__ __device__ __forceinline__
#define CX_GLOBAL
#define CX_SHARED
#define CX_CONST
#define CX_PRIVATE
#define CX_CUDA 1
#else
#define CX_FN inline __attribute__((always_inline))
#define CX_GLOBAL
#define CX_SHARED
#define CX_CONST
#define CX_PRIVATE
#define CX_HOST 1
#endif

// Fixed-width integers without <cstdint>.
#if defined(CX_METAL)
typedef long cx_i64;
typedef uint cx_u32;
typedef ushort cx_u16;
#elif defined(__CUDACC_RTC__)
typedef long long cx_i64;  // NVRTC: no __INT64_TYPE__ (64 bits, as on the host)
typedef unsigned int cx_u32;
typedef unsigned short cx_u16;
#else
typedef __INT64_TYPE__ cx_i64;  // the same type as int64_t
typedef unsigned int cx_u32;
typedef unsigned short cx_u16;
#endif

// Type of the butterflies' constants: double where the compiler has it (so
// they round once, to the compute type), float in Metal, which has no double.
#if defined(CX_METAL)
typedef float cx_kreal;
#else
typedef double cx_kreal;
#endif

// Most passes a plan may have: 2^62 in radix-2 steps is far beyond any
// length we accept, so this bound is never reached by a valid plan.
#define CX_MAX_PASSES 64
// Largest radix handled by a butterfly; larger prime factors use Bluestein.
#define CX_MAX_RADIX 16
