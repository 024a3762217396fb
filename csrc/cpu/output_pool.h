// The CPU output cache (output_pool.cpp): large outputs and scratch of the
// CPU ops come from a bounded cache of recently freed blocks.
#pragma once
#include <ATen/core/Tensor.h>

#include <cstdint>

namespace complexext {

// at::empty for an op's CPU output or large scratch. One of >= 1 MiB comes
// from a bounded cache of recently freed blocks, so a repeated call
// touches no fresh pages (a page fault per 4 KiB otherwise, as long as the
// transform itself for a few-MiB output); a fresh block of >= 2 MiB is
// 2 MiB aligned and advised as transparent huge pages.
at::Tensor new_output(at::IntArrayRef shape, const at::TensorOptions& options);

// complexext.backends.output_cache: bytes cached, the bound, clear.
int64_t output_cache_size();
int64_t output_cache_max_size();
void output_cache_set_max_size(int64_t n);
void output_cache_clear();
void output_cache_hold_lock(int64_t ms);  // tests: the cache's lock held for ms

}  // namespace complexext
