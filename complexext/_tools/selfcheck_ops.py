"""The self-check of complex convolution and STFT/ISTFT in `python -m complexext`.

Each runs on every device with complexext kernels, in complex32, complex64
and complex128, against torch's own float64/complex128 results on the same
(rounded) input: complex convolution against torch's complex128 conv, the
STFT and ISTFT against torch.stft/istft in float64. complex32 is reported
as a ratio to the floor, as for the FFT functions.
"""
import torch

import complexext
from complexext import nn as cnn
from complexext._tools.selfcheck import (C32_MAX_RATIO, C64_MAX_ERR, C128_MAX_ERR, devices,
                                   has_kernels, rel_rms)

_C = {"c32": torch.complex32, "c64": torch.complex64, "c128": torch.complex128}
_R = {"c32": torch.float16, "c64": torch.float32, "c128": torch.float64}


def _conv2d(prec, gen, device):
    x = torch.randn(2, 4, 12, 10, dtype=torch.complex64, generator=gen).to(_C[prec])
    w = torch.randn(6, 4, 3, 3, dtype=torch.complex64, generator=gen).to(_C[prec])
    ref = torch.nn.functional.conv2d(x.to(torch.complex128), w.to(torch.complex128), padding=1)
    return cnn.functional.conv2d(x.to(device), w.to(device), padding=1).cpu(), ref


def _conv_transpose2d(prec, gen, device):
    x = torch.randn(2, 4, 7, 6, dtype=torch.complex64, generator=gen).to(_C[prec])
    w = torch.randn(4, 3, 3, 2, dtype=torch.complex64, generator=gen).to(_C[prec])
    ref = torch.nn.functional.conv_transpose2d(x.to(torch.complex128), w.to(torch.complex128),
                                               stride=2)
    return cnn.functional.conv_transpose2d(x.to(device), w.to(device), stride=2).cpu(), ref


def _stft(prec, gen, device):
    x = torch.randn(2, 4000, generator=gen).to(_R[prec])
    win = torch.hann_window(512, dtype=torch.float64)
    ref = torch.stft(x.double(), 512, 128, window=win, return_complex=True)
    got = complexext.stft(x.to(device), 512, 128, window=win.to(device, torch.float32
                          if prec != "c128" else torch.float64), return_complex=True)
    return got.cpu(), ref


def _istft(prec, gen, device):
    win = torch.hann_window(400, dtype=torch.float64)
    spec = torch.stft(torch.randn(2, 4000, generator=gen, dtype=torch.float64), 400, 160,
                      window=win, return_complex=True).to(_C[prec])
    ref = torch.istft(spec.to(torch.complex128), 400, 160, window=win, length=4000)
    got = complexext.istft(spec.to(device), 400, 160, length=4000, window=win.to(
        device, torch.float32 if prec != "c128" else torch.float64))
    return got.cpu(), ref


CHECKS = (("conv2d", "convolution", _conv2d),
          ("conv_transpose2d", "convolution", _conv_transpose2d),
          ("stft", "stft", _stft), ("istft", "istft", _istft))


def _error(prec, got, ref):
    got = got.to(torch.complex128 if got.is_complex() else torch.float64)
    err = rel_rms(got, ref)
    if prec != "c32":
        return err, err <= (C64_MAX_ERR if prec == "c64" else C128_MAX_ERR)
    low = torch.complex32 if ref.is_complex() else torch.float16
    ratio = err / rel_rms(ref.to(low).to(ref.dtype), ref)
    return ratio, ratio <= C32_MAX_RATIO


def run(print_fn=print, seed=0):
    """True when every check passes on every device with kernels."""
    ok = True
    for device in devices():
        if not has_kernels(device):
            continue
        print_fn(f"[{device}] convolution vs torch complex128, stft/istft vs torch float64")
        for name, op, fn in CHECKS:
            key = {"cpu": "CPU", "cuda": "CUDA", "mps": "MPS"}[device]
            if not torch._C._dispatch_has_kernel_for_dispatch_key(f"complexext::{op}", key):
                print_fn(f"  {name:<16} skipped: no {key} kernel")
                continue
            row, good = [], True
            for prec in ("c32", "c64", "c128"):
                if device == "mps" and prec == "c128":
                    row.append(float("nan"))
                    continue
                gen = torch.Generator().manual_seed(seed)
                err, passed = _error(prec, *fn(prec, gen, device))
                row.append(err)
                good = good and passed
            ok = ok and good
            print_fn(f"  {name:<16} {'PASS' if good else 'FAIL'}  {row[0]:>11.3f}  "
                     f"{row[1]:>9.2e}  {row[2]:>10.2e}")
    return ok
