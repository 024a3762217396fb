"""Syntax and type check of Metal source without a Metal compiler.

clang compiles the source, exactly as given, as C++ for OpenCL configured
like Metal (tests/support/metal_shim/metal_stdlib says how: address spaces, no
double, no generic address space for struct-free pointers, poisoned
keywords, only the declared builtins). On top of clang's own errors:

- every pointer or reference the source declares carries an address space
  (Metal requires one; OpenCL would make it generic);
- each kernel's threadgroup memory fits Apple GPUs' 32 KB;
- kernel signatures follow what torch.mps.compile_shader binds: argument i
  is [[buffer(i)]] (a device or constant pointer, or a constant
  reference), then thread-position builtins of type uint; no other
  attribute appears anywhere.

Run as a script to check the library source complexext assembles.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

SHIM = Path(__file__).resolve().parent / "metal_shim"
FLAGS = ["-x", "clcpp", "-cl-std=clc++2021", "-cl-no-stdinc",
         "-Xclang", "-cl-ext=-__opencl_c_fp64,-cl_khr_fp64", "-D__METAL_VERSION__=310",
         "-I", str(SHIM), "-Wall", "-Wextra", "-Wno-unknown-attributes", "-ferror-limit=50"]
# Metal takes unsuffixed floating literals as float; OpenCL warns.
_BENIGN = re.compile(r"double precision constant requires cl_khr_fp64")
_DIAG = re.compile(r"^(?P<loc>[^\s:]+:\d+:\d+): (?P<kind>error|warning): (?P<msg>.*)$")
BUILTINS = {"thread_index_in_threadgroup", "threadgroup_position_in_grid",
            "thread_position_in_grid", "threads_per_threadgroup", "threadgroups_per_grid",
            "threads_per_grid"}
THREADGROUP_BYTES = 32768
_SIZEOF = {"float": 4, "half": 2, "int": 4, "uint": 4, "long": 8, "cx<float>": 8, "cx<half>": 4}


def clang():
    """The clang++ to use, or None."""
    return shutil.which(os.environ.get("CLANGXX", "clang++"))


@dataclass
class Param:
    name: str
    type: str        # as written after preprocessing, address space included
    attr: str        # "buffer" or a builtin name
    index: int = -1  # the buffer index


@dataclass
class Kernel:
    name: str
    params: list


def _run(args, source):
    if clang() is None:
        raise RuntimeError("metal_check: clang++ not found (apt-get install clang)")
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "library.metal"
        path.write_text(source)
        return subprocess.run([clang()] + FLAGS + args + [str(path)], capture_output=True,
                              text=True)


def _split_params(text):
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += ch in "([<"
        depth -= ch in ")]>"
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return out + ([cur.strip()] if cur.strip() else [])


_PARAM = re.compile(r"^(?P<type>.+?)\s*\b(?P<name>\w+)\s*\[\[\s*(?P<attr>\w+)\s*"
                    r"(?:\(\s*(?P<arg>\d+)\s*\))?\s*\]\]$", re.S)


def kernels(preprocessed):
    """The kernel signatures of preprocessed source."""
    found = []
    for m in re.finditer(r"\bkernel\s+void\s+(\w+)\s*\(", preprocessed):
        depth, i = 1, m.end()
        while depth:
            depth += {"(": 1, ")": -1}.get(preprocessed[i], 0)
            i += 1
        params = []
        for p in _split_params(preprocessed[m.end():i - 1]):
            pm = _PARAM.match(" ".join(p.split()))
            if pm is None:
                params.append(Param(p, p, "?"))
                continue
            idx = int(pm["arg"]) if pm["arg"] is not None else -1
            params.append(Param(pm["name"], pm["type"], pm["attr"], idx))
        found.append(Kernel(m.group(1), params))
    return found


def _signature_problems(preprocessed):
    problems = []
    ks = kernels(preprocessed)
    attrs = len(re.findall(r"\[\[", preprocessed))
    if attrs != sum(len(k.params) for k in ks):
        problems.append("attributes outside kernel parameter lists")
    for k in ks:
        buffers = [p for p in k.params if p.attr == "buffer"]
        for i, p in enumerate(k.params):
            where = f"kernel {k.name}, parameter {i} ({p.name})"
            if p.attr == "buffer":
                if p.index != i:
                    problems.append(f"{where}: [[buffer({p.index})]] but compile_shader binds "
                                    f"argument {i} to buffer {i}")
                const = re.search(r"\b(__)?constant\b", p.type) is not None
                ok_ptr = p.type.endswith("*") and ("__global" in p.type or const)
                ok_ref = p.type.endswith("&") and const
                if not (ok_ptr or ok_ref):
                    problems.append(f"{where}: type {p.type!r} is not a device/constant pointer "
                                    f"or a constant reference")
            elif p.attr in BUILTINS:
                if i < len(buffers) or p.type != "uint":
                    problems.append(f"{where}: builtin [[{p.attr}]] must be a uint after the "
                                    f"buffers")
            else:
                problems.append(f"{where}: unknown attribute [[{p.attr}]]")
    return problems


def _walk(node, implicit=False):
    implicit = implicit or node.get("isImplicit", False)
    yield node, implicit
    for child in node.get("inner", ()):
        yield from _walk(child, implicit)


def _ast_problems(ast):
    problems = []
    for node, implicit in _walk(ast):
        kind = node.get("kind")
        qual = node.get("type", {}).get("qualType", "")
        if kind in ("ParmVarDecl", "VarDecl", "FieldDecl") and not implicit:
            if "__generic" in qual:
                problems.append(f"{node.get('name')}: pointer or reference without an address "
                                f"space ({qual})")
        if kind == "FunctionDecl" and not implicit:
            used = 0
            for sub, _ in _walk(node):
                t = sub.get("type", {}).get("qualType", "")
                m = re.match(r"__local (.+?) ?\[(\d+)\]$", t)
                if sub.get("kind") == "VarDecl" and m:
                    used += _SIZEOF.get(m.group(1), 1 << 20) * int(m.group(2))
            if used > THREADGROUP_BYTES:
                problems.append(f"{node.get('name')}: {used} bytes of threadgroup memory, more "
                                f"than {THREADGROUP_BYTES}")
    return problems


def check(source):
    """Problems found in source (empty when it passes)."""
    res = _run(["-fsyntax-only"], source)
    problems = []
    for line in res.stderr.splitlines():
        m = _DIAG.match(line)
        if m and not _BENIGN.search(m["msg"]):
            problems.append(f"{m['loc']}: {m['kind']}: {m['msg']}")
    if res.returncode != 0 and not problems:
        problems.append(res.stderr.strip() or f"clang exited with {res.returncode}")
    if problems:
        return problems
    pre = _run(["-E", "-P"], source)
    problems += _signature_problems(pre.stdout)
    ast = _run(["-fsyntax-only", "-Xclang", "-ast-dump=json"], source)
    problems += _ast_problems(json.loads(ast.stdout))
    return problems


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the checkout
    from complexext._mps import source as _metal_source
    if clang() is None:
        sys.exit("metal_check: clang++ not found (apt-get install clang)")
    found = check(_metal_source.source())
    print("\n".join(found) if found else "metal_check: the assembled Metal source passes")
    sys.exit(1 if found else 0)
