# CPU only: checks the Metal source text with clang; nothing runs on a device.
"""The Metal library source as assembled for torch.mps.compile_shader:
its assembly, and a syntax and type check with clang (tests/support/metal_check.py)
that passes on it and fails on deliberately broken variants of it."""
import os
import re
from pathlib import Path

import pytest
import torch

from support import metal_check
from complexext._mps import source as _metal_source

needs_clang = pytest.mark.skipif(
    metal_check.clang() is None and not os.environ.get("CI"),
    reason="clang++ not installed (apt-get install clang); CI installs it")


@pytest.fixture(scope="module")
def source():
    return _metal_source.assemble()


def test_assembly_is_self_contained(source):
    includes = re.findall(r"^\s*#\s*include\s*(\S+)", source, re.M)
    # The core's CUDA branch (skipped under Metal) includes <cuda_fp16.h>.
    assert includes == ["<metal_stdlib>", "<cuda_fp16.h>"]
    assert "#pragma once" not in source
    for name in ("cx_block.h", "cx_stockham.h", "cx_butterfly.h", "cx_complex.h", "cx_defs.h",
                 "cx_half.h"):  # the core, once each
        assert source.count(f'#line 1 "csrc/core/{name}"') == 1, name
    for path in sorted((_metal_source.METAL).glob("*.metal")):
        assert f'#line 1 "csrc/metal/{path.name}"' in source, f"{path.name} is not in the library"
    assert source == _metal_source.source()


def test_compile_shader_takes_it_unchanged(source):
    """torch.mps.compile_shader first embeds headers found in torch's include
    dir; nothing of the assembled source may match one."""
    from torch.utils._cpp_embed_headers import _embed_headers
    include = Path(torch.__file__).parent / "include"
    lines = [line + "\n" for line in source.split("\n")]
    assert _embed_headers(lines, [include], set()) == source + "\n"


def test_meta_layout_is_consistent():
    mx = _metal_source.layout("MX_")
    fields = [v for k, v in mx.items() if k not in (
        "COMPLEX", "REAL", "HERMITIAN", "WIN_NONE", "WIN_LOAD", "WIN_STORE", "MAX_PASSES")]
    dims = mx["IN_STRIDES"] - mx["SIZES"]
    assert dims == mx["OUT_STRIDES"] - mx["IN_STRIDES"] == mx["PASSES"] - mx["OUT_STRIDES"] == 8
    scalars = sorted(v for v in fields if v < mx["SIZES"])
    assert scalars == list(range(mx["SIZES"])), "MX_ scalar fields must be 0..MX_SIZES-1, unique"
    ola = _metal_source.layout("OLA_")
    assert sorted(v for k, v in ola.items() if k != "SIZE") == list(range(ola["SIZE"]))


@needs_clang
def test_assembled_source_passes_the_check(source):
    assert metal_check.check(source) == []


# Each replaces one piece of the assembled source by a mistake Metal rejects.
BROKEN = {
    "double variable": ("  const int npasses = (int)M[MX_NPASSES];",
                        "  const int npasses = (int)M[MX_NPASSES];\n  double d = 1.0; (void)d;"),
    "address space mismatch": ("      CX_SHARED cx<float>* tmp = a;",
                               "      CX_GLOBAL cx<float>* tmp = a;"),
    "pointer without address space": (
        "CX_FN float mtl_real(const CX_GLOBAL float* p, cx_i64 i)",
        "CX_FN float mtl_real(const float* p, cx_i64 i)"),
    "misspelt builtin": ("threadgroup_barrier(mem_flags::mem_threadgroup);\n  const int npasses",
                         "threadgroup_barrier(mem_flags::mem_threadgroups);\n  const int npasses"),
    "builtin the shim lacks": ("  float acc = 0.0f;", "  float acc = simd_sum(0.0f);"),
    "goto": ("  if (!active) return;", "  if (!active) goto out;\n out:"),
    "buffer index out of order": ("constant float& scale [[buffer(6)]]",
                                  "constant float& scale [[buffer(7)]]"),
    "unknown attribute": ("uint gid [[thread_position_in_grid]]) {  ",
                          "uint gid [[thread_positon_in_grid]]) {  "),
    "too much threadgroup memory": ("MTL_FFT_KERNEL(cx_fft_hh_l, cx_half_t, cx_half_t, 4096)",
                                    "MTL_FFT_KERNEL(cx_fft_hh_l, cx_half_t, cx_half_t, 8192)"),
    "double in the core": ("typedef float cx_kreal;", "typedef double cx_kreal;"),
    "type error": ("  return cx_load<float>(x, off + k * s);", "  return x[off + k * s];"),
}


@needs_clang
@pytest.mark.parametrize("what", list(BROKEN))
def test_check_rejects_broken_source(source, what):
    old, new = BROKEN[what]
    assert old in source, f"the test's anchor for {what!r} is gone from the source"
    problems = metal_check.check(source.replace(old, new, 1))
    assert problems, f"the check accepted a source with a {what}"
