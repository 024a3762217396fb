// Runs cx_axis_jobs on the CPU: scratch, threads, and the choice of ISA.
#pragma once
#include <ATen/core/Tensor.h>

#include "axis_job.h"

namespace complexext {

// Run every row of J, in parallel over groups of rows.
void run_job(cx_axis_job& J);

// Transform along `axis` of `in` into `out` (same shape but along the
// axis). Fills the geometry of J from the tensors, picks the plan for the
// job's kind and n, and runs it. J.kind, n, in_len, out_len, inverse and
// scale must be set.
void run_axis(cx_axis_job J, const at::Tensor& in, const at::Tensor& out, int64_t axis);

int storage_of(c10::ScalarType t);

}  // namespace complexext
