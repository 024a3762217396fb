"""Accuracy of complex convolution: complex32 at the rounding floor (the
complex128 result rounded to complex32), complex64 at fp32 accuracy, the
portable and F16C conversions bitwise equal (CPU only: CPU instruction sets),
NaN/Inf and overflow. On each device, against references on the CPU."""
import hashlib
import json
import os
import subprocess
import sys

import pytest
import torch
import torch.nn.functional as TF

import complexext.nn.functional as CF
from conftest import to_cpu, to_device
from support.refs import rand

C128, C32 = torch.complex128, torch.complex32

# Long accumulations (Cin/groups * kernel terms), sizes that leave partial
# 8 x 8 blocks and 64-wide tiles, groups of 4 and of 10 channels, a real
# weight, the four layer kinds.
CASES = [
    ("conv1d", (4, 64, 333), (48, 64, 3), False, {"padding": 1}),
    ("conv2d", (2, 32, 24, 37), (40, 32, 3, 3), False, {"padding": 1}),
    ("conv2d", (2, 30, 19, 21), (24, 10, 5, 2), False, {"stride": (2, 1), "padding": (2, 1),
                                                       "groups": 3}),
    ("conv2d", (2, 16, 20, 20), (12, 4, 3, 3), True, {"dilation": 2, "groups": 4}),
    ("conv_transpose1d", (3, 48, 101), (48, 40, 4), False, {"stride": 2, "padding": 1}),
    ("conv_transpose2d", (2, 40, 13, 27), (40, 32, 5, 2), False,
     {"stride": (2, 1), "padding": (2, 1), "output_padding": (1, 0)}),
]


def case_id(c):
    return f"{c[0]}-{'x'.join(map(str, c[1]))}{'-realw' if c[3] else ''}"


def data(case, dtype=C32):
    name, xs, ws, real_w, kw = case
    x = rand(xs, dtype, seed=1)
    fan = ws[1] * ws[2] * (ws[3] if len(ws) == 4 else 1)
    w = (rand(ws, C128, seed=2) / fan ** 0.5).to(dtype)
    if real_w:
        w = torch.view_as_real(w)[..., 0].contiguous()
    cout = ws[1] * kw.get("groups", 1) if "transpose" in name else ws[0]
    b = rand((cout,), dtype, seed=3)
    return x, w, b


def exact(name, x, w, b, kw):
    return getattr(TF, name)(x.to(C128), w.to(C128), b.to(C128), **kw)


def rel_rms(y, ref):
    return float((to_cpu(y).to(C128) - ref).abs().norm() / ref.abs().norm())


def on(device, *tensors):
    return [to_device(t, device) for t in tensors]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_complex32_at_the_rounding_floor(case, device):
    name, kw = case[0], case[4]
    x, w, b = data(case)
    ref = exact(name, x, w, b, kw)
    floor = rel_rms(ref.to(C32), ref)
    y = getattr(CF, name)(*on(device, x, w, b), **kw)
    assert y.device.type == device and y.dtype == C32
    ratio = rel_rms(y, ref) / floor
    assert ratio <= 1.15, f"complex32 error is {ratio:.3f} x the floor {floor:.3g}"


def gauss_in_half(name, x, w, b, kw):
    """torch's complex32 recipe, emulated: three real convolutions (Gauss),
    each rounded to fp16, combined in fp16."""
    f = lambda u, v: getattr(TF, name)(u.double(), v.double(), None, **kw).half()  # noqa: E731
    xr, xi, wr, wi = x.real, x.imag, w.real, w.imag
    k1, k2, k3 = f(xr + xi, wr), f(xr, wi - wr), f(xi, wr + wi)
    shape = [1, -1] + [1] * (x.dim() - 2)
    return torch.complex((k1 - k3).float(), (k1 + k2).float()) + b.to(C128).view(shape)


def test_floor_ratio_catches_the_gauss_trick():
    """The bound above is tight enough to fail a worse algorithm: the Gauss
    trick with fp16 intermediates lands well above 1.15 on the same data."""
    case = CASES[1]
    name, kw = case[0], case[4]
    x, w, b = data(case)
    ref = exact(name, x, w, b, kw)
    floor = rel_rms(ref.to(C32), ref)
    assert rel_rms(gauss_in_half(name, x, w, b, kw).to(C32), ref) / floor > 1.3


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_complex64_at_fp32_accuracy(case, device):
    """Each real output is one fp32 sum of K = 2 * Cin/groups * kernel-size
    products (K/2 with a real weight); rounding errors of a sum of K terms
    grow like sqrt(K) * eps: the bound."""
    name, xs, ws, real_w, kw = case
    x, w, b = data(case, torch.complex64)
    terms = (1 if real_w else 2) * (ws[0] if "transpose" in name else ws[1]) * ws[2] * (
        ws[3] if len(ws) == 4 else 1) // (kw.get("groups", 1) if "transpose" in name else 1)
    err = rel_rms(getattr(CF, name)(*on(device, x, w, b), **kw), exact(name, x, w, b, kw))
    assert err < terms ** 0.5 * 2.0 ** -24


def digest(y):
    return hashlib.sha256(torch.view_as_real(y).contiguous().view(torch.int16).numpy()
                          .tobytes()).hexdigest()


def test_portable_and_f16c_conversions_agree_bitwise():
    """COMPLEXEXT_CPU_ISA=generic selects the portable float16 loops and
    transposes; both round to nearest even, so results are identical."""
    script = (
        "import json, complexext.nn.functional as CF, test_conv_accuracy as t\n"
        "print(json.dumps([t.digest(getattr(CF, c[0])(*t.data(c), **c[4])) for c in t.CASES]))\n")
    env = dict(os.environ, COMPLEXEXT_CPU_ISA="generic")
    here = os.path.dirname(os.path.abspath(__file__))
    res = subprocess.run([sys.executable, "-W", "ignore", "-c", script], env=env, cwd=here,
                         capture_output=True, text=True, check=True)
    generic = json.loads(res.stdout.strip().splitlines()[-1])
    assert generic == [digest(getattr(CF, c[0])(*data(c), **c[4])) for c in CASES]


@pytest.mark.parametrize("dtype", [C32, torch.complex64], ids=str)
def test_nan_and_inf_propagate(dtype, device):
    x, w = rand((1, 2, 32), dtype), rand((3, 2, 3), dtype, seed=1)
    x[0, 1, 10] = complex(float("nan"), 0)
    x[0, 0, 20] = complex(float("inf"), 0)
    y = torch.view_as_real(to_cpu(CF.conv1d(*on(device, x, w))).to(C128))
    bad = ~torch.isfinite(y).all(-1).all(1)[0]
    assert bad[8:11].all() and bad[18:21].all()
    assert not bad[:8].any() and not bad[11:18].any() and not bad[21:].any()


def test_complex32_overflow_gives_inf(device):
    """fp16 holds magnitudes up to 65504: a larger result becomes inf."""
    x = torch.full((1, 4, 8), 200 + 0j, dtype=C32)
    w = torch.full((1, 4, 3), 100 + 0j, dtype=C32)
    y = to_cpu(CF.conv1d(*on(device, x, w)))
    assert torch.isinf(y.real.float()).all()
    small = to_cpu(CF.conv1d(*on(device, x * 0.0625, w * 0.0625)))
    assert torch.isfinite(small.real.float()).all()
