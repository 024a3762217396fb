"""The CUDA convolution's layout (csrc/conv_cuda/conv_cuda.cpp), run on the CPU.

The CUDA kernels of complexext::convolution and convolution_weight_grad are
ATen code, the same functions that the internal ops _conv_real_layout and
_conv_weight_grad_real_layout run on any device. Here they run on the CPU
(torch's half convolutions there also sum in fp32, as cuDNN's do), against
torch's complex128 convolution: every method (rows, rows32, wide, wide32,
gauss, auto), conv1d/conv2d and their transposes, stride, padding,
dilation, groups, output_padding, complex and real weights and biases,
complex32/64/128. complex32 must be at the rounding floor (<= 1.15 times
the error of the exact result rounded to complex32) where the method
rounds once; the test that rows with a bias rounds twice (and so misses
that bound) shows why "auto" never takes rows or wide there (its choice:
tests/test_conv_method.py)."""
import os
import subprocess
import sys

import pytest
import torch
import torch.nn.functional as TF

import complexext  # noqa: F401  (registers the ops)
from support.refs import rand, torch_half_conv_at_floor

pytestmark = pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental")
ops = torch.ops.complexext
C32, C64, C128 = torch.complex32, torch.complex64, torch.complex128
REAL = {C32: torch.float16, C64: torch.float32, C128: torch.float64}

# name, input shape, weight shape, real weight, kwargs (torch's spelling)
CASES = [
    ("conv1d", (3, 24, 101), (20, 24, 3), False, {"padding": 1}),
    ("conv1d", (2, 12, 64), (9, 4, 5), False, {"stride": 2, "padding": 3, "dilation": 2,
                                               "groups": 3}),
    ("conv2d", (2, 16, 19, 23), (12, 16, 3, 3), False, {"padding": 1}),
    ("conv2d", (2, 12, 20, 17), (9, 4, 5, 2), False, {"stride": (2, 1), "padding": (2, 1),
                                                     "groups": 3}),
    ("conv2d", (2, 8, 15, 15), (8, 2, 3, 3), True, {"dilation": 2, "groups": 4}),
    ("conv_transpose1d", (2, 16, 41), (16, 10, 4), False, {"stride": 2, "padding": 1,
                                                           "output_padding": 1}),
    ("conv_transpose1d", (2, 12, 30), (12, 3, 3), False, {"stride": 3, "dilation": 2,
                                                          "groups": 2}),
    ("conv_transpose2d", (2, 16, 13, 11), (16, 8, 5, 2), False,
     {"stride": (2, 1), "padding": (2, 1), "output_padding": (1, 0)}),
    ("conv_transpose2d", (2, 8, 9, 10), (8, 3, 3, 3), True, {"stride": 2, "groups": 2}),
]
METHODS = ["auto", "rows", "rows32", "wide", "wide32", "gauss"]


def case_id(c):
    return f"{c[0]}-{'x'.join(map(str, c[1]))}{'-realw' if c[3] else ''}"


def op_args(case):
    """(stride, padding, dilation, transposed, output_padding, groups) as lists."""
    name, xs, _, _, kw = case
    nsp = len(xs) - 2
    lst = lambda v: list(v) if isinstance(v, tuple) else [v] * nsp  # noqa: E731
    return (lst(kw.get("stride", 1)), lst(kw.get("padding", 0)), lst(kw.get("dilation", 1)),
            "transpose" in name, lst(kw.get("output_padding", 0)), kw.get("groups", 1))


def data(case, dtype, complex_bias=True, seed=0):
    name, xs, ws, real_w, kw = case
    x = rand(xs, dtype, seed=seed + 1)
    fan = 1
    for k in ws[1:]:
        fan *= k
    w = (rand(ws, C128, seed=seed + 2) / fan ** 0.5).to(dtype)
    if real_w:
        w = torch.view_as_real(w)[..., 0].contiguous()
    cout = ws[1] * kw.get("groups", 1) if "transpose" in name else ws[0]
    b = rand((cout,), dtype if complex_bias else REAL[dtype], seed=seed + 3)
    return x, w, b


def exact(case, x, w, b):
    """torch's complex128 convolution (real weights and biases widened)."""
    wide = lambda t: None if t is None else t.to(C128)  # noqa: E731
    return getattr(TF, case[0])(wide(x), wide(w), wide(b), **case[4])


def rel_rms(y, ref):
    return float((y.to(C128) - ref).abs().norm() / ref.abs().norm())


def floor_ratio(y, ref):
    return rel_rms(y, ref) / rel_rms(ref.to(C32), ref)


def run(case, x, w, b, method):
    return ops._conv_real_layout(x, w, b, *op_args(case), method)


def rounds_once(method, bias):
    """One rounding: fp32 inputs (the 32 forms, and auto with a bias), or an
    fp16 output with no bias to add."""
    return method in ("auto", "rows32", "wide32") or (method in ("rows", "wide") and not bias)


def skip_where_torch_half_conv_misses_the_floor(case):
    """The layout code runs through torch's CPU float16 convolutions
    (_refs.torch_half_conv_at_floor): where those miss the floor on this CPU
    (transposed convolutions, weight gradients), a floor test measures torch."""
    if not torch_half_conv_at_floor() and "transpose" in case_id(case):
        pytest.skip("torch's CPU float16 transposed convolution misses the float16 floor "
                    "on this CPU")


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_complex32(case):
    skip_where_torch_half_conv_misses_the_floor(case)
    x, w, b = data(case, C32)
    for bias in (b, None):
        ref = exact(case, x, w, bias)
        for method in METHODS:
            y = run(case, x, w, bias, method)
            assert y.dtype == C32 and y.is_contiguous() and y.shape == ref.shape
            ratio = floor_ratio(y, ref)
            once = rounds_once(method, bias is not None) or (
                method == "gauss" and case[3] and bias is None)  # real weight: no Gauss
            if once:
                assert ratio <= 1.15, f"{method}: {ratio:.3f} x the complex32 floor"
            else:  # fp16 output, then the bias; or Gauss's fp16 sums and differences
                assert ratio <= 4.0, f"{method}: {ratio:.3f} x the complex32 floor"


@pytest.mark.parametrize("case", [c for c in CASES if not c[3]], ids=case_id)
def test_complex32_rows_with_bias_rounds_twice(case):
    """Why auto takes rows32 or wide32 for complex32 with a bias: fp16
    output plus a bias is two roundings, about 1.4 times the floor, and the
    1.15 bound catches it."""
    x, w, b = data(case, C32)
    ref = exact(case, x, w, b)
    assert floor_ratio(run(case, x, w, b, "rows"), ref) > 1.2
    assert floor_ratio(run(case, x, w, b, "auto"), ref) <= 1.15


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_complex64_and_complex128(case):
    """Each output a sum of K products: fp32 error ~ sqrt(K) eps (Gauss adds
    its input and weight sums and output differences: a few times more)."""
    name, xs, ws, real_w, kw = case
    groups = kw.get("groups", 1)
    terms = (1 if real_w else 2) * ws[1] * ws[2] * (ws[3] if len(ws) == 4 else 1)
    if "transpose" in name:
        terms = terms // ws[1] * ws[0] // groups
    for dtype, eps in ((C64, 2.0 ** -24), (C128, 2.0 ** -53)):
        x, w, b = data(case, dtype, complex_bias=dtype == C64)
        ref = exact(case, x, w, b)
        for method in METHODS:
            y = run(case, x, w, b, method)
            assert y.dtype == dtype and y.shape == ref.shape
            slack = 4.0 if method == "gauss" else 1.0
            err = rel_rms(y, ref)
            assert err < slack * terms ** 0.5 * eps, (dtype, method, err)


@pytest.mark.parametrize("method", ["rows", "wide", "gauss"])
def test_equals_the_cpu_kernel_in_complex128(method):
    """The layout against complexext's own CPU kernel, element by element."""
    for case in CASES:
        x, w, b = data(case, C128, seed=7)
        ref = ops.convolution(x, w, b, *op_args(case))
        torch.testing.assert_close(run(case, x, w, b, method), ref, rtol=1e-12, atol=1e-12)


def test_three_spatial_dims():
    """conv3d (no real conv4d exists): four real convolutions in fp32; the
    weight gradient likewise."""
    x = rand((2, 6, 7, 8, 9), C32, seed=1)
    w = (rand((4, 3, 3, 2, 3), C128, seed=2) / 54 ** 0.5).to(C32)
    b = rand((4,), C32, seed=3)
    args = ([1, 2, 1], [1, 0, 2], [1, 1, 2], False, [0, 0, 0], 2)
    ref = TF.conv3d(x.to(C128), w.to(C128), b.to(C128), stride=(1, 2, 1), padding=(1, 0, 2),
                    dilation=(1, 1, 2), groups=2)
    for method in ("auto", "rows"):
        assert floor_ratio(ops._conv_real_layout(x, w, b, *args, method), ref) <= 1.15
    wr = torch.view_as_real(w)[..., 0].contiguous()
    ref = TF.conv3d(x.to(C128), wr.to(C128), None, stride=(1, 2, 1), padding=(1, 0, 2),
                    dilation=(1, 1, 2), groups=2)
    assert floor_ratio(ops._conv_real_layout(x, wr, None, *args, "auto"), ref) <= 1.15
    g = rand(tuple(ref.shape), C128, seed=4)
    for weight in (w, wr):
        real_w = not weight.is_complex()
        want = ops.convolution_weight_grad(g, x.to(C128), list(weight.shape), real_w, *args)
        got = ops._conv_weight_grad_real_layout(g, x.to(C128), list(weight.shape), real_w, *args)
        torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)


def test_inputs_untouched_and_views_accepted():
    case = CASES[3]
    x, w, b = data(case, C64)
    xs = x.transpose(2, 3).contiguous().transpose(2, 3).conj()  # strided conj view
    wc = w.conj()
    before = [t.clone() for t in (xs.resolve_conj(), wc.resolve_conj(), b)]
    ref = exact(case, xs.resolve_conj(), wc.resolve_conj(), b)
    for method in METHODS:
        y = run(case, xs, wc, b, method)
        assert rel_rms(y, ref) < 1e-5
    for t, old in zip((xs.resolve_conj(), wc.resolve_conj(), b), before):
        assert torch.equal(t, old)


def test_no_input_channels_gives_the_bias():
    x = torch.zeros(2, 0, 10, dtype=C32)
    w = torch.zeros(3, 0, 3, dtype=C32)
    b = rand((3,), C32, seed=5)
    y = ops._conv_real_layout(x, w, b, [1], [0], [1], False, [0], 1, "auto")
    expected = torch.view_as_real(b)[None, :, None].expand(2, 3, 8, 2)
    assert torch.equal(torch.view_as_real(y), expected)


def test_bad_method_and_arguments_are_named():
    case = CASES[0]
    x, w, b = data(case, C64)
    with pytest.raises(RuntimeError, match="convolution: unknown method 'fast'"):
        run(case, x, w, b, "fast")
    with pytest.raises(RuntimeError, match="convolution: expected an input with 24 channels"):
        run(case, x[:, :5], w, b, "rows")
    with pytest.raises(RuntimeError, match="convolution_weight_grad: expected a grad_output"):
        ops._conv_weight_grad_real_layout(x[:, :, :10], x, list(w.shape), False, *op_args(case))


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_weight_grad(case):
    """sum conj(x) * g at each tap, from one real weight gradient of
    [g, -i g]: equal to the CPU op in complex128, at the floor in complex32
    (one fp32 sum, one rounding)."""
    if not torch_half_conv_at_floor():
        pytest.skip("torch's CPU float16 weight gradient misses the float16 floor on this CPU")
    real_w = case[3]
    args = op_args(case)
    x, w, _ = data(case, C128, seed=11)
    y = ops.convolution(x, w, None, *args)
    g = rand(tuple(y.shape), C128, seed=12)
    ref = ops.convolution_weight_grad(g, x, list(w.shape), real_w, *args)
    got = ops._conv_weight_grad_real_layout(g, x, list(w.shape), real_w, *args)
    assert got.dtype == ref.dtype and got.shape == ref.shape
    torch.testing.assert_close(got, ref, rtol=1e-12, atol=1e-12)
    got32 = ops._conv_weight_grad_real_layout(g.to(C32), x.to(C32), list(w.shape), real_w, *args)
    exact32 = ops.convolution_weight_grad(g.to(C32).to(C128), x.to(C32).to(C128), list(w.shape),
                                          real_w, *args)
    if real_w:
        assert got32.dtype == torch.float16
        floor = rel_rms(exact32.half(), exact32)
        assert rel_rms(got32, exact32) <= 1.15 * floor
    else:
        assert got32.dtype == C32 and floor_ratio(got32, exact32) <= 1.15


GPU_PY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "benchmarks", "gpu.py")


def test_gpu_benchmark_parses_and_exits_cleanly_without_a_device():
    """benchmarks/gpu.py runs on a GPU only, but parses, plans and refuses
    clearly (exit 2, no traceback) anywhere."""
    def run_py(*args):
        return subprocess.run([sys.executable, GPU_PY, *args], capture_output=True, text=True,
                              timeout=120)
    assert run_py("--help").returncode == 0
    dry = run_py("--dry-run", "--sizes", "256", "4099")
    assert dry.returncode == 0 and "4099" in dry.stdout and "conv enc" in dry.stdout
    if not torch.cuda.is_available():
        res = run_py()
        assert res.returncode == 2 and "no CUDA device" in res.stdout
        assert "Traceback" not in res.stderr


def test_cuda_kernels_registered():
    """The CUDA kernels are registered in every build (ATen code only)."""
    for op in ("convolution", "convolution_weight_grad", "_conv_real_layout",
               "_conv_weight_grad_real_layout", "_conv_cuda_method"):
        assert torch._C._dispatch_has_kernel_for_dispatch_key(f"complexext::{op}", "CUDA"), op


def on_device_checks(dev):
    """The public functions and every method on dev against complex128 on
    the CPU: complex32 at the floor (default method, with a bias), complex64
    at fp32 accuracy with TF32 off, gradients of complex32 at the floor."""
    import complexext.nn.functional as CF
    to = lambda t: None if t is None else t.to(dev)  # noqa: E731
    with torch.backends.cudnn.flags(enabled=True, allow_tf32=False):
        for case in CASES:
            x, w, b = data(case, C32)
            ref = exact(case, x, w, b)
            y = getattr(CF, case[0])(to(x), to(w), to(b), **case[4])
            assert y.device.type == torch.device(dev).type
            assert floor_ratio(y.cpu(), ref) <= 1.15, case
            # with a bias, the kernel's method is one that rounds once
            assert ops._conv_cuda_method(to(x), to(w), to(b), *op_args(case)) in ("rows32",
                                                                                 "wide32")
            for method in METHODS:
                y = ops._conv_real_layout(to(x), to(w), to(b), *op_args(case), method)
                assert floor_ratio(y.cpu(), ref) <= (1.15 if rounds_once(method, True) else 4)
            x, w, b = data(case, C64)
            err = rel_rms(getattr(CF, case[0])(to(x), to(w), to(b), **case[4]).cpu(),
                          exact(case, x, w, b))
            assert err < 1e-5, (case, err)
    case = CASES[3]
    x, w, b = data(case, C32)
    g = rand(tuple(exact(case, x, w, b).shape), C32, seed=9)
    xw = [t.to(C128).requires_grad_() for t in (x, w, b)]
    exact(case, *xw).backward(g.to(C128))
    xd = [to(t).requires_grad_() for t in (x, w, b)]
    getattr(CF, case[0])(*xd, **case[4]).backward(to(g))
    for got, want in zip(xd, xw):
        assert floor_ratio(got.grad.cpu(), want.grad) <= 1.15


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_on_cuda():
    on_device_checks("cuda")
