"""complexext.autocast: complex mixed precision for models written with
torch's own calls.

    with complexext.autocast("cpu"):
        spec = torch.stft(x, 512, 128, window=w, return_complex=True)  # complex32
        y = torch.nn.functional.conv2d(spec.unsqueeze(1), weight)      # complex32
        mask = torch.tanh(y.abs())                                     # float16, fp32 compute

Inside the region, on tensors of `device_type` (docs/amp.md has the
table):

- the 18 torch.fft functions, torch.stft/istft, torch.nn.functional.conv1d,
  conv2d, conv_transpose1d and conv_transpose2d with complex operands, and
  torch.matmul, mm, bmm, einsum and @ on complex operands run in complex32
  through complexext (fp32 compute, one rounding). complex64, complex32 and
  float16 inputs are cast to complex32 (float16); float32 inputs too where
  the transform takes a real signal (rfft, ihfft, stft). complex128 and
  float64 inputs are refused with an error naming the function: a silent
  cast would drop 40 bits. Parameters are cast on the way in, so they stay
  in their own dtype and their gradients arrive in it.
- every other torch call that is given a complex32 tensor computes in fp32:
  its complex32 operands are read exactly into complex64, the op runs
  there, and its floating results are rounded once back to the half dtypes
  (complex32, float16), unless a wider operand made torch's own result wide.
  That covers what torch lacks for complex32 (div, exp, log, sqrt, pow,
  tanh, angle, reciprocal, sum, mean, cumsum, prod, equal, ...) and makes
  their backward run in fp32 too, where torch's complex32 kernels stop
  (the reduction behind a broadcast's gradient, for one). Views and copies
  (view, reshape, indexing, cat, pad, real, imag, to, ...) stay in
  complex32.
- everything else is left alone; it nests inside torch.autocast, which
  keeps casting the real ops it knows.

The region is a TorchFunctionMode: backward, forward-mode AD, torch.func
and torch.compile(fullgraph=True) see through it.
"""
import functools
import inspect
import types

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._pytree import tree_flatten, tree_map

from . import fft as _cxfft
from ._frontend import matmul as _mm
from ._frontend import stft as _stft
from .nn import functional as _cxF

__all__ = ["autocast", "is_autocast_enabled", "GradScaler"]

_C32, _C64 = torch.complex32, torch.complex64
_HALF = {torch.complex32: torch.complex32, torch.complex64: torch.complex32,
         torch.float16: torch.float16, torch.float32: torch.float16}
_REFUSED = (torch.complex128, torch.float64)
_WIDE = (torch.float32, torch.float64, torch.complex64, torch.complex128)

_FFT_COMPLEX_IN = ("fft", "ifft", "fft2", "ifft2", "fftn", "ifftn",
                   "irfft", "irfft2", "irfftn", "hfft", "hfft2", "hfftn")
_FFT_REAL_IN = ("rfft", "rfft2", "rfftn", "ihfft", "ihfft2", "ihfftn")

# ops whose forward and backward torch runs in complex32 as they are: views,
# shape changes, copies and queries; everything not here computes in fp32
_KEEP = frozenset("""
    view view_as reshape reshape_as permute transpose t swapaxes swapdims movedim moveaxis
    unsqueeze squeeze flatten unflatten narrow select __getitem__ __setitem__ chunk split
    unbind tensor_split contiguous clone detach detach_ conj resolve_conj resolve_neg
    view_as_real view_as_complex real imag to type cpu cuda float half double cfloat chalf
    cdouble size dim ndimension numel nelement stride storage_offset is_contiguous
    is_complex is_floating_point is_conj is_neg data_ptr element_size requires_grad_
    register_hook retain_grad backward __len__ __repr__ __format__ __hash__ __iter__
    __reduce_ex__ __deepcopy__ __getstate__ __setstate__ storage untyped_storage
    cat concat concatenate stack flip roll zeros_like ones_like empty_like full_like
    new_zeros new_ones new_empty new_full new_tensor pad constant_pad_nd copy_ fill_ zero_
    isfinite isnan isinf item tolist numpy __get__ __set__ __delete__ _is_view
    share_memory_ pin_memory is_pinned get_device __dlpack__ __dlpack_device__
""".split())
_INPLACE_DUNDER = frozenset("__iadd__ __isub__ __imul__ __itruediv__ __idiv__ __ipow__ "
                            "__ifloordiv__".split())


def _kinds():
    """func -> "keep" (runs in complex32 as it is) or "inplace" (writes its
    first operand), for torch's functions and Tensor methods; a table of
    objects, so that the lookup is one dict access that torch.compile traces
    (it hashes every key: no method-wrappers in it)."""
    kind = {}
    for ns in (torch, torch.Tensor, torch.nn.functional, torch._C._nn):
        for name in _KEEP:
            f = getattr(ns, name, None)
            if callable(f):
                kind[f] = "keep"
    for name in dir(torch.Tensor):
        attr = inspect.getattr_static(torch.Tensor, name, None)
        if isinstance(attr, (property, types.GetSetDescriptorType)):
            continue  # properties are told apart by their accessor's type (a method-wrapper)
        elif (name in _INPLACE_DUNDER or (name.endswith("_") and not name.startswith("_"))) \
                and name not in _KEEP and callable(attr):
            kind[getattr(torch.Tensor, name)] = "inplace"
    return kind


_KIND = _kinds()


def _refuse(fname, t):
    # a RuntimeError, as torch's dtype mismatches: a TypeError raised inside
    # Tensor.__matmul__ would be turned into Python's "unsupported operand"
    dtype = str(t.dtype).removeprefix("torch.")
    raise RuntimeError(f"{fname}: complexext.autocast runs complex64, complex32 and float16 "
                       f"inputs in complex32 and refuses {dtype} (the cast would drop 40 bits "
                       f"silently); call it outside the autocast region or cast the input first")


def _one_device(fname, tensors):
    devices = {t.device for t in tensors}
    if len(devices) > 1:
        raise ValueError(f"{fname}: expected all tensors on one device, got "
                         f"{', '.join(sorted(map(str, devices)))}")


def _check_operands(fname, ops):
    """One device, and no double-precision operand, for a rerouted call."""
    _one_device(fname, ops)
    for t in ops:
        if t.dtype in _REFUSED:
            _refuse(fname, t)


def _half(fname, t, kinds):
    """t cast to its half dtype when its dtype is in kinds; None: leave the call alone."""
    if t.dtype in _REFUSED:
        _refuse(fname, t)
    return t.to(_HALF[t.dtype]) if t.dtype in kinds else None


class _Mode(TorchFunctionMode):
    def __init__(self, device_type):
        super().__init__()
        self.device_type = device_type
        self.handlers = _handlers()

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        handler = self.handlers.get(func)
        if handler is not None:
            out = handler(self, func, args, kwargs)
            if out is not NotImplemented:
                return out
            return func(*args, **kwargs)
        return self._complex32_op(func, args, kwargs)

    def _mine(self, tensors):
        return any(t.device.type == self.device_type for t in tensors)

    # every other call: complex32 operands computed in fp32, rounded once
    def _complex32_op(self, func, args, kwargs):
        # properties and views first: they run as they are, whatever the dtypes
        if isinstance(func, types.MethodWrapperType):  # a property: real, imag, shape, mT, ...
            return func(*args, **kwargs)
        kind = _KIND.get(func)
        if kind == "keep":
            return func(*args, **kwargs)
        tensors = _shallow_tensors(args, kwargs)
        shallow = tensors is not None
        if not shallow:
            flat, _ = tree_flatten((args, kwargs))
            tensors = [t for t in flat if isinstance(t, torch.Tensor)]
        if not any(t.dtype == _C32 and t.device.type == self.device_type for t in tensors):
            return func(*args, **kwargs)
        wide = any(t.dtype in _WIDE and t.dim() > 0 for t in tensors)
        out = kwargs.get("out")
        if isinstance(out, torch.Tensor) and out.dtype == _C32:
            kwargs = {k: v for k, v in kwargs.items() if k != "out"}
            res = self._complex32_op(func, args, kwargs)
            if out.shape != res.shape:
                out.resize_(res.shape)
            return out.copy_(res)

        def up(t):
            return t.to(_C64) if isinstance(t, torch.Tensor) and t.dtype == _C32 else t

        def down(t):
            if not isinstance(t, torch.Tensor) or wide:
                return t
            if t.dtype == _C64:
                return t.to(_C32)
            if t.dtype == torch.float32:
                return t.to(torch.float16)
            return t

        if shallow:
            res = func(*[_map1(up, a) for a in args],
                       **{k: _map1(up, v) for k, v in kwargs.items()})
        else:
            res = func(*tree_map(up, args), **tree_map(up, kwargs))
        first = args[0] if args else None
        if kind == "inplace" and isinstance(first, torch.Tensor) and first.dtype == _C32:
            return first.copy_(res)
        return tree_map(down, res)

    # torch.fft
    @staticmethod
    def _fft(name, real_in):
        kinds = (torch.float16, torch.float32) if real_in else (torch.complex64, torch.complex32,
                                                                 torch.float16)
        fname = "torch.fft." + name
        ours = getattr(_cxfft, name)

        def handler(mode, func, args, kwargs):
            x = args[0] if args else kwargs.get("input")
            if not isinstance(x, torch.Tensor) or x.device.type != mode.device_type:
                return NotImplemented
            if real_in and x.is_complex() and x.dtype not in _REFUSED:
                return NotImplemented  # torch's error
            h = _half(fname, x, kinds)
            if h is None:
                return NotImplemented
            rest, kw = args[1:], {k: v for k, v in kwargs.items() if k != "input"}
            out = kw.pop("out", None)
            y = ours(h, *rest, **kw)
            return _into(out, y)
        return handler

    # torch.stft / istft
    def _stft(self, func, args, kwargs):
        a = _bind(_STFT_SIG, args, kwargs)
        x = a["input"]
        if not isinstance(x, torch.Tensor) or x.device.type != self.device_type:
            return NotImplemented
        if a.pop("align_to_window", None):
            return NotImplemented
        w = a.get("window")
        if isinstance(w, torch.Tensor):
            _one_device("torch.stft", [x, w])
        h = _half("torch.stft", x, tuple(_HALF))
        a["input"] = h
        return _stft.stft(**a)

    def _istft(self, func, args, kwargs):
        a = _bind(_ISTFT_SIG, args, kwargs)
        x = a["input"]
        if not isinstance(x, torch.Tensor) or x.device.type != self.device_type:
            return NotImplemented
        w = a.get("window")
        if isinstance(w, torch.Tensor):
            _one_device("torch.istft", [x, w])
        h = _half("torch.istft", x, (torch.complex64, torch.complex32))
        if h is None:
            return NotImplemented
        a["input"] = h
        return _stft.istft(**a)

    # torch.nn.functional convolutions with a complex operand
    @staticmethod
    def _conv(name, transpose):
        fname = "torch.nn.functional." + name
        ours = getattr(_cxF, name)

        sig = _CONVT_SIG if transpose else _CONV_SIG

        def handler(mode, func, args, kwargs):
            a = _bind(sig, args, kwargs)
            x, w, b = a.get("input"), a.get("weight"), a.get("bias")
            ops = [t for t in (x, w, b) if isinstance(t, torch.Tensor)]
            if not any(t.is_complex() for t in ops) or not mode._mine(ops):
                return NotImplemented
            _check_operands(fname, ops)
            if any(t.dtype not in _HALF for t in ops):
                return NotImplemented
            for k in ("input", "weight", "bias"):
                if isinstance(a.get(k), torch.Tensor):
                    a[k] = a[k].to(_HALF[a[k].dtype])
            return ours(**a)
        return handler

    # matrix products with complex operands
    @staticmethod
    def _products(fname, ours, swap=False):
        def handler(mode, func, args, kwargs):
            a, b = (args[1], args[0]) if swap else (args[0], args[1])
            ops = (a, b)
            if not all(isinstance(t, torch.Tensor) for t in ops) or not mode._mine(ops):
                return NotImplemented
            if not all(t.is_complex() for t in ops):
                return NotImplemented
            _check_operands(fname, ops)
            return ours(a.to(_C32), b.to(_C32))
        return handler

    def _polar(self, func, args, kwargs):
        """torch.polar of float16 magnitude and angle (torch has no half kernel
        on a CPU): computed in fp32, rounded once to complex32."""
        a = _bind(("abs", "angle"), args, kwargs)
        ops = [a.get("abs"), a.get("angle")]
        if not all(isinstance(t, torch.Tensor) and t.dtype == torch.float16 for t in ops) \
                or not self._mine(ops) or a.get("out") is not None:
            return NotImplemented
        _one_device("torch.polar", ops)
        return torch.polar(ops[0].float(), ops[1].float()).to(_C32)

    def _einsum(self, func, args, kwargs):
        eq, ops = args[0], args[1:]
        if len(ops) == 1 and isinstance(ops[0], (list, tuple)):
            ops = tuple(ops[0])
        if not (ops and all(isinstance(t, torch.Tensor) and t.is_complex() for t in ops)):
            return NotImplemented
        if not self._mine(ops):
            return NotImplemented
        _check_operands("torch.einsum", ops)
        return _mm.einsum(eq, *[t.to(_C32) for t in ops])


def _shallow_tensors(args, kwargs):
    """The tensors among args and kwargs' values, looking one level into lists
    and tuples (cat, stack); None when something is nested deeper (then
    tree_flatten, about 10 us a call, does it)."""
    found = []
    for a in list(args) + list(kwargs.values()):
        if isinstance(a, torch.Tensor):
            found.append(a)
        elif isinstance(a, (list, tuple)):
            for e in a:
                if isinstance(e, torch.Tensor):
                    found.append(e)
                elif isinstance(e, (list, tuple, dict)):
                    return None
        elif isinstance(a, dict):
            return None
    return found


def _map1(f, a):
    """f on a tensor, or on the tensors of a list or tuple (one level)."""
    if isinstance(a, torch.Tensor):
        return f(a)
    if isinstance(a, list):
        return [f(e) for e in a]
    if isinstance(a, tuple):
        return tuple(f(e) for e in a)
    return a


def _into(out, y):
    if out is None:
        return y
    if out.shape != y.shape:
        out.resize_(y.shape)
    return out.copy_(y)


def _bind(sig, args, kwargs):
    a = dict(zip(sig, args))
    a.update(kwargs)
    return a


_STFT_SIG = ("input", "n_fft", "hop_length", "win_length", "window", "center", "pad_mode",
             "normalized", "onesided", "return_complex", "align_to_window")
_CONV_SIG = ("input", "weight", "bias", "stride", "padding", "dilation", "groups")
_CONVT_SIG = ("input", "weight", "bias", "stride", "padding", "output_padding", "groups",
              "dilation")
_ISTFT_SIG = ("input", "n_fft", "hop_length", "win_length", "window", "center", "normalized",
              "onesided", "length", "return_complex")


@functools.cache
def _handlers():
    """func -> handler(mode, func, args, kwargs): the calls that autocast reroutes
    (the Mode's methods, and handlers made by its static factories)."""
    h = {}
    for name in _FFT_COMPLEX_IN + _FFT_REAL_IN:
        h[getattr(torch.fft, name)] = _Mode._fft(name, name in _FFT_REAL_IN)
    for f in (torch.stft, torch.Tensor.stft):
        h[f] = _Mode._stft
    for f in (torch.istft, torch.Tensor.istft):
        h[f] = _Mode._istft
    for name in ("conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d"):
        h[getattr(torch.nn.functional, name)] = _Mode._conv(name, "transpose" in name)
    for f, fname, ours in ((torch.matmul, "torch.matmul", _mm.matmul),
                           (torch.Tensor.matmul, "torch.matmul", _mm.matmul),
                           (torch.Tensor.__matmul__, "torch.matmul", _mm.matmul),
                           (torch.mm, "torch.mm", _mm.matmul),
                           (torch.Tensor.mm, "torch.mm", _mm.matmul),
                           (torch.bmm, "torch.bmm", _mm.bmm),
                           (torch.Tensor.bmm, "torch.bmm", _mm.bmm)):
        h[f] = _Mode._products(fname, ours)
    h[torch.Tensor.__rmatmul__] = _Mode._products("torch.matmul", _mm.matmul, swap=True)
    h[torch.einsum] = _Mode._einsum
    h[torch.polar] = _Mode._polar
    return h


_state = {"depth": 0}


def is_autocast_enabled():
    """Whether a complexext.autocast region is active on this thread's mode stack."""
    return _state["depth"] > 0


class autocast:
    """Complex mixed precision, shaped like torch.autocast: a context
    manager and a decorator. device_type: "cpu", "cuda" or "mps" (only
    tensors of that type are affected); enabled=False makes it a no-op."""

    def __init__(self, device_type, enabled=True):
        if device_type not in ("cpu", "cuda", "mps"):
            raise ValueError(f"complexext.autocast: device_type must be 'cpu', 'cuda' or 'mps', "
                             f"got {device_type!r}")
        if not isinstance(enabled, bool):
            raise TypeError(f"complexext.autocast: enabled must be a bool, got "
                            f"{type(enabled).__name__}")
        self.device_type, self.enabled = device_type, enabled
        self._mode = None

    def __enter__(self):
        if self.enabled:
            self._mode = _Mode(self.device_type)
            self._mode.__enter__()
            _state["depth"] += 1
        return self

    def __exit__(self, *exc):
        if self._mode is not None:
            _state["depth"] -= 1
            mode, self._mode = self._mode, None
            mode.__exit__(*exc)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with autocast(self.device_type, self.enabled):
                return fn(*args, **kwargs)
        return wrapper


class GradScaler(torch.amp.GradScaler):
    """torch.amp.GradScaler that also unscales complex gradients.

    torch's unscale kernel (_amp_foreach_non_finite_check_and_unscale_)
    takes real dtypes only; a complex gradient is unscaled here through its
    real view (torch.view_as_real: the same memory, real and imaginary
    parts as two floats), which checks both parts for inf/NaN. Everything
    else, the growth and backoff of the scale included, is torch's. As with
    torch's, half-precision gradients (float16, complex32: parameters kept
    in half precision) are refused by step(): keep complex64 master weights
    under complexext.autocast (docs/amp.md)."""

    def _unscale_grads_(self, optimizer, inv_scale, found_inf, allow_fp16):
        groups = {}
        with torch.no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    g = p.grad
                    if g is None:
                        continue
                    if g.is_sparse:  # torch's own path handles sparse gradients
                        return super()._unscale_grads_(optimizer, inv_scale, found_inf,
                                                       allow_fp16)
                    if not allow_fp16 and g.dtype in (torch.float16, torch.complex32):
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    if g.is_complex():
                        if g.is_conj():
                            p.grad = g = g.resolve_conj()
                        g = torch.view_as_real(g)
                    groups.setdefault(g.device, {}).setdefault(g.dtype, []).append(g)
            found = {}
            for device, per_dtype in groups.items():
                same = device == found_inf.device
                f = found_inf if same else found_inf.to(device, copy=True)
                s = inv_scale if same else inv_scale.to(device, copy=True)
                for grads in per_dtype.values():
                    torch._amp_foreach_non_finite_check_and_unscale_(grads, f, s)
                found[device] = f
        return found
