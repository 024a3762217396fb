"""The compiled ops, torch.ops.complexext, and what torch needs to trace and
batch them: the lowest Python layer, over the C++ kernels.

Importing this package loads complexext._C (load.py), tells it where
libnvrtc lies (rtc.py), and registers the ops' fake kernels and vmap rules
(fft.py, stft.py, conv.py, matmul.py), once. It imports nothing from the layers above
(complexext._autograd, complexext._frontend, the public modules).
"""
from .load import BUILT_WITH_CUDA, ops
from . import rtc  # noqa: F401
from . import fft, stft, conv, matmul  # noqa: F401

__all__ = ["ops", "BUILT_WITH_CUDA"]
