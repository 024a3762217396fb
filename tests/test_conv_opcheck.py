"""torch.library.opcheck of complexext::convolution and
complexext::convolution_weight_grad (schema, fake kernel, autograd
registration, AOT dispatch with static and dynamic shapes), the fake kernel
against the real kernel, and the vmap rules. On each device; the complex128
samples skip on MPS (no float64)."""
import pytest
import torch
import torch.func as F
from torch._subclasses.fake_tensor import FakeTensorMode

from complexext._ops import ops
from conftest import to_cpu, to_device
from support.refs import rand

C32, C64, C128 = torch.complex32, torch.complex64, torch.complex128
REAL = {C32: torch.float16, C64: torch.float32, C128: torch.float64}

# input dtype, input, weight, bias ("c": complex, "r": real, None), weight
# real?, (stride, padding, dilation, transposed, output_padding, groups), layout
SAMPLES = [
    (C32, (2, 4, 9), (6, 2, 3), "c", False, ([2], [1], [1], False, [0], 2), "contiguous"),
    (C64, (2, 4, 5, 6), (3, 4, 2, 3), None, False, ([1, 2], [0, 1], [2, 1], False, [0, 0], 1),
     "channels_last"),
    (C128, (2, 4, 5), (4, 3, 3), "r", False, ([2], [1], [1], True, [1], 2), "step"),
    (C64, (1, 2, 3, 4), (2, 3, 2, 3), "c", True, ([2, 1], [0, 1], [1, 2], True, [1, 0], 1),
     "transposed"),
    (C32, (3, 2, 4, 4), (4, 2, 3, 3), "r", True, ([1, 1], [1, 1], [1, 1], False, [0, 0], 1),
     "conj"),
    (C128, (2, 3, 7), (3, 3, 2), None, False, ([3], [0], [2], False, [0], 1), "expanded"),
]


def layout(x, kind, device="cpu"):
    """x (on the CPU) on device in the given layout."""
    if kind == "channels_last":
        return to_device(x.permute(0, 2, 3, 1).contiguous(), device).permute(0, 3, 1, 2)
    if kind == "step":
        big = torch.zeros(*[2 * s for s in x.shape], dtype=x.dtype)
        big[tuple(slice(None, None, 2) for _ in x.shape)] = x
        return to_device(big, device)[tuple(slice(None, None, 2) for _ in x.shape)]
    if kind == "transposed":
        return to_device(x.transpose(0, -1).contiguous(), device).transpose(0, -1)
    if kind == "conj":
        return to_device(x, device).conj()
    if kind == "expanded":
        return to_device(x, device)[:1].expand(x.shape)
    return to_device(x, device)


def make(sample, grad=False, device="cpu"):
    dtype, xs, ws, bias, real_w, args, kind = sample
    x = layout(rand(xs, dtype, seed=1), kind, device).requires_grad_(grad)
    w = to_device(rand(ws, REAL[dtype] if real_w else dtype, seed=2), device).requires_grad_(grad)
    cout = ws[1] * args[-1] if args[3] else ws[0]
    b = None if bias is None else to_device(
        rand((cout,), dtype if bias == "c" else REAL[dtype], seed=3), device)
    if b is not None:
        b.requires_grad_(grad)
    return (x, w, b, *args)


def sample_id(s):
    return f"{str(s[0]).split('.')[1]}-{'T' if s[5][3] else 'C'}{len(s[1]) - 2}d-{s[6]}"


@pytest.mark.parametrize("grad", [False, True], ids=["no_grad", "grad"])
@pytest.mark.parametrize("sample", SAMPLES, ids=sample_id)
def test_opcheck(sample, grad, device):
    tests = ("test_schema", "test_autograd_registration", "test_faketensor",
             "test_aot_dispatch_dynamic")  # torch's defaults
    if grad and sample[0] == C32:
        # test_aot_dispatch_dynamic sums the complex32 output, and torch has
        # no complex32 sum on CPU; the fake and autograd tests still run.
        tests = tests[:3]
    torch.library.opcheck(ops.convolution.default, make(sample, grad, device), test_utils=tests)


@pytest.mark.parametrize("sample", SAMPLES, ids=sample_id)
def test_fake_kernel_matches_the_kernel(sample, device):
    args = make(sample, device=device)
    real = ops.convolution(*args)
    assert real.device.type == device
    with FakeTensorMode(allow_non_fake_inputs=True) as mode:
        fake_args = [mode.from_tensor(a) if isinstance(a, torch.Tensor) else a for a in args]
        fake = ops.convolution(*fake_args)
    assert fake.shape == real.shape and fake.dtype == real.dtype
    assert fake.stride() == real.stride() and fake.device == real.device


@pytest.mark.parametrize("in_dims", [(0, None, None), (None, 0, None), (1, 0, 0)], ids=str)
@pytest.mark.float64
def test_vmap_rule_of_the_op(in_dims, device):
    """vmap over the raw op: one batched kernel call, equal to a loop."""
    x, w, b, *args = make(SAMPLES[2], device=device)
    n = 3
    batched = [rand((n,) + t.shape, t.dtype, seed=7 + i).to(device)
               for i, t in enumerate((x, w, b))]
    inputs = [t if d is None else batched[i].movedim(0, d) for i, (t, d) in
              enumerate(zip((x, w, b), in_dims))]
    got = F.vmap(lambda x, w, b: ops.convolution(x, w, b, *args), in_dims=in_dims)(*inputs)
    for i in range(n):
        pick = [t if d is None else t.select(d, i) for t, d in zip(inputs, in_dims)]
        torch.testing.assert_close(got[i], ops.convolution(*pick, *args), rtol=1e-13, atol=1e-13)


def weight_grad_args(sample, grad=False, device="cpu"):
    """(grad_output, input, weight_size, real_weight, *args) of a sample."""
    x, w, b, *args = make(sample, device=device)
    g = to_device(rand(ops.convolution(x, w, b, *args).shape, x.dtype, seed=5), device)
    return (g.requires_grad_(grad), x.detach().requires_grad_(grad), list(w.shape),
            not w.is_complex(), *args)


@pytest.mark.parametrize("grad", [False, True], ids=["no_grad", "grad"])
@pytest.mark.parametrize("sample", SAMPLES[1::2] + SAMPLES[:1], ids=sample_id)
def test_opcheck_weight_grad(sample, grad, device):
    tests = ("test_schema", "test_autograd_registration", "test_faketensor",
             "test_aot_dispatch_dynamic")
    if grad and sample[0] == C32:
        tests = tests[:3]  # no complex32 sum on CPU (see above)
    torch.library.opcheck(ops.convolution_weight_grad.default,
                          weight_grad_args(sample, grad, device), test_utils=tests)


@pytest.mark.parametrize("in_dims", [(0, None), (None, 0), (1, 0)], ids=str)
def test_vmap_rule_of_the_weight_grad(in_dims, device):
    g, x, *rest = weight_grad_args(SAMPLES[3], device=device)
    n = 3
    batched = [to_device(rand((n,) + t.shape, t.dtype, seed=7 + i), device)
               for i, t in enumerate((g, x))]
    inputs = [t if d is None else batched[i].movedim(0, d) for i, (t, d) in
              enumerate(zip((g, x), in_dims))]
    got = F.vmap(lambda g, x: ops.convolution_weight_grad(g, x, *rest), in_dims=in_dims)(*inputs)
    for i in range(n):
        pick = [t if d is None else t.select(d, i) for t, d in zip(inputs, in_dims)]
        expect = ops.convolution_weight_grad(*pick, *rest)
        torch.testing.assert_close(to_cpu(got[i]), to_cpu(expect))


@pytest.mark.float64
def test_func_transforms_of_the_raw_op_are_refused_by_name(device):
    x, w, b, *args = make(SAMPLES[2], device=device)
    loss = lambda x: torch.view_as_real(ops.convolution(x, w, b, *args)).sum()  # noqa: E731
    with pytest.raises(RuntimeError, match="complexext::convolution: torch.func transforms"):
        F.grad(loss)(x)
