"""The build report and the self-check of `python -m complexext`.

Every function of complexext.fft runs on each device that has complexext
kernels, in complex32, complex64 and complex128, on random data, and is
compared with scipy.fft in float64 on the same (rounded) input.

Accuracy measure: relative RMS error ||y - ref|| / ||ref||. For complex32
it is reported as a ratio to the floor, the relative RMS error of the exact
result rounded to complex32 (see docs/numerics.md).
"""
import math

import numpy as np
import scipy.fft
import torch

import complexext
from complexext._ops import BUILT_WITH_CUDA, ops

# The functions every build must have, then the Hermitian 2-D/n-D ones,
# checked when present.
REQUIRED = ("fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft",
            "rfft2", "irfft2", "rfftn", "irfftn", "hfft", "ihfft")
OPTIONAL = ("hfft2", "ihfft2", "hfftn", "ihfftn")

# Thresholds: complex32 as a ratio to the floor (the bar of the test suite),
# complex64 and complex128 as relative RMS error.
C32_MAX_RATIO = 1.15
C64_MAX_ERR = 1e-5
C128_MAX_ERR = 1e-13

# input dtype, by precision and by whether the function takes real input
_DTYPES = {"c32": (torch.chalf, torch.float16), "c64": (torch.complex64, torch.float32),
           "c128": (torch.complex128, torch.float64)}
_REAL_IN = ("rfft", "rfft2", "rfftn", "ihfft", "ihfft2", "ihfftn")
_REAL_OUT = ("irfft", "irfft2", "irfftn", "hfft", "hfft2", "hfftn")


def devices():
    """Every device torch sees here, in the order cpu, cuda, mps."""
    out = ["cpu"]
    if torch.cuda.is_available():
        out.append("cuda")
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        out.append("mps")
    return out


def has_kernels(device):
    key = {"cpu": "CPU", "cuda": "CUDA", "mps": "MPS"}[device]
    return torch._C._dispatch_has_kernel_for_dispatch_key("complexext::fft_c2c", key)


def build_lines():
    backends = "cpu" + (", cuda" if BUILT_WITH_CUDA else "")
    lines = [
        f"complexext {complexext.__version__}",
        f"  compiled backends : {backends}   ({ops.built_with()})",
        f"  CPU ISA in use    : {ops.cpu_isa()}   (COMPLEXEXT_CPU_ISA=generic|avx2 lowers it)",
        f"  torch             : {torch.__version__}   (CUDA {torch.version.cuda})",
        f"  CPU threads       : {torch.get_num_threads()}",
    ]
    for d in devices():
        state = "complexext kernels" if has_kernels(d) else "no complexext kernels: skipped"
        lines.append(f"  device {d:<11}: {state}")
    return lines


def _cases(name):
    """(input shape, kwargs, view) triples that reach every plan: radix 2..8
    and the odd radices, Bluestein (17, 97, 4099), four-step (65536),
    padding and trimming, strided axes and non-contiguous views, all three
    norms. view: None, "t" (a transposed view) or "step" (every other
    element of the last dim)."""
    if name.endswith("2"):
        return [((3, 12, 20), {}, None), ((2, 17, 32), {"norm": "ortho"}, "step"),
                ((10, 4, 9), {"s": (8, 12), "dim": (0, 2), "norm": "forward"}, None)]
    if name.endswith("n"):
        return [((4, 6, 10), {}, None),
                ((7, 3, 5), {"s": (6, 8), "dim": (-1, 0), "norm": "ortho"}, "t"),
                ((2, 3, 4, 5), {"dim": (1, 2, 3), "norm": "forward"}, None)]
    sizes = (1, 2, 3, 5, 7, 11, 13, 16, 17, 27, 97, 400, 1000, 1024, 4099, 8192, 8209,
             65536, 1 << 20)
    if name in _REAL_OUT:  # output length n from n//2+1 input values
        cases = [((max(2, 16384 // n), n // 2 + 1), {"n": n}, None) for n in sizes]
    else:
        cases = [((max(2, 16384 // n), n), {}, None) for n in sizes]
    return cases + [((64, 120), {"n": 125, "norm": "ortho"}, "step"),
                    ((128, 64), {"n": 60, "dim": 0, "norm": "forward"}, "t")]


def _input(name, shape, prec, gen, device):
    cdt, rdt = _DTYPES[prec]
    real = torch.randn(shape, dtype=torch.float64, generator=gen)
    if name in _REAL_IN:
        return real.to(rdt).to(device)
    imag = torch.randn(shape, dtype=torch.float64, generator=gen)
    return torch.complex(real, imag).to(cdt).to(device)


def _expected_dtype(name, x):
    if x.dtype in (torch.chalf, torch.float16):
        return torch.float16 if name in _REAL_OUT else torch.chalf
    if name in _REAL_OUT:
        return x.real.dtype if x.is_complex() else x.dtype
    return x.dtype if x.is_complex() else {torch.float32: torch.complex64,
                                           torch.float64: torch.complex128}[x.dtype]


def rel_rms(y, ref):
    return float(np.linalg.norm((y - ref).ravel()) / max(np.linalg.norm(ref.ravel()), 1e-300))


def to_numpy64(t):
    t = t.detach().cpu().resolve_conj().resolve_neg()
    return (t.to(torch.complex128) if t.is_complex() else t.to(torch.float64)).numpy()


def floor_of(ref, dtype):
    """Relative RMS error of `ref` (float64 numpy) rounded to `dtype`."""
    r = torch.from_numpy(ref).to(dtype)
    return rel_rms(to_numpy64(r), ref)


def _scipy_kwargs(name, kwargs):
    one_d = not (name.endswith("2") or name.endswith("n"))
    rename = {"dim": "axis" if one_d else "axes"}
    return {rename.get(k, k): v for k, v in kwargs.items()}


def _view(x, view):
    if view == "t":  # same values, transposed strides
        return x.transpose(0, -1).contiguous().transpose(0, -1)
    if view == "step":
        return x[..., ::2]
    return x


def check_function(name, device, gen):
    """Worst measure per precision, and a list of failures (strings)."""
    fn = getattr(complexext.fft, name)
    ref_fn = getattr(scipy.fft, name)
    worst = {"c32": 0.0, "c64": 0.0, "c128": 0.0}
    fails = []
    for shape, kwargs, view in _cases(name):
        for prec in ("c32", "c64", "c128"):
            x = _view(_input(name, shape, prec, gen, device), view)
            where = " ".join(str(p) for p in (f"{name}{tuple(x.shape)}", kwargs, view, prec) if p)
            try:
                y = fn(x, **kwargs)
            except Exception as e:  # report it, go on with the others
                fails.append(f"{where}: raised {type(e).__name__}: {str(e).splitlines()[0]}")
                continue
            want = _expected_dtype(name, x)
            if y.dtype != want:
                fails.append(f"{where}: dtype {y.dtype}, expected {want}")
                continue
            ref = ref_fn(to_numpy64(x), **_scipy_kwargs(name, kwargs))
            if y.shape != ref.shape:
                fails.append(f"{where}: shape {tuple(y.shape)}, expected {ref.shape}")
                continue
            err = rel_rms(to_numpy64(y), ref)
            if prec == "c32":
                fl = floor_of(ref, y.dtype)
                m = err / fl if fl > 0 else (0.0 if err < 1e-7 else math.inf)
                bad = m > C32_MAX_RATIO
            else:
                m = err
                bad = not err <= (C64_MAX_ERR if prec == "c64" else C128_MAX_ERR)
            worst[prec] = max(worst[prec], m) if m == m else math.nan
            if bad or m != m:
                fails.append(f"{where}: error {m:.3g}" + (" x floor" if prec == "c32" else ""))
    return worst, fails


def run(print_fn=print, seed=0):
    """Runs the self-check on every device with kernels; True when all pass."""
    ok = True
    names = [n for n in REQUIRED] + [n for n in OPTIONAL if hasattr(complexext.fft, n)]
    for device in devices():
        if not has_kernels(device):
            print_fn(f"[{device}] skipped: complexext has no kernels for this device")
            continue
        print_fn(f"[{device}] vs scipy.fft in float64   "
                 f"(pass: c32 <= {C32_MAX_RATIO} x floor, c64 <= {C64_MAX_ERR:g}, "
                 f"c128 <= {C128_MAX_ERR:g})")
        print_fn(f"  {'function':<8} {'':4}  {'c32 / floor':>11}  {'c64 error':>9}  {'c128 error':>10}")
        for name in names:
            if not hasattr(complexext.fft, name):
                print_fn(f"  {name:<8} FAIL  missing from complexext.fft")
                ok = False
                continue
            gen = torch.Generator().manual_seed(seed)
            worst, fails = check_function(name, device, gen)
            status = "PASS" if not fails else "FAIL"
            print_fn(f"  {name:<8} {status}  {worst['c32']:>11.3f}  {worst['c64']:>9.2e}  "
                     f"{worst['c128']:>10.2e}")
            for f in fails[:5]:
                print_fn(f"      {f}")
            if len(fails) > 5:
                print_fn(f"      ... and {len(fails) - 5} more")
            ok = ok and not fails
    return ok
