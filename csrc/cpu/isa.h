// The lane kernels, compiled once per instruction set (isa_*.cpp), and the
// choice among them at run time.
#pragma once
#include "axis_job.h"

#define CX_DECLARE_ISA(ns)                                                   \
  namespace ns {                                                             \
  int lanes(int is_double);                                                  \
  void run_axis_job(const cx_axis_job* J, cx_i64 r0, cx_i64 r1, void* scratch); \
  void run_ola(const cx_ola_job* J, cx_i64 q0, cx_i64 q1, void* acc);        \
  int takes_rows(const cx_axis_job* J);                                      \
  int has_rows();                                                            \
  int takes_radix15();                                                       \
  }
CX_DECLARE_ISA(cx_generic)
CX_DECLARE_ISA(cx_avx2)
CX_DECLARE_ISA(cx_avx512)
#undef CX_DECLARE_ISA

namespace complexext {

struct IsaKernels {
  const char* name;
  int (*lanes)(int is_double);
  void (*run)(const cx_axis_job* J, cx_i64 r0, cx_i64 r1, void* scratch);
  // items [q0, q1) of an overlap-add; acc: hop scalars of its compute type
  void (*ola)(const cx_ola_job* J, cx_i64 q0, cx_i64 q1, void* acc);
  // 1 if a row kernel (one row at a time, lane_row256.h / lane_rowm.h)
  // runs J, so that J's plan is only read for its row fields.
  int (*takes_rows)(const cx_axis_job* J);
  // 1 if this instruction set has row kernels at all: the driver fetches
  // the plans only they read (plan_pair, row plans) only then.
  int (*has_rows)();
  // 1 if the lane engine's cuts merge a 3 and a 5 into one radix-15 pass
  // (dft15 in lanes_impl.h, lane_radices in plan.cpp): AVX-512 only, as
  // its butterfly holds 15 complex vectors. With AVX2's 16 registers it
  // ran 1.69 x slower (Bluestein 4099); the generic build, which is NEON's
  // on ARM (32 registers), was not measured with it.
  int (*takes_radix15)();
};

// The best instruction set this CPU supports, unless COMPLEXEXT_CPU_ISA
// (generic, avx2, avx512) asks for a lower one.
const IsaKernels& isa();

}  // namespace complexext
