"""complexext::bmm as torch sees it: torch.library.opcheck (schema, autograd
registration, fake kernel, AOT dispatch), the fake kernel's output against
the kernel's, and the op's vmap rule."""
import pytest
import torch
import torch.func

from complexext._ops import ops
from support.refs import rand

C32, C64, C128 = torch.complex32, torch.complex64, torch.complex128
SHAPES = [((2, 3, 4), (2, 4, 5)), ((1, 1, 7), (1, 7, 1)), ((0, 3, 2), (0, 2, 4)),
          ((2, 3, 0), (2, 0, 4))]


@pytest.mark.parametrize("grad", [False, True], ids=["no_grad", "grad"])
@pytest.mark.parametrize("dtype", [C32, C64, C128], ids=str)
@pytest.mark.parametrize("shapes", SHAPES, ids=str)
def test_opcheck(shapes, dtype, grad):
    a, b = (rand(s, dtype, seed=i).requires_grad_(grad) for i, s in enumerate(shapes))
    tests = ("test_schema", "test_autograd_registration", "test_faketensor",
             "test_aot_dispatch_dynamic")
    if grad and dtype == C32:
        tests = tests[:3]  # the AOT test sums the complex32 output: no CPU kernel in torch
    torch.library.opcheck(ops.bmm.default, (a, b), test_utils=tests)


@pytest.mark.parametrize("shapes", SHAPES, ids=str)
def test_fake_kernel_matches_the_kernel(shapes):
    from torch._subclasses.fake_tensor import FakeTensorMode
    a, b = (rand(s, C32, seed=i) for i, s in enumerate(shapes))
    real = ops.bmm(a, b)
    with FakeTensorMode() as mode:
        fake = ops.bmm(mode.from_tensor(a), mode.from_tensor(b))
    assert fake.shape == real.shape and fake.dtype == real.dtype
    assert fake.stride() == real.stride()


@pytest.mark.parametrize("in_dims", [(0, None), (None, 0), (1, 0)], ids=str)
def test_vmap_rule_of_the_op(in_dims):
    a = rand((3, 2, 4, 5), C128, seed=1)   # vmap over 3 (dim 0) or 4 (dim 1)
    b = rand((3, 2, 5, 6), C128, seed=2)
    ax, bx = in_dims
    if ax == 1:
        a = rand((2, 3, 4, 5), C128, seed=1)
    a_in = a if ax is not None else a[0]
    b_in = b if bx is not None else b[0]
    got = torch.func.vmap(ops.bmm, in_dims=in_dims)(a_in, b_in)
    n = got.shape[0]
    sel = lambda t, d, i: t.select(d, i) if d is not None else t  # noqa: E731
    want = torch.stack([ops.bmm(sel(a_in, ax, i), sel(b_in, bx, i)) for i in range(n)])
    torch.testing.assert_close(got, want)
