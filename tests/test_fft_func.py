"""torch.func transforms against torch.fft in complex128, and complex32
derivatives against complex128 ones. Ours run on each device, torch.fft and
the complex128 references on the CPU; the complex128 cases skip on MPS (no
float64)."""
import pytest
import torch
import torch.func as F

import complexext.fft as cf
from conftest import to_cpu, to_device
from support.refs import ALL_FUNCS, FUNCS_1D, c2r_output, rand, real_input, rel_rms, rounding_floor

pytestmark = pytest.mark.filterwarnings("ignore:There is a performance drop")


def pair(name):
    """(ours, torch's) with n/s set so that padding or trimming happens."""
    kw = {"n": 5} if name in FUNCS_1D else {"s": (4, 5)}
    ours, theirs = getattr(cf, name), getattr(torch.fft, name)
    return (lambda x: ours(x, norm="ortho", **kw),
            lambda x: theirs(x, norm="ortho", **kw).resolve_conj())


def data(name, shape, seed=0):
    return rand(shape, torch.float64 if real_input(name) else torch.complex128, seed=seed)


def as_real_fn(name, f):
    """f on a real view of its input, returning a real view (jacfwd/jacrev need real)."""
    def g(xr):
        y = f(xr if real_input(name) else torch.view_as_complex(xr))
        return torch.view_as_real(y) if y.is_complex() else y
    return g


def real_view(x):
    return x if not x.is_complex() else torch.view_as_real(x)


def power(f):
    """A real loss of the transform: its energy."""
    return lambda x: real_view(f(x).to(torch.complex128)).pow(2).sum()


def close(a, b):
    """a (ours, on the device) equals b (torch's, on the CPU)."""
    if isinstance(a, tuple):
        assert len(a) == len(b)
        for u, v in zip(a, b):
            close(u, v)
        return
    a = to_cpu(a)
    assert a.shape == b.shape and a.dtype == b.dtype
    torch.testing.assert_close(a, b, rtol=1e-12, atol=1e-12)


@pytest.mark.float64
@pytest.mark.parametrize("name", ALL_FUNCS)
def test_jvp_vjp(name, device):
    ours, theirs = pair(name)
    x, t = data(name, (3, 6)), data(name, (3, 6), seed=1)
    xd, td = to_device(x, device), to_device(t, device)
    close(F.jvp(ours, (xd,), (td,)), F.jvp(theirs, (x,), (t,)))
    (y1, pull1), (y2, pull2) = F.vjp(ours, xd), F.vjp(theirs, x)
    close(y1, y2)
    g = rand(y1.shape, y1.dtype, seed=2)
    close(pull1(to_device(g, device)), pull2(g))


@pytest.mark.float64
@pytest.mark.parametrize("name", ALL_FUNCS)
def test_vmap(name, device):
    ours, theirs = pair(name)
    xb = data(name, (4, 3, 6))
    xd = to_device(xb, device)
    close(F.vmap(ours)(xd), F.vmap(theirs)(xb))
    close(F.vmap(ours, in_dims=2, out_dims=1)(xd.permute(1, 2, 0)),
          F.vmap(theirs, in_dims=2, out_dims=1)(xb.permute(1, 2, 0)))
    close(F.vmap(F.vmap(ours))(xd.unsqueeze(0).expand(2, -1, -1, -1)),
          F.vmap(F.vmap(theirs))(xb.unsqueeze(0).expand(2, -1, -1, -1)))


@pytest.mark.float64
@pytest.mark.parametrize("name", ALL_FUNCS)
def test_vmap_of_derivatives(name, device):
    ours, theirs = pair(name)
    xb, tb = data(name, (4, 3, 6)), data(name, (4, 3, 6), seed=1)
    xd, td = to_device(xb, device), to_device(tb, device)
    jvp = lambda f: F.vmap(lambda x, t: F.jvp(f, (x,), (t,)))  # noqa: E731
    close(jvp(ours)(xd, td), jvp(theirs)(xb, tb))
    grad = lambda f: F.vmap(F.grad(power(f)))  # noqa: E731
    close(grad(ours)(xd), grad(theirs)(xb))


@pytest.mark.float64
@pytest.mark.parametrize("name", ALL_FUNCS)
def test_jacobians(name, device):
    ours, theirs = pair(name)
    xr = real_view(data(name, (2, 6)))
    xd = xr.to(device)
    close(F.jacfwd(as_real_fn(name, ours))(xd), F.jacfwd(as_real_fn(name, theirs))(xr))
    close(F.jacrev(as_real_fn(name, ours))(xd), F.jacrev(as_real_fn(name, theirs))(xr))


@pytest.mark.float64
@pytest.mark.parametrize("name", ALL_FUNCS)
def test_hessian(name, device):
    ours, theirs = pair(name)
    xr = real_view(data(name, (2, 3)))
    loss = lambda f: power(as_real_fn(name, f))  # noqa: E731
    h1, h2 = F.hessian(loss(ours))(xr.to(device)), F.hessian(loss(theirs))(xr)
    close(h1, h2)
    assert h1.abs().sum() > 0  # not vacuous


# --- complex32 derivatives ----------------------------------------------------

HALF = {torch.float64: torch.float16, torch.complex128: torch.complex32}


def floor_ratio(y, ref):
    err, floor = rel_rms(y, ref), rounding_floor(ref, y.dtype)
    return err / floor


@pytest.mark.parametrize("name", ALL_FUNCS)
def test_complex32_jvp_and_backward(name, device):
    """Each complex32 derivative (on the device) is within 1.15 x the rounding
    floor of the complex128 derivative computed on the CPU on the same
    (rounded) data."""
    kw = {"n": 64} if name in FUNCS_1D else {"s": (16, 64) if name[-1] == "2" else (8, 16, 64)}
    f = lambda x: getattr(cf, name)(x, **kw)  # noqa: E731
    shape = (16, 16, 33 if c2r_output(name) else 64)
    wide = data(name, shape)
    x = wide.to(HALF[wide.dtype])
    x_w = x.to(wide.dtype)
    t = data(name, shape, seed=1).to(x.dtype)
    _, tan = F.jvp(f, (to_device(x, device),), (to_device(t, device),))
    _, tan_w = F.jvp(f, (x_w,), (t.to(wide.dtype),))
    assert tan.dtype == HALF[tan_w.dtype] and tan.device.type == device
    tan = to_cpu(tan)
    assert floor_ratio(tan, tan_w.numpy()) <= 1.15, floor_ratio(tan, tan_w.numpy())

    y, pull = F.vjp(f, to_device(x, device))
    g = rand(y.shape, y.dtype, seed=2)
    (gx,), (gx_w,) = pull(to_device(g, device)), F.vjp(f, x_w)[1](g.to(tan_w.dtype))
    assert gx.dtype == x.dtype
    gx = to_cpu(gx)
    ratio = floor_ratio(gx, gx_w.resolve_conj().numpy())
    assert ratio <= 1.15, ratio
