"""The Metal library source, assembled from the portable core (csrc/core)
and the Metal kernels (csrc/metal) into the one string that
torch.mps.compile_shader takes.

Every `#include "..."` is inlined here, once per file (the headers'
`#pragma once`), with `#line` markers so that compiler messages name the
original files and lines. What remains is `#include <metal_stdlib>`, which
the Metal compiler provides (and the CI check replaces with a shim).
"""
import functools
import re
from pathlib import Path

# An installed package carries the sources in complexext/_src/ (setup.py,
# BuildPy); a source checkout (and an editable install) has them in csrc/.
_PACKAGE = Path(__file__).resolve().parent.parent
_PACKAGED = _PACKAGE / "_src"
CSRC = _PACKAGED if (_PACKAGED / "metal" / "meta.h").is_file() \
    else _PACKAGE.parent / "csrc"
CORE = CSRC / "core"
METAL = CSRC / "metal"
# The kernel files of the library, in order.
KERNEL_FILES = ("fft.metal", "ola.metal")

HEADER = "#include <metal_stdlib>\nusing namespace metal;\n"
_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"\s*$')
_ONCE = re.compile(r"^\s*#\s*pragma\s+once\s*$")


def _rel(path):
    try:
        return path.relative_to(CSRC.parent).as_posix()
    except ValueError:
        return path.as_posix()


def _inline(path, seen):
    """path's text with its quoted includes inlined (each file once)."""
    out = [f'#line 1 "{_rel(path)}"\n']
    lines = path.read_text().splitlines(keepends=True)
    for i, line in enumerate(lines):
        if _ONCE.match(line):
            out.append("\n")
            continue
        m = _INCLUDE.match(line)
        if m is None:
            out.append(line if line.endswith("\n") else line + "\n")
            continue
        target = (path.parent / m.group(1)).resolve()
        if not target.is_file():
            raise FileNotFoundError(f"complexext Metal source: {_rel(path)}:{i + 1} includes "
                                    f"{m.group(1)}, which does not exist")
        if target not in seen:
            seen.add(target)
            out.append(_inline(target, seen))
        out.append(f'#line {i + 2} "{_rel(path)}"\n')
    return "".join(out)


def _need_sources():
    if not (CORE / "cx_block.h").is_file() or not (METAL / "meta.h").is_file():
        raise FileNotFoundError(
            f"complexext: the kernel sources are not at {CSRC}: the Metal kernels are compiled "
            "at run time from csrc/core and csrc/metal, which an installed package carries in "
            "complexext/_src/ and a source checkout in csrc/; reinstall complexext "
            "(pip install --no-build-isolation .)")


def assemble(files=KERNEL_FILES, metal_dir=None):
    """The library source for the given kernel files of metal_dir."""
    metal_dir = Path(metal_dir) if metal_dir is not None else METAL
    _need_sources()
    seen = set()
    parts = [HEADER]
    for name in files:
        path = (metal_dir / name).resolve()
        seen.add(path)
        parts.append(_inline(path, seen))
    return "".join(parts)


@functools.lru_cache(maxsize=1)
def source():
    """The source of the library, read once."""
    return assemble()


def _defines(path, prefix):
    out = {}
    for m in re.finditer(rf"^#define {prefix}(\w+) (-?\d+)", path.read_text(), re.M):
        out[m.group(1)] = int(m.group(2))
    return out


@functools.lru_cache(maxsize=None)
def layout(prefix):
    """The numbers #defined as prefix* in csrc/metal/meta.h (MX_, OLA_)."""
    _need_sources()
    return _defines(METAL / "meta.h", prefix)
