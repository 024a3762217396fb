# CPU only: transforms over several dims of a batch, which the CPU runs a
# chunk of dim 0 at a time where their fp32 buffer would be large.
"""Multi-axis transforms over a batch large enough to be chunked along dim 0
(cpu/fft_ops.cpp): the result is bit for bit that of each batch item
transformed alone, and within the floor of float64. Shapes: 7 items of
614 KB of buffer each (chunks of 3, 3 and 1), and a 4-D batch with 1.6 MB
items (chunks of one)."""
import numpy as np
import pytest
import torch

import complexext as cx

CASES = [((7, 200, 384), (-2, -1)), ((3, 2, 256, 400), (3, 2)), ((7, 200, 384), (1, 2))]


def floor_ratio(got, ref):
    got = got.to(torch.complex128).numpy()
    rounded = torch.from_numpy(ref).to(torch.complex32).to(torch.complex128).numpy()
    rms = lambda e: np.sqrt(np.mean(np.abs(e) ** 2))
    return rms(got - ref) / rms(rounded - ref)


def each_item(f, x):
    return torch.stack([f(x[i:i + 1])[0] for i in range(x.shape[0])])


def strided(x):
    """x as a view with a stride past its last dim (not contiguous)."""
    wide = torch.zeros(*x.shape[:-1], x.shape[-1] + 3, dtype=x.dtype)
    wide[..., :x.shape[-1]] = x
    return wide[..., :x.shape[-1]]


@pytest.mark.parametrize("shape,dims", CASES, ids=str)
@pytest.mark.parametrize("layout", ["contiguous", "strided"])
def test_fftn_over_a_batch(shape, dims, layout):
    g = torch.Generator().manual_seed(len(shape))
    x = torch.randn(shape, dtype=torch.complex64, generator=g).to(torch.complex32)
    x = strided(x) if layout == "strided" else x
    before = x.clone()
    got = cx.fft.fftn(x, dim=dims, norm="ortho")
    assert torch.equal(x.view(torch.float16), before.view(torch.float16))
    alone = each_item(lambda t: cx.fft.fftn(t, dim=dims, norm="ortho"), x)
    assert torch.equal(got.view(torch.float16), alone.view(torch.float16))
    ref = np.fft.fftn(x.to(torch.complex128).numpy(), axes=dims, norm="ortho")
    assert floor_ratio(got, ref) <= 1.15
    out = torch.empty_like(got)
    cx.fft.ifftn(got, dim=dims, norm="ortho", out=out)
    back = np.fft.ifftn(got.to(torch.complex128).numpy(), axes=dims, norm="ortho")
    assert floor_ratio(out, back) <= 1.15


@pytest.mark.parametrize("shape,dims", CASES, ids=str)
@pytest.mark.parametrize("layout", ["contiguous", "strided"])
def test_rfftn_and_irfftn_over_a_batch(shape, dims, layout):
    g = torch.Generator().manual_seed(len(shape) + 10)
    last = shape[:-1] + (2 * shape[-1] - 2,)  # the real length whose half spectrum is shape[-1]
    x = torch.randn(last, generator=g).half()
    x = strided(x) if layout == "strided" else x
    d = tuple(sorted(dims))
    got = cx.fft.rfftn(x, dim=d)
    alone = each_item(lambda t: cx.fft.rfftn(t, dim=d), x)
    assert torch.equal(got.view(torch.float16), alone.view(torch.float16))
    ref = np.fft.rfftn(x.to(torch.float64).numpy(), axes=d)
    assert floor_ratio(got, ref) <= 1.15
    s = [x.shape[k] for k in d]
    for spec in (got, got.to(torch.complex64)):
        back = cx.fft.irfftn(spec, s=s, dim=d)
        alone = each_item(lambda t: cx.fft.irfftn(t, s=s, dim=d), spec)
        assert torch.equal(back, alone)
        out = torch.empty_like(back)
        cx.fft.irfftn(spec, s=s, dim=d, out=out)
        assert torch.equal(out, back)
        want = np.fft.irfftn(spec.to(torch.complex128).numpy(), s=s, axes=d)
        if spec.dtype == torch.complex32:
            rounded = torch.from_numpy(want).half().double().numpy()
            err = np.sqrt(np.mean((back.double().numpy() - want) ** 2))
            assert err <= 1.15 * np.sqrt(np.mean((rounded - want) ** 2))
        else:
            assert np.abs(back.double().numpy() - want).max() <= 2e-6 * np.abs(want).max()


def test_bad_out_of_a_chunked_call_names_the_op():
    x = torch.randn(7, 200, 766).half()
    with pytest.raises(RuntimeError, match="fft_r2c_out: out must have shape"):
        torch.ops.complexext.fft_r2c_out(
            x, [1, 2], 0, True, out=torch.empty(6, 200, 384, dtype=torch.complex32))
    out = torch.zeros(7, 200, 384, dtype=torch.complex32)
    with pytest.raises(RuntimeError, match="fft_r2c_out: out must be"):
        torch.ops.complexext.fft_r2c_out(x, [1, 2], 0, True, out=out.to(torch.complex64))
