"""Where the CUDA binding looks for libnvrtc, which compiles the register
FFT kernels of lengths outside the ahead-of-time table at first use
(docs/cuda.md, "Lengths at first use"). torch's CUDA wheels depend on
NVIDIA's NVRTC wheel (nvidia-cuda-nvrtc), which puts the library in
site-packages rather than on the loader's path; a CUDA toolkit has it under
lib64. The C++ side tries these paths first, then COMPLEXEXT_NVRTC, then
the loader's own search by soname (csrc/rtc/nvrtc.cpp)."""
import glob
import os
import sys

import torch

from .load import ops


def library_candidates():
    """Existing libnvrtc files, the CUDA major of torch's build first."""
    major = (torch.version.cuda or "").split(".")[0]
    found = []
    for base in sys.path:
        nv = os.path.join(base or ".", "nvidia")
        if not os.path.isdir(nv):
            continue
        found += glob.glob(os.path.join(nv, "cu*", "lib", "libnvrtc.so.*[0-9]"))  # CUDA 13 wheels
        found += glob.glob(os.path.join(nv, "cuda_nvrtc", "lib", "libnvrtc.so.*[0-9]"))  # CUDA 12
    home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda"
    found += glob.glob(os.path.join(home, "lib64", "libnvrtc.so.*[0-9]"))
    # one entry per file, libnvrtc-builtins left out, torch's CUDA major first
    seen, out = set(), []
    for f in found:
        name = os.path.basename(f)
        if "builtins" in name or f in seen:
            continue
        seen.add(f)
        out.append(f)
    out.sort(key=lambda f: not os.path.basename(f).startswith("libnvrtc.so.%s" % major)
             if major else False)
    return out


ops._rtc_set_library_candidates(library_candidates())
