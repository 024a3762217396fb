"""Helpers of the tests: references and measures (refs), forking under a held
lock (fork), the Metal source check and emulation (metal_check, metal_emu and
their shims), the CUDA static check's stand-in kernels (cuda_static)."""
