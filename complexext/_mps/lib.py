"""The compiled Metal library: the assembled source (_metal_source)
compiled once with torch.mps.compile_shader, on first use, and cached.

The compiler is a setting so that the dispatch code can be tested without
a Mac: tests substitute a stand-in that runs the same source on the CPU.
"""
import contextlib
import threading

import torch

from . import source as _metal_source

_lock = threading.Lock()
_library = None
_compiler = None  # None: torch.mps.compile_shader


def _compile(source):
    fn = _compiler
    if fn is None:
        fn = getattr(torch.mps, "compile_shader", None)
        if fn is None:
            raise RuntimeError(f"complexext: the Metal kernels need torch.mps.compile_shader "
                               f"(torch 2.7 or newer); torch {torch.__version__} has none")
    return fn(source)


def library():
    """The library object: lib.<kernel>(*args, threads=..., group_size=...)."""
    global _library
    lib = _library
    if lib is None:
        with _lock:
            if _library is None:
                _library = _compile(_metal_source.source())
            lib = _library
    return lib


def clear():
    """Forget the compiled library (the next use compiles again)."""
    global _library
    with _lock:
        _library = None


@contextlib.contextmanager
def use_compiler(fn):
    """Compile with fn(source) instead of torch.mps.compile_shader, for the
    duration of the block (the cache is cleared on entry and exit)."""
    global _compiler
    previous = _compiler
    clear()
    _compiler = fn
    try:
        yield
    finally:
        _compiler = previous
        clear()
