"""STFT and ISTFT modules: complexext.stft / istft with a window buffer and
ESPnet-style defaults (n_fft=512, hop_length=128, win_length=512, a periodic
Hann window, centred frames with reflect padding, onesided, not normalised).

The window is a buffer (in state_dict, moved by .to()); a named window is
computed in float64 and rounded once to float32. It stays real and at
least float32: casting the module to float16 or to a complex dtype keeps the
window in float32 (float64 for complex128), since the kernels compute in fp32
for half storage and a float16 Hann window would add its own rounding error
to every result.
"""
import torch
from torch import nn

from .._frontend.stft import _PAD_MODES, _lengths, istft, stft

_WINDOW_DTYPE = {torch.float16: torch.float32, torch.bfloat16: torch.float32,
                 torch.complex32: torch.float32, torch.complex64: torch.float32,
                 torch.complex128: torch.float64}


def _make_window(name, window, win_length):
    if window is None:
        return torch.ones(win_length)
    if isinstance(window, str):
        maker = getattr(torch, f"{window}_window", None)
        if maker is None:
            raise ValueError(f"{name}: unknown window {window!r} (torch.{window}_window does not "
                             f"exist)")
        return maker(win_length, dtype=torch.float64).float()
    if isinstance(window, torch.Tensor):
        if window.is_complex() or not window.is_floating_point():
            raise TypeError(f"{name}: expected a real floating point window, got {window.dtype}")
        if window.shape != (win_length,):
            raise ValueError(f"{name}: expected a window of length win_length = {win_length}, "
                             f"got shape {tuple(window.shape)}")
        return window.detach().clone()
    raise TypeError(f"{name}: window must be a name, a tensor or None, got "
                    f"{type(window).__name__}")


class _Windowed(nn.Module):
    def __init__(self, n_fft, hop_length, win_length, window, center, normalized, onesided):
        super().__init__()
        name = type(self).__name__
        self.n_fft, self.hop_length, self.win_length = _lengths(name, n_fft, hop_length,
                                                                win_length)
        self.center, self.normalized, self.onesided = center, normalized, onesided
        self.register_buffer("window", _make_window(name, window, self.win_length))

    def _apply(self, fn, recurse=True):
        """nn.Module._apply, with the window kept real and at least float32."""
        before = self.window
        super()._apply(fn, recurse)
        after = self.window
        if after.dtype in _WINDOW_DTYPE:
            self.window = before.to(device=after.device, dtype=_WINDOW_DTYPE[after.dtype])
        return self

    def extra_repr(self):
        return (f"n_fft={self.n_fft}, hop_length={self.hop_length}, "
                f"win_length={self.win_length}, center={self.center}, "
                f"normalized={self.normalized}, onesided={self.onesided}")


class STFT(_Windowed):
    """complexext.stft as a module: (B, L) or (L,) signal -> (B, freq, T) spectrum.

    A float16 signal gives a complex32 spectrum. window: a torch window name
    ("hann", "hamming", "blackman", ...; periodic), a tensor of length
    win_length, or None (rectangular).
    """

    def __init__(self, n_fft=512, hop_length=128, win_length=512, window="hann", center=True,
                 pad_mode="reflect", normalized=False, onesided=True):
        if pad_mode not in _PAD_MODES:
            raise ValueError(f"STFT: pad_mode must be one of {', '.join(_PAD_MODES)}, got "
                             f"{pad_mode!r}")
        super().__init__(n_fft, hop_length, win_length, window, center, normalized, onesided)
        self.pad_mode = pad_mode

    def forward(self, x):
        complex_input = isinstance(x, torch.Tensor) and x.is_complex()
        return stft(x, self.n_fft, self.hop_length, self.win_length, self.window, self.center,
                    self.pad_mode, self.normalized, None if complex_input else self.onesided,
                    return_complex=True)


class ISTFT(_Windowed):
    """complexext.istft as a module: (B, freq, T) or (freq, T) spectrum ->
    (B, L) or (L,) signal; a complex32 spectrum gives a float16 signal.
    forward(spec, length=None): length trims or zero-pads the result."""

    def __init__(self, n_fft=512, hop_length=128, win_length=512, window="hann", center=True,
                 normalized=False, onesided=True):
        super().__init__(n_fft, hop_length, win_length, window, center, normalized, onesided)
        if self.hop_length > self.win_length:
            raise ValueError(f"ISTFT: expected 0 < hop_length <= win_length, got hop_length = "
                             f"{self.hop_length} and win_length = {self.win_length}")

    def forward(self, spec, length=None):
        return istft(spec, self.n_fft, self.hop_length, self.win_length, self.window,
                     self.center, self.normalized, self.onesided, length)
