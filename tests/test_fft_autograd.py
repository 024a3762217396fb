"""gradcheck and gradgradcheck of every function in complex128/float64, and of
the raw ops (the path compiled code takes), on each device (not MPS: no float64)."""
import pytest
import torch
from torch.autograd import gradcheck, gradgradcheck

import complexext.fft as cf
from complexext._ops import ops
from conftest import to_device
from support.refs import ALL_FUNCS, FUNCS_1D, rand, real_input

pytestmark = pytest.mark.float64

# Odd and even lengths, padding and trimming, every norm.
CASES_1D = [
    {"shape": (2, 5)},
    {"shape": (2, 6), "n": 4, "norm": "ortho"},
    {"shape": (3,), "n": 7, "norm": "forward"},
    {"shape": (4, 2), "n": 9, "dim": 0, "norm": "backward"},
]
CASES_ND = [
    {"shape": (3, 5)},
    {"shape": (4, 4), "s": (3, 6), "norm": "ortho"},
    {"shape": (2, 3, 4), "s": (5, 3), "dim": (0, 2), "norm": "forward"},
    {"shape": (3, 4), "s": (2, 7), "dim": (-1, 0), "norm": "backward"},
]


def cases():
    for name in ALL_FUNCS:
        for i, case in enumerate(CASES_1D if name in FUNCS_1D else CASES_ND):
            yield pytest.param(name, case, id=f"{name}-{i}")


def setup(name, case, device):
    case = dict(case)
    dtype = torch.float64 if real_input(name) else torch.complex128
    x = to_device(rand(case.pop("shape"), dtype, seed=1), device).requires_grad_()
    f = getattr(cf, name)
    return (lambda x: f(x, **case)), x


@pytest.mark.parametrize("name,case", list(cases()))
def test_gradcheck(name, case, device):
    fn, x = setup(name, case, device)
    assert gradcheck(fn, (x,), check_forward_ad=True, check_backward_ad=True,
                     check_batched_grad=True, check_batched_forward_grad=True)


@pytest.mark.parametrize("name,case", list(cases()))
def test_gradgradcheck(name, case, device):
    fn, x = setup(name, case, device)
    assert gradgradcheck(fn, (x,), check_fwd_over_rev=True, check_rev_over_rev=True,
                         check_batched_grad=True)


RAW = [
    ("fft_c2c", torch.complex128, (3, 5), ([1], 0, True)),
    ("fft_c2c", torch.complex128, (4, 3, 2), ([0, 2], 1, False)),
    ("fft_r2c", torch.float64, (3, 6), ([1], 2, True)),
    ("fft_r2c", torch.float64, (3, 5), ([0, 1], 0, False)),
    ("fft_c2r", torch.complex128, (3, 4), ([1], 0, 7)),
    ("fft_c2r", torch.complex128, (3, 4), ([0, 1], 2, 6)),
    ("fft_c2r", torch.complex128, (3, 6), ([1], 1, 5)),  # reads 3 of 6 bins
]


@pytest.mark.parametrize("op,dtype,shape,args", RAW, ids=lambda v: str(v).replace(" ", ""))
def test_raw_ops(op, dtype, shape, args, device):
    """Backward, jvp (forward-mode AD) and second order of the ops themselves."""
    x = to_device(rand(shape, dtype, seed=2), device).requires_grad_()
    fn = lambda x: getattr(ops, op)(x, *args)  # noqa: E731
    assert gradcheck(fn, (x,), check_forward_ad=True, check_batched_grad=True)
    assert gradgradcheck(fn, (x,), check_fwd_over_rev=True)


def test_raw_op_refuses_torch_func(device):
    x = to_device(rand((4,), torch.complex128), device)
    with pytest.raises(RuntimeError, match="^complexext::fft_c2c: torch.func transforms"):
        torch.func.jvp(lambda x: ops.fft_c2c(x, [0], 0, True), (x,), (x,))


def test_gradient_reaches_padding_and_trimming(device):
    """Trimmed-away input gets zero gradient; padding adds no inputs."""
    x = to_device(rand((8,), torch.complex128), device).requires_grad_()
    cf.fft(x, n=5).abs().sum().backward()
    assert torch.equal(x.grad[5:].cpu(), torch.zeros(3, dtype=torch.complex128))
    assert (x.grad[:5] != 0).all()
