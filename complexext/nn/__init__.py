"""complexext.nn: complex convolution modules, their functional forms
(complexext.nn.functional) and complex weight initialisation
(complexext.nn.init)."""
from . import functional, init
from .modules import (ComplexConv1d, ComplexConv2d, ComplexConvTranspose1d,
                      ComplexConvTranspose2d)

__all__ = ["functional", "init", "ComplexConv1d", "ComplexConv2d", "ComplexConvTranspose1d",
           "ComplexConvTranspose2d"]
from .stft import ISTFT, STFT  # noqa: E402  (STFT/ISTFT modules over complexext.stft)
__all__ += ["STFT", "ISTFT"]
