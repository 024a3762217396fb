"""complexext: complex32 FFT, STFT, convolution and matrix products for PyTorch.

The package in layers, each importing only from those below it:
  public        fft, stft/istft, matmul/bmm/einsum, nn, autocast (amp), backends,
                overflow_check
  _frontend     argument handling of the public functions
  _autograd     autograd.Functions, differentiable dispatchers, Autograd kernels
  _ops          the compiled ops (complexext._C), fake kernels, vmap rules
  _mps          the Metal kernels (over _ops and the C++ plans)
  _tools        python -m complexext: self-check, benchmark, report
"""
from . import _ops  # noqa: F401  (loads the compiled kernels; fake kernels, vmap rules)
from . import _autograd  # noqa: F401  (the ops' Autograd kernels: backward and jvp)
from . import fft  # noqa: F401
from ._frontend.stft import istft, stft  # noqa: F401
from ._frontend.matmul import bmm, einsum, matmul  # noqa: F401
from . import backends  # noqa: F401
from . import nn  # noqa: F401  (complex convolution: functional, modules, init)
from . import _mps  # noqa: F401  (Metal kernels, registered where an Apple GPU is present)
from .amp import autocast, is_autocast_enabled  # noqa: F401
from ._frontend.overflow import is_overflow_check_enabled, overflow_check, set_overflow_check

__all__ = ["fft", "stft", "istft", "matmul", "bmm", "einsum", "autocast", "is_autocast_enabled",
           "backends", "set_overflow_check", "overflow_check",
           "is_overflow_check_enabled"]
__version__ = "0.1.0"
