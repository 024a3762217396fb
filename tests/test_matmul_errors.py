"""Bad input to complexext.matmul/bmm/einsum and to the raw op: a clear
error naming the function, and the inputs untouched."""
import pytest
import torch

import complexext

C32, C64 = torch.complex32, torch.complex64
A = torch.randn(3, 4, dtype=C64).to(C32)
B = torch.randn(4, 2, dtype=C64).to(C32)


@pytest.mark.parametrize("call, exc, what", [
    (lambda: complexext.matmul(A, A), ValueError, "matmul: shapes \\(3, 4\\) and \\(3, 4\\)"),
    (lambda: complexext.matmul(A, B.to(C64)), TypeError, "matmul: expected two complex32"),
    (lambda: complexext.matmul(A.real, B.real), TypeError, "matmul: expected two complex32"),
    (lambda: complexext.matmul(A, B.to("meta")), ValueError, "matmul: expected tensors on one"),
    (lambda: complexext.matmul(A, [1.0]), TypeError, "matmul: expected tensors, got list"),
    (lambda: complexext.matmul(A[0, 0], B), ValueError, "at least 1 dimension"),
    (lambda: complexext.matmul(A.expand(2, 3, 4), B.expand(3, 4, 2)), ValueError,
     "batch dims .* do not broadcast"),
    (lambda: complexext.bmm(A, B), ValueError, "bmm: expected 3-d tensors"),
    (lambda: complexext.bmm(A[None], B[None].expand(2, 4, 2)), ValueError, "bmm: batch sizes"),
    (lambda: complexext.einsum("ij,jk->ik", A, B.to(C64)), TypeError, "einsum: complex32"),
    (lambda: complexext.einsum("ij,jk->ik", A, A), ValueError, "einsum: "),
    (lambda: torch.ops.complexext.bmm(A[None], A[None]), ValueError,
     "bmm: shapes .* cannot be multiplied"),
    (lambda: torch.ops.complexext.bmm(A[None], B[None].to(C64)), TypeError,
     "bmm: expected two complex tensors of one dtype"),
])
def test_bad_input_named(call, exc, what):
    a0, b0 = A.clone(), B.clone()
    with pytest.raises(exc, match=what):
        call()
    assert torch.equal(A.view(torch.int32), a0.view(torch.int32))
    assert torch.equal(B.view(torch.int32), b0.view(torch.int32))
