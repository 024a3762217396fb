"""complexext.matmul, bmm and einsum: results against float64 references.
complex32 is judged as a ratio to its floor (the exact product of the
rounded inputs, rounded to complex32), up to K = 4096; complex64 and
complex128 against torch's own products; torch.matmul's shape rules
(1-d operands, broadcast batch dims)."""
import numpy as np
import pytest
import torch

import complexext
from support.refs import check_precision, rand, to_numpy

C32, C64, C128 = torch.complex32, torch.complex64, torch.complex128


def _ref(f, *ts):
    return to_numpy(f(*[t.to(C128) for t in ts]))


@pytest.mark.parametrize("m, k, n", [(1, 16, 1), (33, 64, 17), (64, 512, 48), (16, 4096, 16)])
def test_complex32_product_at_the_floor(m, k, n):
    a, b = rand((m, k), C32, seed=k), rand((k, n), C32, seed=k + 1)
    a0, b0 = a.clone(), b.clone()
    y = complexext.matmul(a, b)
    assert y.dtype == C32 and y.shape == (m, n)
    check_precision(y, _ref(torch.matmul, a, b), C32)
    assert torch.equal(a.view(torch.int32), a0.view(torch.int32))
    assert torch.equal(b.view(torch.int32), b0.view(torch.int32))


@pytest.mark.parametrize("m, k, n", [(40, 4096, 24), (17, 1, 9)])
def test_more_rows_at_the_floor(m, k, n):
    """The CPU's Gauss path (more than 16 rows) to K = 4096."""
    a, b = rand((m, k), C32, seed=k + 2), rand((k, n), C32, seed=k + 3)
    check_precision(complexext.matmul(a, b), _ref(torch.matmul, a, b), C32)


def _nearly_real(shape, eps, seed):
    g = torch.Generator().manual_seed(seed)
    re = torch.randn(shape, dtype=torch.float64, generator=g)
    im = eps * torch.randn(shape, dtype=torch.float64, generator=g)
    return torch.complex(re, im).to(C32)


@pytest.mark.parametrize("m", [8, 64])
@pytest.mark.parametrize("eps", [1e-4, 1e-2, 0.1])
@pytest.mark.parametrize("turn", ["real", "imaginary", "mixed"])
def test_each_part_at_its_own_floor(m, eps, turn):
    """Operands whose imaginary parts are eps of their real parts (or turned
    by i) give a product with one part far smaller than the other; each part
    is held to its own complex32 floor, not only the whole. Gauss's
    P3 - P1 - P2 would put the small part at 7-13 x its floor at eps = 1e-4."""
    k, n = 1024, 24
    a, b = _nearly_real((m, k), eps, seed=1), _nearly_real((k, n), eps, seed=2)
    if turn != "real":
        b = (b.to(C64) * 1j).to(C32)
    if turn == "imaginary":
        a = (a.to(C64) * 1j).to(C32)
    y = complexext.matmul(a, b)
    ref = _ref(torch.matmul, a, b)
    for part in (np.real, np.imag):
        exact = part(ref).astype(np.complex128)
        check_precision(torch.from_numpy(part(to_numpy(y)).astype(np.complex64)).to(C32),
                        exact, C32)


@pytest.mark.parametrize("dtype", [C64, C128])
def test_wider_dtypes_match_torch(dtype):
    a, b = rand((3, 20, 30), dtype, seed=1), rand((3, 30, 10), dtype, seed=2)
    check_precision(complexext.bmm(a, b), _ref(torch.bmm, a, b), dtype)


@pytest.mark.parametrize("sa, sb", [((5,), (5,)), ((5,), (5, 3)), ((4, 5), (5,)),
                                    ((2, 1, 4, 5), (3, 5, 6)), ((7, 4, 5), (5, 2)),
                                    ((4, 5), (2, 3, 5, 6)), ((0, 4, 5), (5, 2)),
                                    ((4, 0), (0, 3))])
def test_matmul_shapes_follow_torch(sa, sb):
    a, b = rand(sa, C32, seed=3), rand(sb, C32, seed=4)
    y = complexext.matmul(a, b)
    ref = torch.matmul(a.to(C128), b.to(C128))
    assert y.shape == ref.shape and y.dtype == C32
    if ref.numel():
        check_precision(y, to_numpy(ref), C32)


def test_conjugated_and_strided_operands():
    a = rand((6, 8), C32, seed=5)
    b = rand((10, 8), C32, seed=6)
    y = complexext.matmul(a, b.mT.conj())  # a transposed conj view as the right operand
    check_precision(y, _ref(lambda p, q: p @ q.mT.conj(), a, b), C32)


# the CPU's two complex32 paths: few rows (M <= 16, fp16 read in place, conj
# bits and strides folded in) and the widened BLAS product (M > 16)
@pytest.mark.parametrize("m", [1, 3, 8, 16, 17, 40])
@pytest.mark.parametrize("form", ["plain", "a_conj", "b_conj", "b_transposed", "b_conj_transposed",
                                  "a_transposed_conj", "batch_broadcast", "sliced"])
def test_operand_forms_on_both_paths(m, form):
    k, n, nb = 24, 13, 3
    a, b = rand((nb, m, k), C32, seed=m), rand((nb, k, n), C32, seed=m + 1)
    bt = rand((nb, n, k), C32, seed=m + 2)
    at = rand((nb, k, m), C32, seed=m + 3)
    wide = rand((nb, m, 2 * k), C32, seed=m + 4)
    A, B = {
        "plain": (a, b), "a_conj": (a.conj(), b), "b_conj": (a, b.conj()),
        "b_transposed": (a, bt.mT), "b_conj_transposed": (a, bt.mT.conj()),
        "a_transposed_conj": (at.mT.conj(), b), "batch_broadcast": (a[:1].expand(nb, m, k), b),
        "sliced": (wide[:, :, ::2], b),
    }[form]
    before = [t.resolve_conj().view(torch.int32).clone() for t in (A, B)]
    y = complexext.bmm(A, B)
    assert y.dtype == C32 and y.shape == (nb, m, n)
    check_precision(y, _ref(torch.bmm, A, B), C32)
    for t, t0 in zip((A, B), before):
        assert torch.equal(t.resolve_conj().view(torch.int32), t0)


@pytest.mark.parametrize("eq, shapes", [
    ("bij,bjk->bik", [(3, 4, 8), (3, 8, 5)]),
    ("fct,fdt->fcd", [(33, 4, 100), (33, 4, 100)]),   # PSD matrices: sum over frames
    ("fcd,fdt->fct", [(33, 4, 4), (33, 4, 50)]),      # a filter applied per bin
    ("i,i->", [(64,), (64,)]),
    ("ij,kj", [(5, 9), (7, 9)]),                       # implicit output: "ik"
    ("btc,bsc->bts", [(2, 30, 6), (2, 20, 6)]),        # attention-like, rows > 16
    ("ik,kjb->bji", [(20, 6), (6, 3, 2)]),             # output permuted
    ("fmt,f->fmt", [(5, 3, 7), (5,)]),                 # no contraction
])
def test_einsum_complex32_at_the_floor(eq, shapes):
    ops_ = [rand(s, C32, seed=i + 7) for i, s in enumerate(shapes)]
    y = complexext.einsum(eq, *ops_)
    assert y.dtype == C32
    check_precision(y, _ref(lambda *t: torch.einsum(eq, *t), *ops_), C32)


def test_einsum_psd_of_a_conjugate_view():
    """the PSD form with its conj operand: the product reads the conj bit"""
    x = rand((17, 6, 300), C32, seed=9)
    y = complexext.einsum("fct,fdt->fcd", x, x.conj())
    check_precision(y, _ref(lambda t: torch.einsum("fct,fdt->fcd", t, t.conj()), x), C32)
    diag = torch.diagonal(y, dim1=-2, dim2=-1)
    assert torch.equal(torch.view_as_real(diag)[..., 1].float(), torch.zeros(17, 6))


def test_einsum_passes_other_dtypes_to_torch():
    a, b = rand((3, 4), C64, seed=1), rand((4, 2), C64, seed=2)
    torch.testing.assert_close(complexext.einsum("ij,jk->ik", a, b), torch.einsum("ij,jk->ik", a, b))
    torch.testing.assert_close(complexext.einsum("ij,jk->ik", [a, b]), a @ b)


@pytest.mark.parametrize("dtype", [C32, C64], ids=str)
def test_each_device_at_the_floor(device, dtype):
    """The op on every device with kernels (CUDA: the fp16 tensor-core GEMM
    of the real embedding for complex32), against the complex128 product
    computed on the CPU."""
    if device == "mps":
        pytest.skip("complexext::bmm has no Metal kernel")
    a, b = rand((3, 40, 300), dtype, seed=11), rand((3, 300, 24), dtype, seed=12)
    y = complexext.matmul(a.to(device), b.to(device))
    assert y.device.type == device and y.dtype == dtype
    check_precision(y.cpu(), _ref(torch.matmul, a, b), dtype)
    bc = b.to(C64).conj().resolve_conj().to(dtype).to(device).conj()  # a conj view, values b
    assert bc.is_conj()
    g = complexext.matmul(a.to(device), bc)
    check_precision(g.cpu(), _ref(torch.matmul, a, b), dtype)
