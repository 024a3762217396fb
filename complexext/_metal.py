"""Registers the Metal (MPS) kernels of the complexext ops, on machines
with an Apple GPU and torch.mps.compile_shader (torch 2.7 and newer).
Elsewhere nothing is registered and the ops have no MPS kernel.

The library is compiled on the first call of an op on MPS, once
(_metal_lib). complex128/float64 inputs get a clear error (Metal has no
float64).
"""
import torch

from . import _metal_conv, _metal_ops, _metal_stft

KERNELS = {
    "fft_c2c": _metal_ops.fft_c2c,
    "fft_r2c": _metal_ops.fft_r2c,
    "fft_c2r": _metal_ops.fft_c2r,
    "stft": _metal_stft.stft,
    "istft": _metal_stft.istft,
    "convolution": _metal_conv.convolution,
}

_registered = []


def available():
    """Whether this process can run the Metal kernels."""
    mps = getattr(torch.backends, "mps", None)
    return (mps is not None and mps.is_available()
            and hasattr(getattr(torch, "mps", None), "compile_shader"))


def register(key="MPS"):
    """Registers KERNELS for dispatch key `key`; returns the Library holding them."""
    lib = torch.library.Library("complexext", "IMPL")
    for name, fn in KERNELS.items():
        lib.impl(name, fn, key)
    _registered.append(lib)
    return lib


if available():
    register()
