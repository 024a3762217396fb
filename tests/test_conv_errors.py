"""Bad input gets a clear error that starts with the function's name:
channels, groups, kernel larger than the padded input, devices, dtypes,
argument forms, shapes; the raw op's own checks. On each device (inputs made
on the CPU and moved)."""
import pytest
import torch

import complexext.nn.functional as CF
from complexext._ops import ops
from conftest import to_device
from support.refs import rand

C32, C64, C128 = torch.complex32, torch.complex64, torch.complex128
ALL = ["conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d"]


def good(name, device, dtype=C64):
    """(input, weight, bias) on device that work for name."""
    nd = 2 if name.endswith("2d") else 1
    x = rand((2, 4) + (6,) * nd, dtype, seed=1)
    w = rand(((4, 3) if "transpose" in name else (3, 4)) + (3,) * nd, dtype, seed=2)
    return tuple(to_device(t, device) for t in (x, w, rand((3,), dtype, seed=3)))


def call(name, x, w, b=None, **kw):
    return getattr(CF, name)(x, w, b, **kw)


def raises(exc, name, what):
    return pytest.raises(exc, match=f"^{name}: .*{what}")


@pytest.mark.parametrize("name", ALL)
def test_mismatched_channels(name, device):
    x, w, b = good(name, device)
    with raises(ValueError, name, "the input must have 4 channels, got 3"):
        call(name, x[:, :3], w, b)
    with raises(ValueError, name, r"expected a bias of shape \(3,\)"):
        call(name, x, w, b[:2])


@pytest.mark.parametrize("name", ALL)
def test_groups(name, device):
    x, w, b = good(name, device)
    g = 3 if "transpose" in name else 2  # weight.shape[0] is 4 or 3
    with raises(ValueError, name, f"not divisible by groups = {g}"):
        call(name, x, w, groups=g)
    with raises(ValueError, name, "groups must be >= 1"):
        call(name, x, w, groups=0)
    with raises(TypeError, name, "groups must be an int"):
        call(name, x, w, groups=1.0)
    w2 = w if "transpose" in name else to_device(rand((4, 2) + w.shape[2:], C64), device)
    with raises(ValueError, name, "with groups=2 .* the input must have 4 channels, got 6"):
        call(name, torch.cat([x, x[:, :2]], 1), w2, groups=2)


@pytest.mark.parametrize("name", ["conv1d", "conv2d"])
def test_kernel_larger_than_padded_input(name, device):
    x, w, b = good(name, device)
    with raises(ValueError, name, r"the kernel \(5 with dilation\) is larger than the padded "
                                  r"input \(4\)"):
        call(name, x[..., :4], w, dilation=2)
    call(name, x[..., :4], w, dilation=2, padding=1)  # fits once padded


@pytest.mark.parametrize("name", ["conv_transpose1d", "conv_transpose2d"])
def test_transposed_sizes(name, device):
    x, w, b = good(name, device)
    with raises(ValueError, name, "output_padding .* must be smaller than either stride"):
        call(name, x, w, output_padding=1)
    with raises(ValueError, name, "output size .* would be -1"):
        call(name, x[..., :1], w, padding=2)


@pytest.mark.parametrize("name", ALL)
def test_mixed_devices(name, device):
    x, w, b = good(name, device)
    d = str(x.device)
    with raises(RuntimeError, name, f"must be on the same device, got {d}, meta"):
        call(name, x, w.to("meta"))
    with raises(RuntimeError, name, f"must be on the same device, got {d}, {d}, meta"):
        call(name, x, w, b.to("meta"))
    if device != "cpu":
        with raises(RuntimeError, name, f"must be on the same device, got cpu, {d}"):
            call(name, x.cpu(), w)
        with raises(RuntimeError, name, f"must be on the same device, got {d}, {d}, cpu"):
            call(name, x, w, b.cpu())


@pytest.mark.float64  # float64 and complex128 tensors on the device
@pytest.mark.parametrize("name", ALL)
def test_complex_weight_with_real_input(name, device):
    """Meaningful with the weight's precision (taken as complex); refused
    with any other."""
    x, w, b = good(name, device)
    for xd, wd in ((torch.float32, C32), (torch.float64, C64), (torch.float16, C128)):
        with raises(TypeError, name, f"a complex {str(wd)[6:]} weight needs a"):
            call(name, x.real.to(xd), w.to(wd))
    call(name, x.real.contiguous(), w)


@pytest.mark.float64  # float64 and complex128 tensors on the device
@pytest.mark.parametrize("name", ALL)
def test_unsupported_dtypes(name, device):
    x, w, b = good(name, device)
    for bad in (torch.int64, torch.bool, torch.bfloat16, torch.uint8):
        with raises(TypeError, name, f"unsupported input dtype {str(bad)[6:]}"):
            call(name, x.real.to(bad), w)
        with raises(TypeError, name, f"unsupported weight dtype {str(bad)[6:]}"):
            call(name, x, w.real.to(bad))
    with raises(TypeError, name, "input and weight are both real"):
        call(name, x.real.contiguous(), w.real.contiguous())
    with raises(TypeError, name, "a complex64 input needs a complex64 or float32 weight, got "
                                 "complex128"):
        call(name, x, w.to(C128))
    with raises(TypeError, name, "needs a complex64 or float32 weight, got float64"):
        call(name, x, w.real.double())
    with raises(TypeError, name, "needs a complex64 or float32 bias, got complex32"):
        call(name, x, w, b.to(C32))
    with raises(TypeError, name, "expected input to be a tensor, got list"):
        call(name, [1.0], w)


@pytest.mark.parametrize("name", ["conv1d", "conv2d"])
def test_argument_forms(name, device):
    x, w, b = good(name, device)
    with raises(ValueError, name, "padding must be 'valid', 'same'"):
        call(name, x, w, padding="full")
    with raises(ValueError, name, "padding='same' is not supported for strided"):
        call(name, x, w, padding="same", stride=2)
    with raises(ValueError, name, "padding values must be >= 0"):
        call(name, x, w, padding=-1)
    with raises(ValueError, name, "stride values must be >= 1"):
        call(name, x, w, stride=0)
    with raises(ValueError, name, "dilation values must be >= 1"):
        call(name, x, w, dilation=0)
    with raises(ValueError, name, "stride must be an int or"):
        call(name, x, w, stride=(1, 1, 1))
    with raises(TypeError, name, "stride must hold ints, got bool"):
        call(name, x, w, stride=True)
    with raises(ValueError, name, "-d weight, got shape"):
        call(name, x, w[..., 0])
    with raises(ValueError, name, r"\(unbatched\) or .* \(batched\) input, got shape"):
        call(name, x[0, 0], w)


@pytest.mark.parametrize("name", ["conv_transpose1d", "conv_transpose2d"])
def test_transposed_padding_must_be_numbers(name, device):
    x, w, b = good(name, device)
    with raises(ValueError, name, "padding must be an int or a tuple of ints"):
        call(name, x, w, padding="same")


def test_raw_op_checks_name_the_op(device):
    x, w, b = good("conv1d", device)
    args = ([1], [0], [1], False, [0], 1)
    with pytest.raises(RuntimeError, match="^convolution: expected a complex input"):
        ops.convolution(x.real.contiguous(), w, b, *args)
    with pytest.raises(RuntimeError, match="^convolution: expected an input with 4 channels"):
        ops.convolution(x[:, :3], w, b, *args)
    with pytest.raises(RuntimeError, match="^convolution: the kernel .* is larger than the"):
        ops.convolution(x[..., :2], w, b, *args)
    with pytest.raises(RuntimeError, match="^convolution: stride must have 1 values"):
        ops.convolution(x, w, b, [1, 1], [0], [1], False, [0], 1)
