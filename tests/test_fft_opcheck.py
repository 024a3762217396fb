"""torch.library.opcheck on each primitive: schema, fake kernel, autograd
registration, AOT dispatch (static and dynamic shapes). On each device; the
float64/complex128 samples skip on MPS (no float64)."""
import pytest
import torch

from complexext._ops import ops
from conftest import to_cpu, to_device
from support.refs import rand


def strided(x, kind, device="cpu"):
    """x (on the CPU) on device in the given layout."""
    if kind == "contiguous":
        return to_device(x, device)
    if kind == "transposed":
        return to_device(x.transpose(0, -1).contiguous(), device).transpose(0, -1)
    if kind == "step":  # every other element of a bigger tensor
        big = torch.zeros(*[2 * s for s in x.shape], dtype=x.dtype)
        big[tuple(slice(None, None, 2) for _ in x.shape)] = x
        return to_device(big, device)[tuple(slice(None, None, 2) for _ in x.shape)]
    if kind == "expanded":
        return to_device(x, device)[:1].expand(x.shape)
    raise ValueError(kind)


SAMPLES = [  # op, input dtype, shape, (dim, normalization, last arg), layout
    ("fft_c2c", torch.complex32, (4, 16), ([1], 0, True), "contiguous"),
    ("fft_c2c", torch.complex64, (3, 5, 7), ([0, 2], 1, False), "transposed"),
    ("fft_c2c", torch.complex128, (6, 9), ([-1, 0], 2, True), "step"),
    ("fft_c2c", torch.complex32, (2, 3, 8), ([2], 1, False), "expanded"),
    ("fft_r2c", torch.float16, (4, 16), ([1], 0, True), "contiguous"),
    ("fft_r2c", torch.float32, (3, 5, 7), ([0, 2], 1, False), "transposed"),
    ("fft_r2c", torch.float64, (6, 9), ([-1], 2, True), "step"),
    ("fft_r2c", torch.float16, (2, 3, 8), ([1, 2], 2, True), "expanded"),
    ("fft_c2r", torch.complex32, (4, 9), ([1], 0, 16), "contiguous"),
    ("fft_c2r", torch.complex64, (3, 5, 4), ([0, 2], 1, 7), "transposed"),
    ("fft_c2r", torch.complex128, (6, 9), ([-1], 2, 9), "step"),
    ("fft_c2r", torch.complex128, (6, 9), ([0, 1], 2, 10), "contiguous"),
    ("fft_c2r", torch.complex32, (2, 3, 5), ([2], 1, 8), "expanded"),
]


def sample_id(s):
    op, dtype, shape, args, layout = s
    return f"{op}-{str(dtype).split('.')[1]}-{'x'.join(map(str, shape))}-{layout}"


@pytest.mark.parametrize("grad", [False, True], ids=["no_grad", "grad"])
@pytest.mark.parametrize("sample", SAMPLES, ids=sample_id)
def test_opcheck(sample, grad, device):
    op, dtype, shape, args, layout = sample
    x = strided(rand(shape, dtype, seed=4), layout, device).requires_grad_(grad)
    tests = ("test_schema", "test_autograd_registration", "test_faketensor",
             "test_aot_dispatch_dynamic")  # torch's defaults
    if grad and op != "fft_c2r" and dtype in (torch.complex32, torch.float16):
        # test_aot_dispatch_dynamic sums the complex32 output, and torch has
        # no complex32 sum on CPU (nor on MPS); the fake and autograd tests
        # still run.
        tests = ("test_schema", "test_autograd_registration", "test_faketensor")
    torch.library.opcheck(getattr(ops, op).default, (x, *args), test_utils=tests)


@pytest.mark.parametrize("sample", SAMPLES, ids=sample_id)
def test_fake_matches_kernel(sample, device):
    """The fake kernel gives the real output's shape, dtype, strides and device."""
    op, dtype, shape, args, layout = sample
    x = strided(rand(shape, dtype, seed=4), layout, device)
    real = getattr(ops, op)(x, *args)
    with torch._subclasses.fake_tensor.FakeTensorMode() as mode:
        fake = getattr(ops, op)(mode.from_tensor(x), *args)
    assert (fake.shape, fake.dtype, fake.stride()) == (real.shape, real.dtype, real.stride())
    assert fake.device == real.device and real.device.type == device
    assert real.is_contiguous()


def test_ops_refuse_bad_arguments_like_their_fakes(device):
    x = to_device(rand((4, 6), torch.complex64), device)
    for bad in ([2], [0, 0], []):
        with pytest.raises(RuntimeError, match="fft_c2c: dim"):
            ops.fft_c2c(x, bad, 0, True)
        with torch._subclasses.fake_tensor.FakeTensorMode() as mode:
            with pytest.raises(RuntimeError, match="fft_c2c: dim"):
                ops.fft_c2c(mode.from_tensor(x), bad, 0, True)
    with pytest.raises(RuntimeError, match="fft_c2r: expected at least 7"):
        ops.fft_c2r(x, [1], 0, 12)
    with torch._subclasses.fake_tensor.FakeTensorMode() as mode:
        with pytest.raises(RuntimeError, match="fft_c2r: expected at least 7"):
            ops.fft_c2r(mode.from_tensor(x), [1], 0, 12)


@pytest.mark.parametrize("in_dim", [0, 1, -1])
@pytest.mark.parametrize("sample", SAMPLES[1::2], ids=sample_id)
def test_vmap_rules(sample, in_dim, device):
    """vmap of each op (its registered rule) equals a loop over the batch."""
    op, dtype, shape, args, layout = sample
    fn = lambda x: getattr(ops, op)(x, *args)  # noqa: E731
    xb = to_device(torch.stack([rand(shape, dtype, seed=s) for s in range(3)], dim=in_dim),
                   device)
    got = torch.vmap(fn, in_dims=in_dim)(xb)
    expect = torch.stack([to_cpu(fn(xb.select(in_dim, i))) for i in range(3)])
    got = to_cpu(got)
    real = lambda t: torch.view_as_real(t) if t.is_complex() else t  # noqa: E731
    torch.testing.assert_close(real(got), real(expect))  # the batch may take another path
