"""Derivatives of complexext.matmul/bmm/einsum: gradcheck in complex128
(backward, forward mode, batched gradients), vmap, torch.func.jvp in
complex32 rounding once, and torch.compile(fullgraph=True)."""
import torch
import torch.func

import complexext
from support.refs import check_precision, rand, to_numpy

C32, C128 = torch.complex32, torch.complex128


def _leaf(shape, seed):
    return rand(shape, C128, seed=seed).requires_grad_()


def test_gradcheck_matmul_broadcast():
    a, b = _leaf((2, 1, 3, 4), 1), _leaf((3, 4, 2), 2)
    assert torch.autograd.gradcheck(complexext.matmul, (a, b), check_forward_ad=True,
                                    check_batched_grad=True)
    assert torch.autograd.gradgradcheck(complexext.matmul, (a, b))


def test_gradcheck_vector_operands_and_einsum():
    v, m = _leaf((4,), 3), _leaf((4, 3), 4)
    assert torch.autograd.gradcheck(complexext.matmul, (v, m), check_forward_ad=True)
    x, y = _leaf((5, 3, 6), 5), _leaf((5, 3, 6), 6)
    f = lambda p, q: complexext.einsum("fct,fdt->fcd", p, q.conj())  # noqa: E731
    assert torch.autograd.gradcheck(f, (x, y), check_forward_ad=True)


def test_vmap_matches_a_loop():
    a, b = rand((4, 5, 6), C32, seed=1), rand((6, 3), C32, seed=2)
    got = torch.func.vmap(complexext.matmul, in_dims=(0, None))(a, b)
    want = torch.stack([complexext.matmul(a[i], b) for i in range(4)])
    assert torch.equal(got.view(torch.int32), want.view(torch.int32))
    bb = rand((2, 4, 6, 3), C32, seed=3)
    got = torch.func.vmap(complexext.bmm, in_dims=(None, 0))(a, bb)
    want = torch.stack([complexext.bmm(a, bb[i]) for i in range(2)])
    assert torch.equal(got.view(torch.int32), want.view(torch.int32))


def test_jvp_in_complex32_rounds_once():
    a, b = rand((8, 64), C32, seed=1), rand((64, 8), C32, seed=2)
    ta, tb = rand((8, 64), C32, seed=3), rand((64, 8), C32, seed=4)
    y, t = torch.func.jvp(complexext.matmul, (a, b), (ta, tb))
    w = lambda x: x.to(C128)  # noqa: E731
    check_precision(y, to_numpy(w(a) @ w(b)), C32)
    check_precision(t, to_numpy(w(ta) @ w(b) + w(a) @ w(tb)), C32)


def test_backward_in_complex32_at_the_floor():
    a = rand((8, 32), C32, seed=1).requires_grad_()
    b = rand((32, 4), C32, seed=2).requires_grad_()
    g = rand((8, 4), C32, seed=3)
    complexext.matmul(a, b).backward(g)
    w = lambda x: x.detach().to(C128)  # noqa: E731
    check_precision(a.grad, to_numpy(w(g) @ w(b).mH), C32)
    check_precision(b.grad, to_numpy(w(a).mH @ w(g)), C32)


def test_compile_fullgraph():
    a, b = rand((3, 6, 5), C32, seed=1), rand((5, 4), C32, seed=2)

    def f(p, q):
        return complexext.matmul(p, q) * 2

    got = torch.compile(f, fullgraph=True, backend="aot_eager")(a, b)
    assert torch.equal(got.view(torch.int32), f(a, b).view(torch.int32))
