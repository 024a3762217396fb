"""One table of bad input for every public function, module and raw op.

Each row is a call that must fail: the exception has the row's type
exactly, its message starts with the name of the function, module or op
("rfft2: ", "conv_transpose1d: ", "ComplexConv2d: ", "STFT: ", "fft_c2r: ")
and names the problem (a regex), and every tensor the call was given (module
parameters and buffers included) is left as it was: same values bit for bit,
same metadata, same version counter (nothing written in place). A new
function or case is one more row.

The raw ops' rows run again on "meta" tensors, where the fake kernels (the
ones torch.compile traces with) must refuse them too.

NaN and inf are valid input: they propagate to exactly the outputs that
float64/complex128 torch makes non-finite, without an error.
"""
import re
from dataclasses import dataclass

import pytest
import torch

import complexext
import complexext.fft as cf
import complexext.nn as cnn
import complexext.nn.functional as CF
from support.refs import ALL_FUNCS, FUNCS_1D, REAL_OF, c2r_output, rand, real_input

ops = torch.ops.complexext
C32, C64, C128 = torch.complex32, torch.complex64, torch.complex128
F32 = torch.float32


@dataclass
class Row:
    name: str        # what the message must start with, before ": "
    case: str        # the kind of bad input, for the test id
    fn: object       # the callable (a function, class, module or raw op)
    args: tuple
    kwargs: dict
    exc: type        # the exact exception type
    what: str        # regex the message must contain: the problem
    prefix: str = None  # the message's start, when not "name: " (torch's schema errors)
    meta: bool = True   # raw ops: run on meta tensors too
    xfail: str = None   # a known defect outside the Python front end (CPU kernel)
    meta_xfail: str = None  # the same, in the fake kernel

    def param(self, meta=False):
        reason = self.meta_xfail if meta else self.xfail
        marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
        return pytest.param(self, id=f"{self.name}-{self.case}", marks=marks)


def row(name, case, fn, args, kwargs, exc, what, **extra):
    return Row(name, case, fn, tuple(args), dict(kwargs), exc, what, **extra)


# --- complexext.fft ------------------------------------------------------------

XC = rand((4, 6), C64, seed=1)
XR = rand((4, 6), F32, seed=2)


def fft_rows():
    for name in ALL_FUNCS:
        f, x = getattr(cf, name), (XR if real_input(name) else XC)
        one = name in FUNCS_1D

        def r(case, args, kw, exc, what):
            return row(name, case, f, args, kw, exc, what)

        yield r("not-a-tensor", ([1.0, 2.0],), {}, TypeError, "expected a tensor, got list")
        for dt in (torch.int64, torch.bool, torch.bfloat16):
            yield r(str(dt)[6:], (torch.ones(4, 6, dtype=dt),), {}, TypeError,
                    f"expected a .*tensor, got {dt}")
        if real_input(name):
            yield r("complex-input", (XC,), {}, TypeError, "expected a real input tensor")
        yield r("dim-out-of-range", (x,), {"dim": 2 if one else (0, 2)}, IndexError,
                "dim 2 out of range for a 2-d tensor")
        yield r("dim-float", (x,), {"dim": 0.5 if one else (0.5, 1)}, TypeError,
                "dim must be an int, got float")
        yield r("norm-unknown", (x,), {"norm": "Ortho"}, ValueError,
                "norm must be None, 'backward', 'ortho' or 'forward', got 'Ortho'")
        yield r("norm-int", (x,), {"norm": 1}, ValueError, "norm must be None")
        yield r("size-0", (x[:, :0],), {}, ValueError, "(n|signal size) must be >= 1, got 0")
        yield r("out-real" if not c2r_output(name) else "out-complex", (x,),
                {"out": torch.empty(0, dtype=F32 if not c2r_output(name) else C64)}, TypeError,
                "out must be a (complex|real floating point) tensor")
        yield r("out-not-a-tensor", (x,), {"out": [0.0]}, TypeError, "out must be a .*got list")
        yield r("out-on-meta", (x,), {"out": torch.empty(0, dtype=C64 if not c2r_output(name)
                                                          else F32, device="meta")},
                RuntimeError, "out .*device")
        yield r("out-with-grad", (x.clone().requires_grad_(),),
                {"out": torch.empty(0, dtype=C64 if not c2r_output(name) else F32)},
                RuntimeError, "don't support automatic differentiation")
        if c2r_output(name):  # default output length 2 * (1 - 1)
            yield r("output-length-0", (x[:, :1],), {}, ValueError, "output length must be >= 1")
        if one:
            for n in (0, -2):
                yield r(f"n={n}", (x,), {"n": n}, ValueError, f"n must be >= 1, got {n}")
            yield r("n-float", (x,), {"n": 2.5}, TypeError, "n must be an int, got float")
            yield r("n-bool", (x,), {"n": True}, TypeError, "n must be an int, got bool")
            yield r("0-d-input", (x[0, 0],), {}, IndexError, "out of range for a 0-d tensor")
            continue
        if name.endswith("n") and not name.startswith(("fft", "ifft")):  # fftn: a copy
            yield r("0-d-input", (x[0, 0],), {}, ValueError, "must transform at least one dim")
        yield r("dims-repeated", (x,), {"dim": (1, -1)}, ValueError, "dims must be unique")
        yield r("s-0", (x,), {"s": (3, 0)}, ValueError, r"s\[1\] must be >= 1, got 0")
        yield r("s-negative", (x,), {"s": (-2, 3)}, ValueError, r"s\[0\] must be >= 1, got -2")
        yield r("s-float", (x,), {"s": (2.5, 3)}, TypeError, "s must be an int, got float")
        yield r("s-dim-lengths", (x,), {"s": (3, 4), "dim": (0,)}, ValueError,
                "s and dim must have the same length")
        if name.endswith("2"):
            yield r("1-d-input", (x[0],), {}, IndexError, "dim -2 out of range for a 1-d")
        else:
            yield r("s-too-long", (x,), {"s": (3, 4, 5)}, ValueError,
                    "s has 3 values but the input has only 2")
        if not name.startswith(("fft", "ifft")):  # fftn/ifftn over no dims: a copy, as torch
            yield r("no-dims", (x,), {"dim": ()}, ValueError, "must transform at least one dim")


# --- complexext.stft / istft -----------------------------------------------------

SIG = rand((2, 100), F32, seed=3)
SPEC = torch.stft(SIG, 16, 4, window=torch.hann_window(16), return_complex=True)  # (2, 9, 26)
RC = {"return_complex": True}


def stft_rows():
    f = complexext.stft

    def r(case, args, kw, exc, what):
        return row("stft", case, f, args, {**RC, **kw}, exc, what)

    yield r("not-a-tensor", ([1.0, 2.0], 16), {}, TypeError, "expected a tensor, got list")
    yield r("int64", (SIG.long(), 16), {}, TypeError, "got torch.int64")
    yield r("bool", (SIG > 0, 16), {}, TypeError, "got torch.bool")
    yield r("3-d-input", (SIG[None], 16), {}, ValueError, "expected a 1 or 2-d input")
    yield r("0-d-input", (SIG[0, 0], 16), {}, ValueError, "expected a 1 or 2-d input")
    yield r("empty-signal", (SIG[:, :0], 16), {"center": False}, ValueError,
            "expected 0 < n_fft <= 0")
    yield r("n_fft=0", (SIG, 0), {}, ValueError, "n_fft must be >= 1, got 0")
    yield r("n_fft-float", (SIG, 16.0), {}, TypeError, "n_fft must be an int, got float")
    yield r("n_fft-too-long", (SIG, 101), {"center": False}, ValueError, "n_fft <= 100")
    yield r("hop=0", (SIG, 16), {"hop_length": 0}, ValueError, "hop_length must be >= 1")
    yield r("hop-negative", (SIG, 16), {"hop_length": -4}, ValueError, "hop_length must be >= 1")
    yield r("hop-default-0", (SIG, 2), {}, ValueError, "default n_fft // 4 is 0")
    yield r("win_length=0", (SIG, 16), {"win_length": 0}, ValueError, "win_length must be >= 1")
    yield r("win_length>n_fft", (SIG, 16), {"win_length": 17}, ValueError, "win_length <= n_fft")
    yield r("window-length", (SIG, 16), {"window": torch.ones(15)}, ValueError,
            "window of length win_length = 16, got shape \\(15,\\)")
    yield r("window-2-d", (SIG, 16), {"window": torch.ones(1, 16)}, ValueError,
            "1-d window .* got shape \\(1, 16\\)")
    yield r("window-int", (SIG, 16), {"window": torch.ones(16, dtype=torch.int32)}, TypeError,
            "floating point or complex window, got torch.int32")
    yield r("window-complex-onesided", (SIG, 16), {"window": torch.ones(16, dtype=C64),
            "onesided": True, **RC}, ValueError, "needs a real input and a real window; the "
            "window is complex")
    yield r("window-list", (SIG, 16), {"window": [1.0] * 16}, TypeError,
            "window must be a tensor or None, got list")
    yield r("window-on-meta", (SIG, 16), {"window": torch.ones(16, device="meta")}, ValueError,
            "window is on meta, the input on cpu")
    yield row("stft", "return_complex-default-real", f, (SIG, 16), {}, ValueError,
              "return_complex must be given for a real input")
    yield r("onesided-complex", (SIG.to(C64), 16), {"onesided": True}, ValueError,
            "onesided=True needs a real input")
    yield r("pad_mode", (SIG, 16), {"pad_mode": "wrap"}, ValueError, "pad_mode must be one of")
    yield r("reflect-too-short", (SIG[:, :5], 16), {}, ValueError, "reflect padding of")


def istft_rows():
    f = complexext.istft

    def r(case, args, kw, exc, what):
        return row("istft", case, f, args, kw, exc, what)

    yield r("not-a-tensor", ([1.0], 16), {}, TypeError, "expected a tensor, got list")
    yield r("real-input", (SPEC.real, 16), {}, TypeError, "complex128 input, got torch.float32")
    yield r("int64", (SPEC.real.long(), 16), {}, TypeError, "input, got torch.int64")
    yield r("1-d-input", (SPEC[0, :, 0], 16), {}, ValueError, "expected a 2 or 3-d input")
    yield r("4-d-input", (SPEC[None], 16), {}, ValueError, "expected a 2 or 3-d input")
    yield r("n_fft=0", (SPEC, 0), {}, ValueError, "n_fft must be >= 1, got 0")
    yield r("n_fft-float", (SPEC, 16.0), {}, TypeError, "n_fft must be an int, got float")
    yield r("hop=0", (SPEC, 16), {"hop_length": 0}, ValueError, "hop_length must be >= 1")
    yield r("hop>win_length", (SPEC, 16), {"hop_length": 9, "win_length": 8}, ValueError,
            "hop_length <= win_length")
    yield r("win_length>n_fft", (SPEC, 16), {"win_length": 17}, ValueError, "win_length <= n_fft")
    yield r("bins-vs-n_fft", (SPEC, 32), {}, ValueError, "expected 17 frequency bins .* got 9")
    yield r("bins-two-sided", (SPEC, 16), {"onesided": False}, ValueError,
            "expected 16 frequency bins")
    yield r("onesided-return_complex", (SPEC, 16), {"return_complex": True}, ValueError,
            "needs a two-sided input")
    yield r("no-frames", (SPEC[..., :0], 16), {}, ValueError, "at least one frame")
    yield r("window-length", (SPEC, 16), {"window": torch.ones(15)}, ValueError,
            "window of length win_length = 16")
    yield r("window-int", (SPEC, 16), {"window": torch.ones(16, dtype=torch.int64)}, TypeError,
            "floating point or complex window")
    yield r("window-complex-real-result", (SPEC, 16), {"window": torch.ones(16, dtype=C64)},
            ValueError, "a complex window needs return_complex=True")
    yield r("window-on-meta", (SPEC, 16), {"window": torch.ones(16, device="meta")}, ValueError,
            "window is on meta")
    yield r("length-negative", (SPEC, 16), {"length": -1}, ValueError, "length must be >= 0")
    yield r("length-float", (SPEC, 16), {"length": 10.0}, TypeError, "length must be an int")
    yield r("NOLA-zero-window", (SPEC, 16), {"window": torch.zeros(16)}, RuntimeError,
            "fails the NOLA condition")
    yield r("NOLA-hann-uncentred", (SPEC, 16), {"window": torch.hann_window(16), "center": False},
            RuntimeError, "NOLA condition: the sum of squared windows overlapping sample 0 is 0")


# --- complexext.nn.functional ---------------------------------------------------

def conv_good(name):
    nd = 2 if name.endswith("2d") else 1
    x = rand((2, 4) + (6,) * nd, C64, seed=4)
    w = rand(((4, 3) if "transpose" in name else (3, 4)) + (3,) * nd, C64, seed=5)
    return nd, x, w, rand((3,), C64, seed=6)


def conv_rows():
    for name in ("conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d"):
        f, (nd, x, w, b) = getattr(CF, name), conv_good(name)
        tr = "transpose" in name

        def r(case, args, kw, exc, what):
            return row(name, case, f, args, kw, exc, what)

        for what, i in (("input", 0), ("weight", 1), ("bias", 2)):
            args = [x, w, b]
            args[i] = [1.0]
            yield r(f"{what}-not-a-tensor", args, {}, TypeError,
                    f"expected {what} to be a tensor, got list")
        yield r("input-int64", (x.real.long(), w), {}, TypeError, "unsupported input dtype int64")
        yield r("input-bool", (x.real > 0, w), {}, TypeError, "unsupported input dtype bool")
        yield r("weight-int64", (x, w.real.long()), {}, TypeError, "unsupported weight dtype int64")
        yield r("bias-bool", (x, w, b.real > 0), {}, TypeError, "unsupported bias dtype bool")
        yield r("both-real", (x.real, w.real), {}, TypeError, "input and weight are both real")
        yield r("real-input-other-precision", (x.real.double(), w), {}, TypeError,
                "a complex complex64 weight needs a complex64 input, or a real float32 one")
        yield r("weight-complex128", (x, w.to(C128)), {}, TypeError,
                "a complex64 input needs a complex64 or float32 weight, got complex128")
        yield r("weight-float64", (x, w.real.double()), {}, TypeError, "weight, got float64")
        yield r("bias-complex32", (x, w, b.to(C32)), {}, TypeError,
                "complex64 or float32 bias, got complex32")
        yield r("input-too-few-dims", (x[0, 0], w), {}, ValueError, r"\(unbatched\) .* got shape")
        yield r("input-too-many-dims", (x[None], w), {}, ValueError, r"\(batched\) input, got")
        yield r("weight-dims", (x, w[..., 0]), {}, ValueError, f"expected a {nd + 2}-d weight")
        yield r("channels", (x[:, :3], w), {}, ValueError, "must have 4 channels, got 3")
        yield r("bias-shape", (x, w, b[:2]), {}, ValueError, r"expected a bias of shape \(3,\)")
        for what, v, lo in (("stride", 0, 1), ("stride", -1, 1), ("dilation", 0, 1),
                            ("padding", -1, 0)):
            yield r(f"{what}={v}", (x, w), {what: v}, ValueError, f"{what} values must be >= {lo}")
        yield r("stride-length", (x, w), {"stride": (1,) * (nd + 1)}, ValueError,
                f"stride must be an int or {nd} ints")
        yield r("stride-float", (x, w), {"stride": 1.5}, TypeError, "stride must hold ints")
        yield r("groups=0", (x, w), {"groups": 0}, ValueError, "groups must be >= 1")
        yield r("groups-float", (x, w), {"groups": 1.0}, TypeError, "groups must be an int")
        yield r("groups-not-dividing", (x, w), {"groups": 3 if tr else 2}, ValueError,
                "is not divisible by groups")
        yield r("kernel-size-0", (x, w[..., :0]), {}, ValueError, "kernel sizes must be >= 1")
        yield r("input-size-0", (x[..., :0], w), {}, ValueError, "spatial sizes .* must be >= 1")
        for i, t in enumerate(("input", "weight", "bias")):
            args = [x, w, b]
            args[i] = args[i].to("meta")
            devs = ", ".join("meta" if j == i else "cpu" for j in range(3))
            yield r(f"{t}-on-meta", args, {}, RuntimeError, f"same device, got {devs}")
        if tr:
            yield r("padding-string", (x, w), {"padding": "same"}, ValueError,
                    "padding must be an int or a tuple of ints")
            yield r("output_padding>=stride", (x, w), {"output_padding": 1}, ValueError,
                    "output_padding .* must be smaller than either stride")
            yield r("output_padding-negative", (x, w), {"output_padding": -1}, ValueError,
                    "output_padding values must be >= 0")
            yield r("output-size-0", (x[..., :1], w), {"padding": 2}, ValueError,
                    r"output size along spatial dim \d would be -1")
        else:
            yield r("padding-string", (x, w), {"padding": "full"}, ValueError,
                    "padding must be 'valid', 'same'")
            yield r("padding-same-strided", (x, w), {"padding": "same", "stride": 2}, ValueError,
                    "padding='same' is not supported for strided")
            yield r("kernel>input", (x[..., :2], w), {}, ValueError,
                    r"the kernel \(3 with dilation\) is larger than the padded input \(2\)")


# --- complexext.nn modules --------------------------------------------------------

CONV_MODULES = [cnn.ComplexConv1d, cnn.ComplexConv2d, cnn.ComplexConvTranspose1d,
                cnn.ComplexConvTranspose2d]


def module_rows():
    for cls in CONV_MODULES:
        name, tr = cls.__name__, "Transpose" in cls.__name__

        def r(case, kw, exc, what, args=(4, 3, 3)):
            return row(name, case, cls, args, kw, exc, what)

        yield r("in_channels-not-divisible", {"groups": 3}, ValueError,
                "in_channels must be divisible by groups")
        yield r("out_channels-not-divisible", {"groups": 2}, ValueError,
                "out_channels must be divisible by groups")
        yield r("groups=0", {"groups": 0}, ValueError, "groups must be >= 1")
        yield r("groups-float", {"groups": 1.5}, TypeError, "groups must be an int")
        for what, v, lo in (("stride", 0, 1), ("dilation", 0, 1), ("padding", -1, 0),
                            ("kernel_size", 0, 1)):
            kw = {what: v} if what != "kernel_size" else {}
            yield r(f"{what}={v}", kw, ValueError, f"{what} values must be >= {lo}",
                    args=(4, 3, 3 if what != "kernel_size" else 0))
        yield r("stride-float", {"stride": 1.5}, TypeError, "stride must hold ints")
        yield r("in_channels-negative", {}, ValueError, "in_channels values must be >= 0",
                args=(-1, 3, 3))
        yield r("out_channels-float", {}, TypeError, "out_channels must hold ints, got float",
                args=(4, 3.0, 3))
        yield r("dtype-real", {"dtype": F32}, TypeError, "dtype must be complex32")
        if tr:
            yield r("output_padding>=stride", {"output_padding": 2, "stride": 2}, ValueError,
                    "output_padding .* must be smaller than either stride")
            yield r("padding_mode", {"padding_mode": "reflect"}, ValueError,
                    'only "zeros" padding mode')
            yield r("padding-string", {"padding": "same"}, ValueError,
                    "padding must be an int or a tuple of ints")
        else:
            yield r("padding_mode", {"padding_mode": "wrap"}, ValueError,
                    "padding_mode must be one of")
            yield r("padding-string", {"padding": "full"}, ValueError, "padding string 'full'")
            yield r("padding-same-strided", {"padding": "same", "stride": 2}, ValueError,
                    "padding='same' is not supported for strided")
    yield from module_forward_rows()
    yield from stft_module_rows()


def module_forward_rows():
    for cls in CONV_MODULES:
        tr = "Transpose" in cls.__name__
        fname = ("conv_transpose" if tr else "conv") + cls.__name__[-2:]
        nd, x, _, _ = conv_good(fname)
        m = cls(4, 3, 3, stride=2) if tr else cls(4, 3, 3)

        def r(case, args, kw, exc, what, name=fname, fn=m):
            return row(name, case + "-forward", fn, args, kw, exc, what)

        yield r("not-a-tensor", ([1.0],), {}, TypeError, "expected input to be a tensor, got list",
                name=cls.__name__)
        yield r("input-dims", (x[0, 0],), {}, ValueError, r"\(unbatched\) or")
        yield r("dtype", (x.to(C128),), {}, TypeError, "a complex128 input needs a complex128")
        yield r("channels", (x[:, :3],), {}, ValueError, "must have 4 channels, got 3")
        yield r("input-on-meta", (x.to("meta"),), {}, RuntimeError,
                "same device, got meta, cpu, cpu")
        if tr:
            yield r("output_size-range", (x,), {"output_size": [100] * nd}, ValueError,
                    "requested an output size of", name=cls.__name__)
            yield r("output_size-length", (x,), {"output_size": [5] * (nd - 1) or []}, ValueError,
                    f"output_size must have {nd} or more values", name=cls.__name__)
            yield r("not-a-tensor-output_size", ([1.0],), {"output_size": [9] * nd}, TypeError,
                    "expected input to be a tensor", name=cls.__name__)
        else:
            refl = cls(4, 3, 3, padding=2, padding_mode="reflect")
            yield r("reflect-too-short", (x[..., :2],), {}, ValueError,
                    r"reflect padding \(2, 2\) must be at most 1", name=cls.__name__, fn=refl)
            yield r("reflect-not-a-tensor", ([1.0],), {}, TypeError,
                    "expected input to be a tensor", name=cls.__name__, fn=refl)


def stft_module_rows():
    for cls in (cnn.STFT, cnn.ISTFT):
        name = cls.__name__

        def r(case, args, kw, exc, what):
            return row(name, case, cls, args, kw, exc, what)

        yield r("n_fft=0", (0,), {}, ValueError, "n_fft must be >= 1, got 0")
        yield r("n_fft-negative", (-1, 1, None), {}, ValueError, "n_fft must be >= 1, got -1")
        yield r("n_fft-float", (16.0, 4, 16), {}, TypeError, "n_fft must be an int")
        yield r("hop=0", (16, 0, 16), {}, ValueError, "hop_length must be >= 1")
        yield r("win_length>n_fft", (16, 4, 32), {}, ValueError, "win_length <= n_fft")
        yield r("window-unknown", (16, 4, 16), {"window": "bogus"}, ValueError,
                "unknown window 'bogus'")
        yield r("window-length", (16, 4, 16), {"window": torch.ones(8)}, ValueError,
                "window of length win_length = 16")
        yield r("window-int", (16, 4, 16), {"window": torch.ones(16, dtype=torch.int64)},
                TypeError, "real floating point window")
        yield r("window-complex", (16, 4, 16), {"window": torch.ones(16, dtype=C64)}, TypeError,
                "real floating point window")
        yield r("window-list", (16, 4, 16), {"window": [1.0] * 16}, TypeError,
                "window must be a name, a tensor or None, got list")
    yield row("STFT", "pad_mode", cnn.STFT, (16, 4, 16), {"pad_mode": "wrap"}, ValueError,
              "pad_mode must be one of")
    yield row("ISTFT", "hop>win_length", cnn.ISTFT, (16, 12, 8), {}, ValueError,
              "hop_length <= win_length")
    s, i = cnn.STFT(16, 4, 16), cnn.ISTFT(16, 4, 16)
    for case, arg, exc, what in (("not-a-tensor", [1.0], TypeError, "expected a tensor"),
                                 ("int64", SIG.long(), TypeError, "got torch.int64"),
                                 ("3-d", SIG[None], ValueError, "1 or 2-d input"),
                                 ("input-on-meta", SIG.to("meta"), ValueError,
                                  "the window is on cpu, the input on meta"),
                                 ("reflect-too-short", SIG[:, :5], ValueError, "reflect padding")):
        yield row("stft", case + "-forward", s, (arg,), {}, exc, what)
    for case, arg, kw, exc, what in (
            ("not-a-tensor", [1.0], {}, TypeError, "expected a tensor"),
            ("real", SPEC.real, {}, TypeError, "got torch.float32"),
            ("bins", SPEC[:, :5], {}, ValueError, "expected 9 frequency bins"),
            ("input-on-meta", SPEC.to("meta"), {}, ValueError, "the window is on cpu"),
            ("length-negative", SPEC, {"length": -1}, ValueError, "length must be >= 0")):
        yield row("istft", case + "-forward", i, (arg,), kw, exc, what)
    yield row("istft", "NOLA-forward", cnn.ISTFT(16, 4, 16, window=torch.zeros(16)), (SPEC,), {},
              RuntimeError, "NOLA condition")


# --- raw ops: torch.ops.complexext.* ------------------------------------------------

def raw_rows():
    def r(name, case, args, what, **extra):
        return row(name, case, getattr(ops, name), args, {}, RuntimeError, what, **extra)

    for name, good, bad in (("fft_c2c", XC, XR), ("fft_r2c", XR, XC), ("fft_c2r", XC, XR)):
        last = (6,) if name == "fft_c2r" else ((True,) if name == "fft_r2c" else ())
        tail = (0, True) if name == "fft_c2c" else (0,) + last

        def a(x, dim=(1,), *rest):
            return (x, list(dim)) + (rest or tail)

        kind = "a float16, float32 or float64" if name == "fft_r2c" else "a complex tensor"
        yield r(name, "wrong-kind", a(bad), f"expected {kind}")
        yield r(name, "int64", a(torch.ones(4, 6, dtype=torch.int64)), "expected .*got")
        yield r(name, "dim-empty", a(good, ()), "dim must not be empty")
        yield r(name, "dim-out-of-range", a(good, (2,)), "dim 2 out of range for a 2-d tensor")
        yield r(name, "dims-repeated", a(good, (1, -1)), "dim 1 repeated")
        yield r(name, "size-0", a(good[:, :0]), "signal size along dim 1 must be >= 1")
        norm_args = (good, [1], 3) + tail[1:]
        yield r(name, "normalization=3", norm_args, "normalization must be 0, 1 or 2")
        yield r(name, "not-a-tensor", ([1.0], [0]) + tail, "Expected a value of type 'Tensor'",
                prefix=f"complexext::{name}() ", meta=False)
    yield r("fft_c2r", "last_dim_size=0", (XC, [1], 0, 0), "last_dim_size must be >= 1")
    yield r("fft_c2r", "too-few-bins", (XC, [1], 0, 20), "expected at least 11 elements")

    nd, x, w, b = conv_good("conv1d")
    conv = ("convolution", [1], [0], [1], False, [0], 1)

    def c(case, args, what, change=(), **extra):
        rest = list(conv[1:])
        for i, v in change:
            rest[i] = v
        return r("convolution", case, tuple(args) + tuple(rest), what, **extra)

    yield c("real-input", (x.real, w, b), "expected a complex input")
    yield c("weight-int64", (x, w.real.long(), b), "weight")
    yield c("bias-complex128", (x, w, b.to(C128)), "bias")
    yield c("input-2-d", (x[0], w[0], b), "expected a .*input")
    yield c("weight-dims", (x, w[..., 0], b), "-d weight")
    yield c("stride-length", (x, w, b), "stride must (have 1 values|be an int or 1 ints)",
            [(0, [1, 1])])
    yield c("stride=0", (x, w, b), "stride values must be >= 1", [(0, [0])])
    yield c("padding=-1", (x, w, b), "padding values must be >= 0", [(1, [-1])])
    yield c("dilation=0", (x, w, b), "dilation values must be >= 1", [(2, [0])])
    yield c("groups=0", (x, w, b), "groups must be >= 1", [(5, 0)])
    yield c("groups-not-dividing", (x, w, b), "not divisible by groups", [(5, 2)])
    yield c("channels", (x[:, :3], w, b), "4 channels, got 3")
    yield c("bias-shape", (x, w, b[:2]), "bias of shape")
    yield c("output_padding-not-transposed", (x, w, b), "output_padding needs transposed=True",
            [(4, [1])])
    wt = rand((4, 3, 3), C64)
    yield c("output_padding>=stride", (x, wt, b), "output_padding .*smaller",
            [(3, True), (4, [1])])
    yield c("kernel>input", (x[..., :2], w, b), "the kernel .* is larger than the padded input")
    yield c("output-size-0", (x[..., :1], wt, b), "output size", [(3, True), (1, [2])])
    yield c("weight-on-meta", (x, w.to("meta"), b), "same device", meta=False)
    yield c("kernel-size-0", (x, w[..., :0], b), "kernel sizes must be >= 1")
    yield c("input-size-0", (x[..., :0], w, b), "spatial sizes", [(1, [2])])
    yield r("convolution", "not-a-tensor", ([1.0], w, b) + conv[1:], "Expected a value of type",
            prefix="complexext::convolution() ", meta=False)

    win = torch.hann_window(16)
    st = (SIG, win, 16, 4, 0, True)

    def s(case, what, change=(), **extra):
        args = list(st)
        for i, v in change:
            args[i] = v
        return r("stft", case, args, what, **extra)

    yield s("1-d-input", "expected a \\(batch, time\\) signal", [(0, SIG[0])])
    yield s("int64", "expected a float16/32/64 or complex signal", [(0, SIG.long())])
    yield s("n_fft=0", "n_fft must be >= 1", [(2, 0)])
    yield s("hop=0", "hop_length must be >= 1", [(3, 0)])
    yield s("normalization=2", "normalization must be 0 or 1", [(4, 2)])
    yield s("onesided-complex", "onesided needs a real signal", [(0, SIG.to(C64))])
    yield s("too-short", "is shorter than n_fft", [(0, SIG[:, :10])])
    yield s("window-length", "1-d window of length n_fft = 16", [(1, win[:8])])
    yield s("window-int", "real floating point window", [(1, win.long())])
    yield s("window-complex", "real floating point window", [(1, win.to(C64))])
    yield s("window-on-meta", "window must be on the CPU", [(1, win.to("meta"))], meta=False)
    yield s("not-a-tensor", "Expected a value of type 'Tensor'", [(1, [1.0] * 16)],
            prefix="complexext::stft() ", meta=False)

    it = (SPEC, win, 16, 4, 2, True, 0, 100)

    def i(case, what, change=(), **extra):
        args = list(it)
        for k, v in change:
            args[k] = v
        return r("istft", case, args, what, **extra)

    yield i("real-input", "expected a complex \\(batch, freq, frames\\)", [(0, SPEC.real)])
    yield i("2-d-input", "expected a complex \\(batch, freq, frames\\)", [(0, SPEC[0])])
    yield i("n_fft=0", "n_fft must be >= 1", [(2, 0)])
    yield i("hop=0", "hop_length must be >= 1", [(3, 0)])
    yield i("normalization=0", "normalization must be 1 or 2", [(4, 0)])
    yield i("start-negative", "start and length must be >= 0", [(6, -1)])
    yield i("length-negative", "start and length must be >= 0", [(7, -1)])
    yield i("bins", "expected 9 frequency bins", [(0, SPEC[:, :5])])
    yield i("no-frames", "at least one frame", [(0, SPEC[..., :0])])
    yield i("window-length", "1-d window of length n_fft = 16", [(1, win[:8])])
    yield i("window-int", "real floating point window", [(1, win.long())])
    yield i("NOLA", "fails the NOLA condition", [(1, torch.zeros(16))], meta=False)
    yield i("not-a-tensor", "Expected a value of type 'Tensor'", [(0, [1.0])],
            prefix="complexext::istft() ", meta=False)


RAW = list(raw_rows())
ROWS = list(fft_rows()) + list(stft_rows()) + list(istft_rows()) + list(conv_rows()) + \
    list(module_rows()) + RAW


# --- the checks -------------------------------------------------------------------

def _tensors(obj):
    if isinstance(obj, torch.Tensor):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for e in obj:
            yield from _tensors(e)
    elif isinstance(obj, dict):
        for e in obj.values():
            yield from _tensors(e)
    elif isinstance(obj, torch.nn.Module):
        yield from obj.state_dict(keep_vars=True).values()


def _bits(t):
    """t's values as bytes (NaN == NaN, -0 != 0); none for meta tensors."""
    if t.is_meta:
        return None
    return t.detach().resolve_conj().resolve_neg().contiguous().reshape(-1).view(torch.uint8)


def snapshot(*objs):
    """Every tensor in objs with its metadata, version counter and a copy of its bytes."""
    out = []
    for t in _tensors(objs):
        meta = (t.shape, t.stride(), t.storage_offset(), t.dtype, t.device, t._version)
        bits = _bits(t)
        out.append((t, meta, None if bits is None else bits.clone()))
    return out


def assert_unchanged(snap):
    for t, meta, bits in snap:
        now = (t.shape, t.stride(), t.storage_offset(), t.dtype, t.device, t._version)
        assert now == meta, f"an input changed: {meta} -> {now}"
        assert bits is None or torch.equal(_bits(t), bits), "an input's values changed"


def check_refused(row, fn, args, kwargs, types):
    snap = snapshot(fn, args, kwargs)
    with pytest.raises(Exception) as info:
        fn(*args, **kwargs)
    err, msg = info.value, str(info.value)
    assert type(err) in types, f"{type(err).__name__}: {msg}"
    prefix = row.prefix or f"{row.name}: "
    assert msg.startswith(prefix), f"the message does not start with {prefix!r}: {msg!r}"
    assert re.search(row.what, msg), f"{row.what!r} not in {msg!r}"
    assert_unchanged(snap)


@pytest.mark.parametrize("row", [r.param() for r in ROWS])
def test_refused(row):
    check_refused(row, row.fn, row.args, row.kwargs, (row.exc,))


def _to_meta(obj):
    if isinstance(obj, torch.Tensor):
        return obj.to("meta")
    if isinstance(obj, (list, tuple)):
        return type(obj)(_to_meta(e) for e in obj)
    return obj


@pytest.mark.parametrize("row", [r.param(meta=True) for r in RAW if r.meta])
def test_raw_op_fake_kernel_refuses(row):
    """The fake kernels refuse what the CPU kernels refuse (the exception
    type may differ: the fake convolution kernel shares the public
    functions' TypeError/ValueError checks)."""
    check_refused(row, row.fn, _to_meta(row.args), row.kwargs,
                  (RuntimeError, TypeError, ValueError))


def test_every_public_function_has_rows():
    covered = {(r.fn if not isinstance(r.fn, torch.nn.Module) else type(r.fn)) for r in ROWS}
    public = [getattr(cf, n) for n in cf.__all__] + [complexext.stft, complexext.istft] + \
        [getattr(CF, n) for n in CF.__all__] + CONV_MODULES + [cnn.STFT, cnn.ISTFT] + \
        [getattr(ops, n) for n in ("fft_c2c", "fft_r2c", "fft_c2r", "convolution", "stft",
                                   "istft")]
    missing = [getattr(f, "__name__", str(f)) for f in public if f not in covered]
    assert not missing, f"no bad-input rows for {missing}"
    assert len(cf.__all__) == 18 and len(CF.__all__) == 4


# --- NaN and inf: valid input, propagated -------------------------------------------

def _nonfinite(t):
    t = t.to(C64 if t.is_complex() else F32) if t.dtype in (C32, torch.float16) else t
    return ~torch.isfinite(t)


def _poison(x, value, index):
    x = x.clone()
    x[index] = value
    return x


def _fft_case(name, dtype):
    x = rand((3, 8), REAL_OF[dtype] if real_input(name) else dtype, seed=7)
    return getattr(cf, name), getattr(torch.fft, name), x, (1, 2), {}


def _wide(t):
    return t.to(C128 if t.is_complex() else torch.float64)


NONFINITE = [pytest.param(("fft", n, dt), id=f"{n}-{str(dt)[6:]}")
             for n in ALL_FUNCS for dt in (C64, C32)] + \
    [pytest.param((k, n, C64), id=n) for k, n in (("stft", "stft"), ("istft", "istft"),
                                                  ("conv", "conv1d"), ("conv", "conv2d"),
                                                  ("conv", "conv_transpose1d"),
                                                  ("conv", "conv_transpose2d"))]


@pytest.mark.parametrize("value", [float("nan"), float("inf")], ids=["nan", "inf"])
@pytest.mark.parametrize("case", NONFINITE)
def test_nonfinite_input_propagates(case, value):
    """A NaN or inf input runs, leaves its input as it was, and gives a
    non-finite value exactly where float64/complex128 torch does."""
    kind, name, dtype = case
    win = torch.hann_window(16, dtype=torch.float64)
    if kind == "fft":
        ours, theirs, x, index, kw = _fft_case(name, dtype)
        x = _poison(x, value, index)
        args, ref = (x,), theirs(_wide(x))
    elif kind == "stft":
        x = _poison(SIG, value, (1, 50))
        args, kw = (x, 16, 4), {"window": win.float(), **RC}
        ours, ref = complexext.stft, torch.stft(_wide(x), 16, 4, window=win, **RC)
    elif kind == "istft":
        x = _poison(SPEC, value, (1, 0, 10))  # DC: no exact zero in its inverse DFT
        args, kw = (x, 16, 4), {"window": win.float()}
        ours, ref = complexext.istft, torch.istft(_wide(x), 16, 4, window=win)
    else:
        nd, x, w, b = conv_good(name)
        x = _poison(x, value, (1, 2) + (3,) * nd)
        args, kw, ours = (x, w, b), {}, getattr(CF, name)
        ref = getattr(torch.nn.functional, name)(_wide(x), _wide(w), _wide(b))
    snap = snapshot(args, kw)
    out = ours(*args, **kw)
    assert_unchanged(snap)
    mask = _nonfinite(out)
    assert mask.any(), "the non-finite input vanished"
    assert torch.equal(mask, _nonfinite(ref)), "non-finite outputs differ from torch's"
