"""complexext: complex32 FFT, STFT and convolution for PyTorch."""
from ._load import ops as _ops  # noqa: F401  (loads the compiled kernels)
from . import _registrations  # noqa: F401  (fake kernels, vmap rules, autograd of the ops)
from . import _rtc  # noqa: F401  (where libnvrtc lies, for the CUDA kernels compiled at first use)
from . import fft  # noqa: F401
from ._stft import istft, stft  # noqa: F401
from . import backends  # noqa: F401
from . import nn  # noqa: F401  (complex convolution: functional, modules, init)
from . import _metal  # noqa: F401  (MPS kernels, registered where an Apple GPU is present)
from ._overflow import is_overflow_check_enabled, overflow_check, set_overflow_check

__all__ = ["fft", "stft", "istft", "backends", "set_overflow_check", "overflow_check",
           "is_overflow_check_enabled"]
__version__ = "0.1.0"
