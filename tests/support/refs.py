"""Test helpers: scipy references, random data, error measures."""
import numpy as np
import scipy.fft
import torch

FUNCS_1D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
FUNCS_2D = [f + "2" for f in FUNCS_1D]
FUNCS_ND = [f + "n" for f in FUNCS_1D]
ALL_FUNCS = FUNCS_1D + FUNCS_2D + FUNCS_ND

COMPLEX = [torch.complex32, torch.complex64, torch.complex128]
REAL_OF = {torch.complex32: torch.float16, torch.complex64: torch.float32,
           torch.complex128: torch.float64}
WIDE = {torch.complex32: torch.complex128, torch.complex64: torch.complex128,
        torch.complex128: torch.complex128, torch.float16: torch.float64,
        torch.float32: torch.float64, torch.float64: torch.float64}


def real_input(name):
    """rfft* and ihfft* take real input only."""
    return name.startswith(("rfft", "ihfft"))


def c2r_output(name):
    """irfft* and hfft* return real tensors."""
    return name.startswith(("irfft", "hfft"))


def input_dtype(name, cdtype):
    """The input dtype of function name at the precision of complex dtype cdtype."""
    return REAL_OF[cdtype] if real_input(name) else cdtype


def output_dtype(name, cdtype):
    return REAL_OF[cdtype] if c2r_output(name) else cdtype


def rand(shape, dtype, seed=0, device="cpu"):
    """Standard normal data (complex: both parts), rounded to dtype."""
    g = torch.Generator().manual_seed(seed)
    wide = torch.complex128 if dtype.is_complex else torch.float64
    return torch.randn(shape, dtype=wide, generator=g).to(dtype).to(device)


def to_numpy(t):
    """t widened to complex128/float64 as a numpy array (conj bit resolved)."""
    return t.detach().resolve_conj().cpu().to(WIDE[t.dtype]).numpy()


def scipy_ref(name, x, **kw):
    """scipy.fft's name on tensor x in float64; kw in torch's spelling."""
    kw = dict(kw)
    if "dim" in kw:
        kw["axis" if name in FUNCS_1D else "axes"] = kw.pop("dim")
    return getattr(scipy.fft, name)(to_numpy(x), **kw)


def rel_rms(a, ref):
    """||a - ref|| / ||ref|| in float64 (a tensor or array, ref an array)."""
    a = to_numpy(a) if isinstance(a, torch.Tensor) else a
    den = np.linalg.norm(ref)
    return float(np.linalg.norm(a - ref) / (den if den > 0 else 1.0))


def rounding_floor(ref, dtype):
    """The error of the exact result ref rounded to dtype: the best possible."""
    wide = torch.from_numpy(np.ascontiguousarray(ref))
    return rel_rms(wide.to(dtype), ref)


def check_precision(got, ref, cdtype):
    """got at the complex32 floor (within 1.15 times the error of ref rounded
    to got's dtype), or near fp32/fp64 rounding for complex64/complex128."""
    err = rel_rms(got, ref)
    if cdtype == torch.complex32:
        assert err <= 1.15 * rounding_floor(ref, got.dtype), err
    else:
        assert err < (1e-13 if cdtype == torch.complex128 else 1e-6), err


_HALF_CONV = {}


def torch_half_conv_at_floor():
    """Whether torch's own CPU float16 convolutions (forward, transposed,
    weight gradient) compute at the float16 rounding floor on this CPU. The
    CUDA convolution's layout code runs on the CPU through them; where they
    accumulate in float16 (torch 2.13's CPU kernels on some AMD CPUs: 2.0 x
    the floor for conv_transpose1d, 1.24 x for the weight gradient), a test
    of that code at the floor measures torch, not complexext."""
    if "ok" not in _HALF_CONV:
        g = torch.Generator().manual_seed(0)

        def r(a, e):
            return float((a.double() - e).norm() / e.norm())

        def wide(*s):
            return torch.randn(*s, generator=g, dtype=torch.float64).half()

        x, w = wide(2, 16, 41), wide(16, 8, 5)
        e = torch.nn.functional.conv_transpose1d(x.double(), w.double())
        ok = r(torch.nn.functional.conv_transpose1d(x, w), e) <= 1.15 * r(e.half(), e)
        gy, xx = wide(2, 16, 37), wide(2, 12, 41)
        ww = torch.zeros(16, 12, 5, dtype=torch.half)
        args = (None, [1], [0], [1], False, [0], 1, [False, True, False])
        gw = torch.ops.aten.convolution_backward(gy, xx, ww, *args)[1]
        ge = torch.ops.aten.convolution_backward(gy.double(), xx.double(), ww.double(), *args)[1]
        ok = ok and r(gw, ge) <= 1.15 * r(ge.half(), ge)
        _HALF_CONV["ok"] = ok
    return _HALF_CONV["ok"]
