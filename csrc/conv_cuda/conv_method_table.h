// The convolution method table: times of each method of the CUDA
// convolution on the benchmark's shapes, which the method "auto" reads
// (csrc/conv_cuda/conv_method.cpp; the rule: docs/gpu.md, "Choosing the method").
// Written by benchmarks/gpu.py --write-conv-table (bash
// benchmarks/device_check.sh runs it); a new run replaces the whole file.
//
// Columns: the call (shape name; dtype c32/c64/c128; spatial dims;
// transposed 0/1; bias 0/1; elems, the input's elements: batch x channels x
// spatial sizes; kernel, the kernel's elements; cin, cout: channels), then
// the time of torch's own convolution of the same call and of each method,
// in the unit below; '-': not timed.
#pragma once

namespace complexext {
namespace conv_table {

constexpr const char kTimes[] = R"table(
# device: NVIDIA H200 (driver 580.159.04)
# date: 2026-11-30
# unit: torch = 1: each time over that of torch's own complex32 convolution
#   of the same call (the run's absolute times were not recorded)
# source: docs/gpu.md, 'Status: first run on a GPU, 2026-11-30' (commit
#   57f6303; torch 2.11.0+cu130, CUDA 13.0, cuDNN 9.19, benchmarks/gpu.py at
#   its defaults: batch 8, 7 reps): 'Convolution (complex32, torch complex32
#   / complexext): encoder 0.91x, decoder 0.33x, conv1d 0.95x'
# note: Seeded from those three ratios, not written by a run. complexext's
#   convolution in that run took the method then fixed for complex32 with a
#   bias, rows32, so rows32 = 1 / ratio: 1 / 0.91, 1 / 0.33, 1 / 0.95 (the
#   ratios were printed to two decimals).
# note: Not recorded, so not here: rows, wide, wide32, gauss, and every call
#   without a bias or in complex64. The same page says 'the wide32/rows32
#   methods are within 0.7-1.9x of each other; the default pick is not the
#   best one on this GPU', which names no shape, so no time of wide32 is
#   derived from it.
# note: Replace with a device run: bash benchmarks/device_check.sh
#   (benchmarks/gpu.py --write-conv-table).
# shape  dtype dims transposed bias elems    kernel cin cout torch rows rows32 wide wide32 gauss
  enc    c32   2    0          1    13107200 10     64  128  1     -    1.099  -    -      -
  dec    c32   2    1          1    13172736 10     128 64   1     -    3.03   -    -      -
  conv1d c32   1    0          1    8192000  3      64  64   1     -    1.053  -    -      -
)table";

}  // namespace conv_table
}  // namespace complexext
