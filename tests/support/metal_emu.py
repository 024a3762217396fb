"""A stand-in for the library object torch.mps.compile_shader returns: the
same source, exactly as assembled, compiled as host C++ (the shim
tests/support/metal_emu/metal_stdlib) and run on CPU tensors, each threadgroup's
threads as fibres between barriers in a shuffled order
(tests/support/metal_emu/runtime.h).

Arguments are bound the way compile_shader binds them: argument i to
buffer i; a tensor as its data at its storage offset; a Python int as an
int64, a float as a float32, a list of ints as an int64 array; `threads`
defaults to the first tensor's numel. Each argument is checked against the
kernel's declared parameter (a tensor's dtype against the pointer's
element type), so argument packing errors fail here as they would on a Mac.
"""
import ctypes
import hashlib
import shutil
import subprocess
import tempfile
from pathlib import Path

import torch

from support import metal_check

HERE = Path(__file__).resolve().parent
EMU = HERE / "metal_emu"
_DTYPES = {"cx_half_t": torch.float16, "half": torch.float16, "float": torch.float32,
           "cx<float>": torch.float32, "long": torch.int64}
_BUILTIN_ARGS = {"thread_index_in_threadgroup": "tid", "threadgroup_position_in_grid": "grp",
                 "thread_position_in_grid": "gid", "threads_per_threadgroup": "tpg"}
_SPACES = ("__global", "__constant", "constant", "__local", "__private")


def compiler():
    return shutil.which("c++") or shutil.which("g++") or metal_check.clang()


def _plain(t):
    """A parameter type without address spaces or const: 'cx<float>*'."""
    words = [w for w in t.replace("*", " * ").replace("&", " & ").split()
             if w not in _SPACES]
    return " ".join(words)


def _base(t):
    return " ".join(w for w in _plain(t).split() if w not in ("const", "*", "&"))


def _signatures(source, cxx):
    pre = subprocess.run([cxx, "-E", "-P", "-x", "c++", "-D__METAL_VERSION__=310", "-I",
                          str(metal_check.SHIM), "-"], input=source, capture_output=True,
                         text=True, check=True).stdout
    return {k.name: k for k in metal_check.kernels(pre)}


def _harness(kernels):
    out = ['#include "runtime.h"', '#include "library.metal"']
    for k in kernels.values():
        args = []
        for i, p in enumerate(k.params):
            if p.attr != "buffer":
                args.append(_BUILTIN_ARGS[p.attr])
            elif p.type.endswith("&"):
                args.append(f"*({_base(p.type)}*)a[{i}]")
            else:
                args.append(f"({_plain(p.type)})a[{i}]")
        out.append(f'extern "C" int emu_{k.name}(void** a, long threads, long group, '
                   f"unsigned long long seed) {{\n  return emu::dispatch(threads, group, seed, "
                   f"[&](unsigned tid, unsigned grp, unsigned gid, unsigned tpg) {{\n"
                   f"    (void)tid; (void)grp; (void)gid; (void)tpg;\n"
                   f"    {k.name}({', '.join(args)});\n  }});\n}}")
    return "\n".join(out) + "\n"


def build(source):
    """(ctypes library, kernel signatures) for source, cached on disk."""
    cxx = compiler()
    kernels = _signatures(source, cxx)
    harness = _harness(kernels)
    key = hashlib.sha256((source + harness + (EMU / "runtime.h").read_text()
                          + (EMU / "metal_stdlib").read_text()).encode()).hexdigest()[:16]
    cache = Path(tempfile.gettempdir()) / "complexext_metal_emu"
    cache.mkdir(exist_ok=True)
    so = cache / f"{key}.so"
    if not so.exists():
        with tempfile.TemporaryDirectory() as d:
            (Path(d) / "library.metal").write_text(source)
            (Path(d) / "harness.cpp").write_text(harness)
            tmp = Path(d) / "lib.so"
            res = subprocess.run([cxx, "-std=c++17", "-O1", "-shared", "-fPIC", "-w", "-I", str(EMU),
                                  "-I", d, str(Path(d) / "harness.cpp"), "-o", str(tmp)],
                                 capture_output=True, text=True)
            if res.returncode:
                raise RuntimeError("metal_emu: the source does not compile as host C++:\n"
                                   + res.stderr[-4000:])
            shutil.move(str(tmp), so)
    return ctypes.CDLL(str(so)), kernels


class EmulatedKernel:
    max_threads_per_threadgroup = 1024
    thread_execution_width = 32

    def __init__(self, lib, sig, owner):
        self._fn = getattr(lib, f"emu_{sig.name}")
        self._fn.restype = ctypes.c_int
        self._fn.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_long, ctypes.c_long,
                             ctypes.c_ulonglong]
        self.sig = sig
        self._owner = owner

    def _bind(self, i, p, arg, keep):
        where = f"{self.sig.name}: argument {i} ({p.name}: {p.type})"
        if isinstance(arg, torch.Tensor):
            assert p.type.endswith("*"), f"{where} is not a buffer pointer, got a tensor"
            assert arg.device.type == "cpu", f"{where}: the emulator runs on CPU tensors"
            want = _DTYPES[_base(p.type)]
            assert arg.dtype == want, f"{where}: expected {want}, got {arg.dtype}"
            keep.append(arg)
            return arg.data_ptr()
        if isinstance(arg, (list, tuple)):
            assert _base(p.type) == "long" and p.type.endswith("*"), f"{where}: got a list"
            assert all(isinstance(v, int) for v in arg), f"{where}: list of non-ints"
            buf = (ctypes.c_int64 * len(arg))(*arg)
        elif isinstance(arg, bool) or not isinstance(arg, (int, float)):
            raise AssertionError(f"{where}: unsupported argument {type(arg).__name__}")
        elif isinstance(arg, int):
            assert _base(p.type) == "long", f"{where}: a Python int binds an int64"
            buf = ctypes.c_int64(arg)
        else:
            assert _base(p.type) == "float", f"{where}: a Python float binds a float32"
            buf = ctypes.c_float(arg)
        keep.append(buf)
        return ctypes.cast(ctypes.pointer(buf), ctypes.c_void_p).value

    def __call__(self, *args, threads=None, group_size=None, arg_casts=None):
        assert arg_casts is None, "arg_casts is not emulated"
        buffers = [p for p in self.sig.params if p.attr == "buffer"]
        assert len(args) == len(buffers), (
            f"{self.sig.name}: {len(args)} arguments for {len(buffers)} buffers")
        keep = []
        ptrs = (ctypes.c_void_p * len(args))(
            *[self._bind(i, p, a, keep) for i, (p, a) in enumerate(zip(buffers, args))])
        if threads is None:
            threads = next(a.numel() for a in args if isinstance(a, torch.Tensor))
        threads = threads[0] if isinstance(threads, (list, tuple)) else threads
        group = group_size[0] if isinstance(group_size, (list, tuple)) else group_size
        group = group or min(threads, self.max_threads_per_threadgroup)
        assert group <= self.max_threads_per_threadgroup, "Threadgroup size exceeds the limit"
        self._owner.calls.append((self.sig.name, threads, group))
        if threads == 0:
            return
        rc = self._fn(ptrs, threads, group, self._owner.seed)
        if rc:
            raise RuntimeError(f"{self.sig.name}: divergent barriers (some threads of a group "
                               f"ended while others waited at a barrier)")


class EmulatedLibrary:
    """lib.<kernel>(*args, threads=..., group_size=...) as with compile_shader."""

    def __init__(self, source, seed=0):
        self._lib, self._sigs = build(source)
        self.seed = seed
        self.calls = []

    def __getattr__(self, name):
        if name.startswith("_") or name not in self._sigs:
            raise AttributeError(f"no kernel named {name}")
        return EmulatedKernel(self._lib, self._sigs[name], self)

    def __dir__(self):
        return sorted(self._sigs)
