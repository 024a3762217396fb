"""Opt-in overflow check for float16/complex32 results.

fp16 holds magnitudes up to 65504. An unnormalised transform of length N can
grow values by up to N, and results that overflow become inf (IEEE). With the
check on, a float16/complex32 result that holds inf or nan while the input
was finite raises OverflowError instead. It is off by default because it
reads the whole output once more (and on a GPU waits for the result). It is
not applied inside torch.compile'd code or under torch.func transforms,
where a data-dependent branch cannot be taken.
"""
import contextlib

import torch

_enabled = False


def set_overflow_check(enabled):
    """Turns the complex32/float16 overflow check on or off (process-wide)."""
    global _enabled
    _enabled = bool(enabled)


def is_overflow_check_enabled():
    """Whether complex32/float16 results are checked for overflow."""
    return _enabled


@contextlib.contextmanager
def overflow_check(enabled=True):
    """Context manager form of set_overflow_check; restores the old state."""
    old = _enabled
    set_overflow_check(enabled)
    try:
        yield
    finally:
        set_overflow_check(old)


def _plain(t):
    return not torch._C._functorch.is_functorch_wrapped_tensor(t)


def check(fname, inp, out):
    """Raises OverflowError if a fp16-based out is non-finite while inp is finite."""
    if not _enabled or out.dtype not in (torch.float16, torch.complex32):
        return
    if torch.compiler.is_compiling() or not (_plain(inp) and _plain(out)):
        return
    if bool(torch.isfinite(out).all()) or not bool(torch.isfinite(inp).all()):
        return
    kind = "complex32" if out.is_complex() else "float16"
    raise OverflowError(
        f"{fname}: the {kind} result overflowed (fp16 holds magnitudes up to 65504) "
        f"although the input was finite; use norm='ortho' or norm='forward', "
        f"or a float32/complex64 input")
