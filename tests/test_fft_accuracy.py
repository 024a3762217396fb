"""Accuracy of every function against scipy.fft in float64, on random data.

complex32: the relative RMS error is at most 1.15 times the floor, the error
of the exact result rounded to complex32 (float16 for real outputs) on the
same data. complex64: at most 10 times the same floor in fp32 (FFT error
grows like log n; torch's own complex64 FFTs sit at 2 to 8 times it).
complex128: relative error below 1e-13 (skipped on MPS, which has no float64).
Inputs are made on the CPU and moved to each device; references are computed
on the CPU.
"""
import math

import pytest
import torch

import complexext.fft as cf
from conftest import to_cpu, to_device
from support.refs import (COMPLEX, FUNCS_1D, FUNCS_2D, FUNCS_ND, c2r_output, input_dtype,
                   output_dtype, rand, rel_rms, rounding_floor, scipy_ref)

SIZES = [1, 2, 3, 16, 17, 97, 256, 400, 1000, 1024, 4096, 4099, 65536]
SHAPES_2D = [(1, 1), (3, 16), (17, 97), (64, 400), (256, 256), (1000, 12), (2, 4099)]
SHAPES_ND = [(2, 3, 4), (16, 17, 8), (5, 7, 9, 4), (32, 32, 32), (1, 97, 3), (4, 1, 1000)]
ELEMENTS = 1 << 16  # per test, so that the error statistics are stable


def check(name, y, ref, cdtype, device):
    assert y.device.type == device
    err = rel_rms(to_cpu(y), ref)
    if cdtype == torch.complex128:
        assert err < 1e-13, f"{name}: complex128 relative error {err:.3e}"
        return
    floor = rounding_floor(ref, output_dtype(name, cdtype))
    bound = 1.15 * floor if cdtype == torch.complex32 else 10 * floor
    assert err <= bound, (f"{name} {cdtype}: error {err:.4e} is {err / floor:.3f} x the "
                          f"floor {floor:.4e}" if floor else f"{name}: error {err} > 0")


def signal(name, shape, cdtype, seed):
    """Input (on the CPU) whose transform has shape `shape` (half + 1 along the
    last dim for c2r)."""
    shape = list(shape)
    if c2r_output(name):
        shape[-1] = shape[-1] // 2 + 1
    return rand(shape, input_dtype(name, cdtype), seed=seed)


@pytest.mark.parametrize("cdtype", COMPLEX, ids=str)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("name", FUNCS_1D)
def test_1d(name, n, cdtype, device):
    x = signal(name, (max(1, ELEMENTS // n), n), cdtype, seed=n)
    kw = {"n": n} if c2r_output(name) else {}
    y = getattr(cf, name)(to_device(x, device), **kw)
    assert y.dtype == output_dtype(name, cdtype)
    check(name, y, scipy_ref(name, x, **kw), cdtype, device)


@pytest.mark.parametrize("cdtype", COMPLEX, ids=str)
@pytest.mark.parametrize("shape", SHAPES_2D, ids=str)
@pytest.mark.parametrize("name", FUNCS_2D)
def test_2d(name, shape, cdtype, device):
    x = signal(name, (max(1, ELEMENTS // math.prod(shape)),) + shape, cdtype, seed=7)
    y = getattr(cf, name)(to_device(x, device), s=shape)
    check(name, y, scipy_ref(name, x, s=shape, dim=(-2, -1)), cdtype, device)


@pytest.mark.parametrize("cdtype", COMPLEX, ids=str)
@pytest.mark.parametrize("shape", SHAPES_ND, ids=str)
@pytest.mark.parametrize("name", FUNCS_ND)
def test_nd(name, shape, cdtype, device):
    x = signal(name, shape, cdtype, seed=11)
    y = getattr(cf, name)(to_device(x, device), s=shape)
    check(name, y, scipy_ref(name, x, s=shape), cdtype, device)


@pytest.mark.parametrize("cdtype", [torch.complex32, torch.complex128], ids=str)
@pytest.mark.parametrize("norm", ["ortho", "forward", "backward"])
@pytest.mark.parametrize("n", [17, 400, 4096])
@pytest.mark.parametrize("name", FUNCS_1D)
def test_norms(name, n, norm, cdtype, device):
    x = signal(name, (ELEMENTS // n, n), cdtype, seed=3)
    kw = {"n": n} if c2r_output(name) else {}
    check(name, getattr(cf, name)(to_device(x, device), norm=norm, **kw),
          scipy_ref(name, x, norm=norm, **kw), cdtype, device)


@pytest.mark.parametrize("name", FUNCS_1D)
def test_large_1d(name, device):
    """2^20 points in one row: the multi-pass path."""
    n = 1 << 20
    x = signal(name, (n,), torch.complex32, seed=5)
    kw = {"n": n} if c2r_output(name) else {}
    check(name, getattr(cf, name)(to_device(x, device), norm="ortho", **kw),
          scipy_ref(name, x, norm="ortho", **kw), torch.complex32, device)
