// The method "auto" of the CUDA convolution (csrc/conv_cuda/conv_cuda.cpp): the one
// measured fastest on the nearest benchmark shape of a table of times
// (csrc/conv_cuda/conv_method_table.h, written by benchmarks/gpu.py
// --write-conv-table), among the methods that keep the call's error at the
// complex32 floor. The rule in full: docs/gpu.md, "Choosing the method".
#pragma once
#include <ATen/ATen.h>

#include <optional>
#include <string>

namespace complexext {
namespace conv {

// table: the text of a table in the format of conv_method_table.h's kTimes
// (tests pass their own); none: the table compiled in.
std::string auto_method(const at::Tensor& input, const at::Tensor& weight, bool bias,
                        bool transposed, int64_t groups,
                        const std::optional<std::string>& table = std::nullopt);

}  // namespace conv
}  // namespace complexext
