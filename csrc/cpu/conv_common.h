// Shared by the CPU convolution kernels (conv_ops.cpp, conv_grad.cpp): the
// real weight layout and the 1-d lift; the argument checks and the compute
// type, which every backend uses, are args/conv_args.h.
#pragma once
#include <ATen/ATen.h>

#include "../args/conv_args.h"

#include <optional>
#include <vector>

namespace complexext {
namespace conv {

// A 1-d argument list as 2-d: {first, v[0]} (1-d convolutions run as 2-d
// ones of height 1, for oneDNN's channels-last path).
inline std::vector<int64_t> lift(at::IntArrayRef v, int64_t first) { return {first, v[0]}; }

// The real tensors' layout: channels-last for oneDNN (fp32), planar for the
// fp64 fallback.
inline bool channels_last(at::ScalarType compute) { return compute == at::kFloat; }
inline at::MemoryFormat channels_last_format(int64_t dim) {
  return dim == 5 ? at::MemoryFormat::ChannelsLast3d : at::MemoryFormat::ChannelsLast;
}

}  // namespace conv
}  // namespace complexext
