"""complexext.nn.functional against torch.nn.functional's own complex128
convolution: every argument form, batched and unbatched input, dtypes,
real weights and biases, strided and conjugated inputs, empty batches. Ours
on each device, torch's on the CPU; on MPS (no float64) the complex128 cases
run in complex64 or skip."""
import pytest
import torch
import torch.nn.functional as TF

import complexext.nn.functional as CF
from conftest import to_cpu, to_device, widest
from support.refs import rand

C128, C64, C32 = torch.complex128, torch.complex64, torch.complex32
REAL = {C32: torch.float16, C64: torch.float32, C128: torch.float64}

# (function, input shape, weight shape, kwargs): stride, padding (ints,
# tuples, "same" with odd/even kernels and dilation, "valid"), dilation,
# groups, output_padding, unbatched input.
CASES = [
    ("conv1d", (2, 4, 11), (6, 4, 3), {}),
    ("conv1d", (2, 4, 11), (6, 2, 3), {"stride": 2, "padding": 1, "groups": 2}),
    ("conv1d", (3, 4, 10), (4, 1, 4), {"dilation": 2, "padding": 3, "groups": 4}),
    ("conv1d", (2, 3, 9), (5, 3, 4), {"padding": "same"}),
    ("conv1d", (2, 3, 9), (5, 3, 3), {"padding": "same", "dilation": 3}),
    ("conv1d", (2, 3, 9), (5, 3, 2), {"padding": "valid", "stride": (3,)}),
    ("conv1d", (4, 12), (6, 2, 5), {"stride": 3, "groups": 2, "padding": (2,)}),
    ("conv2d", (2, 3, 7, 8), (4, 3, 3, 3), {"padding": 1}),
    ("conv2d", (2, 4, 9, 6), (6, 2, 3, 2), {"stride": (2, 1), "padding": (1, 0), "groups": 2}),
    ("conv2d", (1, 2, 8, 9), (3, 2, 2, 3), {"dilation": (2, 1), "padding": "same"}),
    ("conv2d", (2, 2, 7, 7), (2, 2, 4, 4), {"padding": "same", "dilation": 2}),
    ("conv2d", (3, 6, 5), (4, 3, 2, 2), {"stride": 2, "groups": 1, "padding": "valid"}),
    ("conv_transpose1d", (2, 4, 7), (4, 3, 3), {}),
    ("conv_transpose1d", (2, 4, 7), (4, 2, 3),
     {"stride": 2, "padding": 1, "output_padding": 1, "groups": 2}),
    ("conv_transpose1d", (4, 6), (4, 3, 2), {"stride": 2, "dilation": 3, "output_padding": 2}),
    ("conv_transpose2d", (2, 4, 5, 6), (4, 3, 5, 2),
     {"stride": (2, 1), "padding": (2, 1), "output_padding": (1, 0)}),
    ("conv_transpose2d", (1, 4, 4, 3), (4, 1, 2, 3),
     {"stride": 3, "padding": (0, 1), "groups": 2, "dilation": (1, 2)}),
    ("conv_transpose2d", (2, 3, 3), (2, 2, 3, 3), {"stride": 2, "output_padding": 1}),
]


def out_channels(name, wshape, kw):
    return wshape[1] * kw.get("groups", 1) if "transpose" in name else wshape[0]


def make(name, xs, ws, kw, dtype=C128, wdtype=None, bdtype=None, seed=0):
    """(input, weight, bias) on the CPU."""
    x = rand(xs, dtype, seed=seed)
    w = rand(ws, wdtype or dtype, seed=seed + 1)
    b = rand((out_channels(name, ws, kw),), bdtype or wdtype or dtype, seed=seed + 2)
    return x, w, b


def on(device, *tensors):
    return [None if t is None else to_device(t, device) for t in tensors]


def reference(name, x, w, b, kw):
    """torch's convolution in complex128 on the CPU."""
    wide = lambda t: None if t is None else to_cpu(t).to(C128)  # noqa: E731
    return getattr(TF, name)(wide(x), wide(w), wide(b), **kw)


def rel_err(y, ref):
    return float((to_cpu(y).to(C128) - ref).abs().norm() / ref.abs().norm())


def case_id(c):
    return f"{c[0]}-{'x'.join(map(str, c[1]))}-{','.join(f'{k}={v}' for k, v in c[3].items())}"


@pytest.mark.parametrize("bias", [True, False], ids=["bias", "nobias"])
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_matches_torch_complex128(case, bias, device):
    name, xs, ws, kw = case
    dtype = widest(device)  # complex64 on MPS
    tol = 1e-12 if dtype == C128 else 2e-6
    x, w, b = make(name, xs, ws, kw, dtype=dtype)
    b = b if bias else None
    y = getattr(CF, name)(*on(device, x, w, b), **kw)
    ref = reference(name, x, w, b, kw)
    assert y.shape == ref.shape and y.dtype == dtype and y.device.type == device
    torch.testing.assert_close(to_cpu(y).to(C128), ref, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype,tol", [(C64, 1e-6), (C32, 1e-3)], ids=["complex64", "complex32"])
@pytest.mark.parametrize("case", CASES[::3], ids=case_id)
def test_lower_precision(case, dtype, tol, device):
    name, xs, ws, kw = case
    x, w, b = make(name, xs, ws, kw, dtype=dtype)
    y = getattr(CF, name)(*on(device, x, w, b), **kw)
    assert y.dtype == dtype and y.device.type == device
    assert rel_err(y, reference(name, x, w, b, kw)) < tol


@pytest.mark.parametrize("dtype", [C32, C64, C128], ids=str)
@pytest.mark.parametrize("case", CASES[1::4], ids=case_id)
def test_real_weight_and_bias(case, dtype, device):
    name, xs, ws, kw = case
    x, w, b = make(name, xs, ws, kw, dtype=dtype, wdtype=REAL[dtype])
    y = getattr(CF, name)(*on(device, x, w, b), **kw)
    assert y.dtype == dtype and y.device.type == device
    tol = {C32: 1e-3, C64: 1e-6, C128: 1e-13}[dtype]
    assert rel_err(y, reference(name, x, w, b, kw)) < tol
    # a real bias with a complex weight
    x, w, b = make(name, xs, ws, kw, dtype=dtype, bdtype=REAL[dtype], seed=3)
    assert rel_err(getattr(CF, name)(*on(device, x, w, b), **kw),
                   reference(name, x, w, b, kw)) < tol


@pytest.mark.parametrize("case", CASES[::5], ids=case_id)
def test_real_input_with_complex_weight(case, device):
    """A real input of the weight's precision is taken as complex."""
    name, xs, ws, kw = case
    dtype = widest(device)  # complex64 on MPS
    tol = 1e-12 if dtype == C128 else 2e-6
    x, w, b = make(name, xs, ws, kw, dtype=dtype)
    xr = x.real.contiguous()
    y = getattr(CF, name)(*on(device, xr, w, b), **kw)
    assert y.dtype == dtype and y.device.type == device
    torch.testing.assert_close(to_cpu(y).to(C128), reference(name, xr.to(C128), w, b, kw),
                               rtol=tol, atol=tol)


def same(a, b):
    """Bitwise equality (torch.equal has no complex32 on CPU)."""
    def real(t):
        return torch.view_as_real(to_cpu(t).resolve_conj()) if t.is_complex() else t.cpu()
    return a.shape == b.shape and a.dtype == b.dtype and torch.equal(real(a), real(b))


def strided_views(x, device):
    """x (on the CPU) on device in unusual layouts, each with a name."""
    yield "transposed", to_device(x.transpose(0, -1).contiguous(), device).transpose(0, -1)
    big = rand(tuple(2 * s for s in x.shape), x.dtype, seed=9)
    big[tuple(slice(None, None, 2) for _ in x.shape)] = x
    yield "step", to_device(big, device)[tuple(slice(None, None, 2) for _ in x.shape)]
    yield "expanded", to_device(x, device)[:1].expand(x.shape)
    yield "conj", to_device(x, device).conj()
    yield "channels_last", (to_device(x.permute(0, 2, 3, 1).contiguous(), device)
                            .permute(0, 3, 1, 2) if x.dim() == 4 else to_device(x, device))


@pytest.mark.parametrize("dtype", [C32, C128], ids=str)
@pytest.mark.parametrize("case", [CASES[1], CASES[8], CASES[13], CASES[15]], ids=case_id)
def test_strided_and_conj_inputs_unmodified(case, dtype, device):
    name, xs, ws, kw = case
    x0, w0, b0 = make(name, xs, ws, kw, dtype=dtype)
    w0, b0 = on(device, w0, b0)
    for kind, x in strided_views(x0, device):
        for w in (w0, w0.conj(), w0.transpose(0, 1).contiguous().transpose(0, 1)):
            before = [(t.clone(), t.is_conj()) for t in (x, w, b0)]
            y = getattr(CF, name)(x, w, b0, **kw)
            plain = getattr(CF, name)(x.resolve_conj().contiguous(), w.resolve_conj().contiguous(),
                                      b0, **kw)
            assert same(y, plain), kind
            for t, (t0, conj) in zip((x, w, b0), before):
                assert same(t, t0) and t.is_conj() == conj


@pytest.mark.parametrize("name,xs,ws", [("conv1d", (0, 3, 8), (4, 3, 3)),
                                        ("conv_transpose2d", (0, 3, 4, 4), (3, 2, 3, 3))])
@pytest.mark.parametrize("dtype", [C32, C128], ids=str)
def test_empty_batch(name, xs, ws, dtype, device):
    x, w = rand(xs, dtype), rand(ws, dtype, seed=1)
    y = getattr(CF, name)(*on(device, x, w))
    assert y.shape == getattr(TF, name)(x.to(C128), w.to(C128)).shape and y.dtype == dtype
    assert y.device.type == device


def test_no_input_channels_gives_the_bias(device):
    w, b = on(device, rand((3, 0, 3), C64), rand((3,), C64, seed=1))
    y = CF.conv1d(to_device(rand((2, 0, 9), C64), device), w, b)
    assert y.shape == (2, 3, 7) and y.device.type == device
    assert same(y, b.view(1, 3, 1).expand(2, 3, 7))


def test_three_spatial_dims_through_the_op(device):
    """The primitive also takes 3 spatial dims (oneDNN channels-last 3-d)."""
    from complexext._ops import ops
    for dtype, tol in ((C64, 1e-6), (C128, 1e-13))[:1 if device == "mps" else 2]:
        x, w, b = rand((2, 4, 5, 6, 7), dtype), rand((6, 2, 3, 2, 3), dtype, 1), rand((6,), dtype, 2)
        y = ops.convolution(*on(device, x, w, b), [1, 2, 1], [1, 0, 1], [1, 1, 2], False,
                            [0, 0, 0], 2)
        ref = TF.conv3d(x.to(C128), w.to(C128), b.to(C128), (1, 2, 1), (1, 0, 1), (1, 1, 2), 2)
        assert rel_err(y, ref) < tol
