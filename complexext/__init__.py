"""complexext: complex32 FFT, STFT and convolution for PyTorch."""
from ._load import ops as _ops  # noqa: F401  (loads the compiled kernels)
from . import fft  # noqa: F401
from . import backends  # noqa: F401

__version__ = "0.1.0"
