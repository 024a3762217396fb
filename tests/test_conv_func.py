"""torch.func transforms of complex convolution against torch's complex128
convolution: jvp, vjp, vmap (over input, weight, bias, all, nested),
jacfwd, jacrev, hessian-vector products, vmap of derivatives. Ours on each
device, torch's on the CPU; the complex128 cases skip on MPS (no float64)."""
import pytest
import torch
import torch.func as F
import torch.nn.functional as TF

import complexext.nn.functional as CF
from conftest import to_cpu, to_device
from support.refs import rand

C128 = torch.complex128

CASES = [
    ("conv1d", (2, 4, 7), (4, 2, 3), {"stride": 2, "padding": 1, "groups": 2}),
    ("conv2d", (1, 2, 4, 5), (3, 2, 2, 2), {"padding": (1, 0), "dilation": (1, 2)}),
    ("conv_transpose1d", (2, 4, 4), (4, 1, 3),
     {"stride": 2, "padding": 1, "output_padding": 1, "groups": 2}),
    ("conv_transpose2d", (1, 2, 3, 3), (2, 2, 2, 2), {"stride": (2, 1), "padding": (1, 0)}),
]


def case_id(c):
    return c[0]


def pair(case):
    name, _, _, kw = case
    return (lambda x, w, b: getattr(CF, name)(x, w, b, **kw),
            lambda x, w, b: getattr(TF, name)(x, w, b, **kw))


def data(case, seed=0, lead=()):
    name, xs, ws, kw = case
    cout = ws[1] * kw.get("groups", 1) if "transpose" in name else ws[0]
    return (rand(lead + xs, C128, seed=seed), rand(lead + ws, C128, seed=seed + 1),
            rand(lead + (cout,), C128, seed=seed + 2))


def on(device, *tensors):
    return [to_device(t, device) for t in tensors]


def close(a, b):
    """a (ours, on the device) equals b (torch's, on the CPU)."""
    if isinstance(a, (tuple, list)):
        assert len(a) == len(b)
        for u, v in zip(a, b):
            close(u, v)
        return
    a = to_cpu(a)
    assert a.shape == b.shape and a.dtype == b.dtype
    torch.testing.assert_close(a, b, rtol=1e-11, atol=1e-11)


@pytest.mark.float64
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_jvp_and_vjp(case, device):
    ours, theirs = pair(case)
    args, tangents = data(case), data(case, seed=5)
    close(F.jvp(ours, tuple(on(device, *args)), tuple(on(device, *tangents))),
          F.jvp(theirs, args, tangents))
    (y1, pull1), (y2, pull2) = F.vjp(ours, *on(device, *args)), F.vjp(theirs, *args)
    close(y1, y2)
    g = rand(y1.shape, C128, seed=9)
    close(pull1(g.to(device)), pull2(g))


IN_DIMS = [(0, None, None), (None, 0, None), (0, 0, None), (None, None, 0), (0, 0, 0),
           (2, 1, None)]


@pytest.mark.float64
@pytest.mark.parametrize("in_dims", IN_DIMS, ids=str)
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_vmap(case, in_dims, device):
    ours, theirs = pair(case)
    single, batched = data(case), data(case, seed=3, lead=(3,))
    args = [single[i] if d is None else batched[i].movedim(0, d) for i, d in enumerate(in_dims)]
    close(F.vmap(ours, in_dims=in_dims)(*[a.to(device) for a in args]),
          F.vmap(theirs, in_dims=in_dims)(*args))


@pytest.mark.float64
@pytest.mark.parametrize("case", CASES[::3], ids=case_id)
def test_nested_vmap(case, device):
    ours, theirs = pair(case)
    x, w, b = data(case, lead=(2, 3))
    inner = (0, 0, None)
    xd, wd, bd = on(device, x, w, b)
    close(F.vmap(F.vmap(ours, in_dims=inner), in_dims=(0, None, 0))(xd, wd[0], bd[:, 0]),
          F.vmap(F.vmap(theirs, in_dims=inner), in_dims=(0, None, 0))(x, w[0], b[:, 0]))


def as_real(f, b):
    """f of real views of (x, w), returning a real view (jacfwd/jacrev need real)."""
    return lambda xr, wr: torch.view_as_real(
        f(torch.view_as_complex(xr), torch.view_as_complex(wr), b))


@pytest.mark.float64
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_jacfwd_jacrev(case, device):
    ours, theirs = pair(case)
    x, w, b = data(case)
    xr, wr = torch.view_as_real(x), torch.view_as_real(w)
    for jac in (F.jacfwd, F.jacrev):
        close(jac(as_real(ours, b.to(device)), argnums=(0, 1))(xr.to(device), wr.to(device)),
              jac(as_real(theirs, b), argnums=(0, 1))(xr, wr))


def energy(f, b):
    return lambda xr, wr: as_real(f, b)(xr, wr).pow(2).sum()


@pytest.mark.float64
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_hessian_vector_products(case, device):
    ours, theirs = pair(case)
    x, w, b = data(case)
    v = (torch.view_as_real(rand(x.shape, C128, seed=7)),
         torch.view_as_real(rand(w.shape, C128, seed=8)))

    def products(f, dev):
        xr, wr = torch.view_as_real(x).to(dev), torch.view_as_real(w).to(dev)
        vd = tuple(t.to(dev) for t in v)
        g = F.grad(energy(f, b.to(dev)), argnums=(0, 1))
        return F.jvp(g, (xr, wr), vd)[1], F.vjp(g, xr, wr)[1](vd)
    close(products(ours, device), products(theirs, "cpu"))


@pytest.mark.float64
def test_hessian(device):
    ours, theirs = pair(CASES[0])
    x, w, b = data(CASES[0])
    xr, wr = torch.view_as_real(x), torch.view_as_real(w)
    close(F.hessian(energy(ours, b.to(device)), argnums=1)(xr.to(device), wr.to(device)),
          F.hessian(energy(theirs, b), argnums=1)(xr, wr))


@pytest.mark.float64
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_vmap_of_derivatives(case, device):
    ours, theirs = pair(case)
    xb, wb, bb = data(case, lead=(3,))
    tb = data(case, seed=4, lead=(3,))
    jvp = lambda f: F.vmap(lambda *a: F.jvp(f, a[:3], a[3:]))  # noqa: E731
    close(jvp(ours)(*on(device, xb, wb, bb, *tb)), jvp(theirs)(xb, wb, bb, *tb))
    loss = lambda f: (lambda x, w, b: torch.view_as_real(f(x, w, b)).pow(2).sum())  # noqa
    grad = lambda f: F.vmap(F.grad(loss(f), argnums=(0, 1, 2)))  # noqa: E731
    close(grad(ours)(*on(device, xb, wb, bb)), grad(theirs)(xb, wb, bb))


def test_vmap_in_complex32_matches_a_loop(device):
    ours, _ = pair(CASES[1])
    x, w, b = on(device, *(t.to(torch.complex32) for t in data(CASES[1], lead=(3,))))
    got = torch.view_as_real(to_cpu(F.vmap(ours)(x, w, b)))
    for i in range(3):  # within one fp16 ulp: grouped and single fp32 sums may round apart
        loop = torch.view_as_real(to_cpu(ours(x[i], w[i], b[i])))
        torch.testing.assert_close(got[i].float(), loop.float(), rtol=2.0 ** -10, atol=0)
