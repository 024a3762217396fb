"""Builds complexext._C: the op schemas and CPU kernels, plus the CUDA
kernels where both a CUDA build of torch and nvcc are present.

Settings (environment):
  COMPLEXEXT_CUDA=1|0   force the CUDA sources on or off (default: auto)
  COMPLEXEXT_SANITIZE=1 ASan + UBSan build of the C++ code (.ci/sanitize)
  MAX_JOBS              parallel compile jobs (torch's cpp_extension)
"""
import glob
import os
import shutil
import sys

from setuptools import setup

import torch
from torch.utils import cpp_extension

ROOT = os.path.dirname(os.path.abspath(__file__))


def want_cuda():
    flag = os.environ.get("COMPLEXEXT_CUDA", "auto").lower()
    has_torch_cuda = torch.version.cuda is not None
    has_nvcc = cpp_extension.CUDA_HOME is not None and (
        shutil.which("nvcc") is not None
        or os.path.exists(os.path.join(cpp_extension.CUDA_HOME, "bin", "nvcc")))
    if flag in ("1", "on", "true", "yes"):
        if not (has_torch_cuda and has_nvcc):
            sys.exit("complexext: COMPLEXEXT_CUDA=1 but torch has CUDA=%s and nvcc=%s"
                     % (has_torch_cuda, has_nvcc))
        return True
    if flag in ("0", "off", "false", "no"):
        return False
    return has_torch_cuda and has_nvcc


def cxx_std():
    """The C++ standard torch's headers ask for: ATen.h stops with an #error
    below C++20 from torch 2.14 on (below C++17 before)."""
    major, minor = (int(v) for v in torch.__version__.split("+")[0].split(".")[:2])
    return "-std=c++20" if (major, minor) >= (2, 14) else "-std=c++17"


def extension():
    rel = lambda pats: sorted(os.path.relpath(p, ROOT) for pat in pats
                              for p in glob.glob(os.path.join(ROOT, pat)))
    sources = rel(["csrc/*.cpp", "csrc/cpu/*.cpp"])
    # at::parallel_for is a header template: its "#pragma omp parallel" is
    # compiled into our own objects, and without -fopenmp it silently runs
    # the whole range on the calling thread. Linked with -fopenmp, the
    # extension needs libgomp.so.1, which resolves at load time to the copy
    # torch has already loaded (one OpenMP runtime, one thread pool, and
    # torch.set_num_threads applies). Apple's clang has no -fopenmp: there
    # the CPU kernels run on one thread.
    omp = [] if sys.platform == "darwin" else ["-fopenmp"]
    cxx = ["-O3", cxx_std(), "-ffp-contract=fast", "-fno-math-errno", "-Wno-psabi"] + omp
    use_cuda = want_cuda()
    kwargs = dict(extra_compile_args={"cxx": cxx}, extra_link_args=list(omp))
    # COMPLEXEXT_SANITIZE=1 (.ci/sanitize only): AddressSanitizer and
    # UndefinedBehaviorSanitizer, any UB fatal; -O1 for a build twice as fast;
    # -fno-wrapv undoes Python's -fwrapv, under which signed overflow goes unchecked.
    if os.environ.get("COMPLEXEXT_SANITIZE") == "1":
        san = ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined",
               "-fno-omit-frame-pointer", "-g"]
        opt = [f for f in cxx if f != "-O3"] + ["-O1", "-fno-wrapv"]
        kwargs["extra_compile_args"]["cxx"] = opt + san
        kwargs["extra_link_args"] = san + omp
    if use_cuda:
        sources += rel(["csrc/cuda/*.cu", "csrc/cuda/*.cpp"])
        kwargs["extra_compile_args"]["nvcc"] = ["-O3", cxx_std()]
        kwargs["define_macros"] = [("COMPLEXEXT_WITH_CUDA", "1")]
        ext = cpp_extension.CUDAExtension("complexext._C", sources, **kwargs)
    else:
        ext = cpp_extension.CppExtension("complexext._C", sources, **kwargs)
    print("complexext: building backends: cpu%s (torch %s, torch CUDA %s)"
          % (" + cuda" if use_cuda else "", torch.__version__, torch.version.cuda))
    return ext


setup(
    ext_modules=[extension()],
    cmdclass={"build_ext": cpp_extension.BuildExtension},
)
