"""Registers the Metal (MPS) kernels of the complexext ops, on machines
with an Apple GPU and torch.mps.compile_shader (torch 2.7 and newer).
Elsewhere nothing is registered and the ops have no MPS kernel.

The library is compiled on the first call of an op on MPS, once
(lib.py). complex128/float64 inputs get a clear error (Metal has no
float64).
"""
import importlib

import torch

# op -> (module, function) of its MPS kernel. The modules are imported at
# the first call (they read csrc/metal/meta.h), so that importing complexext
# never needs the kernel sources.
KERNELS = {
    "fft_c2c": ("ops", "fft_c2c"),
    "fft_r2c": ("ops", "fft_r2c"),
    "fft_c2r": ("ops", "fft_c2r"),
    "stft": ("stft", "stft"),
    "istft": ("stft", "istft"),
    "convolution": ("conv", "convolution"),
    "convolution_weight_grad": ("conv", "convolution_weight_grad"),
}


def kernel(name):
    """The MPS kernel of op `name`."""
    module, fn = KERNELS[name]
    return getattr(importlib.import_module(f"complexext._mps.{module}"), fn)


def _deferred(name):
    def run(*args):
        return kernel(name)(*args)
    run.__name__ = f"{name}_mps"
    return run

_registered = []


def available():
    """Whether this process can run the Metal kernels."""
    mps = getattr(torch.backends, "mps", None)
    return (mps is not None and mps.is_available()
            and hasattr(getattr(torch, "mps", None), "compile_shader"))


def register(key="MPS"):
    """Registers KERNELS for dispatch key `key`; returns the Library holding them."""
    lib = torch.library.Library("complexext", "IMPL")
    for name in KERNELS:
        lib.impl(name, _deferred(name), key)
    _registered.append(lib)
    return lib


if available():
    register()
