"""The Python package's layers (docs/design.md, "Layers"): each folder imports
only from the folders below it, read from every module's import statements.

    public (fft, backends, nn, the package)  3
    _frontend                                2
    _autograd                                1
    _ops                                     0
    _mps: only _ops (and itself)
    _tools, __main__: anything; nothing imports them

and each kind of registration lives in one layer: fake kernels and vmap
rules in _ops, Autograd-key kernels in _autograd, MPS kernels in _mps.
"""
import ast
import pathlib

import pytest

PKG = pathlib.Path(__file__).resolve().parent.parent / "complexext"

RANK = {"_ops": 0, "_autograd": 1, "_frontend": 2}
PUBLIC = 3


def module_name(path):
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported(path, source=None):
    """The complexext modules that the module at `path` imports (absolute names)."""
    tree = ast.parse(source if source is not None else path.read_text())
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names if a.name.split(".")[0] == "complexext"]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if mod.split(".")[0] != "complexext":
                continue
            # `from pkg import sub` names a submodule when one exists
            for a in node.names:
                sub = f"{mod}.{a.name}"
                parts = sub.split(".")[1:]
                is_module = (sub == "complexext._C"  # the compiled extension
                             or PKG.joinpath(*parts).with_suffix(".py").exists()
                             or PKG.joinpath(*parts, "__init__.py").exists())
                out.append(sub if is_module else mod)
    return out


def layer(mod):
    """(kind, rank) of an absolute module name inside complexext."""
    parts = mod.split(".")
    top = parts[1] if len(parts) > 1 else ""
    if top in RANK:
        return top, RANK[top]
    if top in ("_mps", "_tools", "__main__", "_C"):
        return top, None
    return "public", PUBLIC


def violations(path, source=None):
    me = module_name(path)
    kind, rank = layer(me)
    bad = []
    for dep in imported(path, source):
        dkind, drank = layer(dep)
        if dkind == "_C":
            ok = kind == "_ops"  # the compiled module: its loader and fast entry
        elif kind == "_tools" or kind == "__main__":
            ok = True
        elif dkind in ("_tools", "__main__"):
            ok = False
        elif kind == "_mps":
            ok = dkind in ("_mps", "_ops")
        elif dkind == "_mps":
            ok = me == "complexext"  # the package registers the Metal kernels
        else:
            ok = drank <= rank
        if not ok:
            bad.append(f"{me} ({kind}) imports {dep} ({dkind})")
    return bad


MODULES = sorted(p for p in PKG.rglob("*.py") if "_src" not in p.parts)


def test_every_folder_has_a_layer():
    folders = {p.parent.name for p in MODULES if p.parent != PKG}
    assert folders == {"_ops", "_autograd", "_frontend", "_mps", "_tools", "nn"}, folders


@pytest.mark.parametrize("path", MODULES, ids=lambda p: module_name(p))
def test_no_import_from_a_layer_above(path):
    assert violations(path) == []


@pytest.mark.parametrize("source, where, expect", [
    ("from .._frontend import fft\n", "_autograd/fft.py", "imports complexext._frontend.fft"),
    ("from .. import fft\n", "_ops/fft.py", "imports complexext.fft"),
    ("from .._autograd.stft import pad\n", "_mps/stft.py", "imports complexext._autograd.stft"),
    ("import complexext._tools.bench\n", "nn/modules.py", "imports complexext._tools.bench"),
    ("from .. import _C\n", "_frontend/fft.py", "imports complexext._C"),
])
def test_the_check_can_fail(source, where, expect):
    bad = violations(PKG / where, source)
    assert len(bad) == 1 and expect in bad[0], bad


def _calls(path, attr):
    tree = ast.parse(path.read_text())
    found = []
    for node in ast.walk(tree):
        f = getattr(node, "func", None)
        if isinstance(f, ast.Attribute) and f.attr == attr:
            found.append(node)
    return found


def test_each_registration_in_its_layer():
    where = {}
    for p in MODULES:
        text = p.read_text()
        for what in ("register_fake", "register_vmap", "register_autograd"):
            if _calls(p, what):
                where.setdefault(what, set()).add(layer(module_name(p))[0])
        if '"Autograd")' in text:
            where.setdefault("Autograd", set()).add(layer(module_name(p))[0])
    assert where["register_fake"] == {"_ops"}
    assert where["register_vmap"] == {"_ops"}
    assert where["Autograd"] == {"_autograd"}
    assert "register_autograd" not in where  # it would drop forward-mode tangents
    # Library(..., "IMPL") objects: the Autograd kernels and the MPS kernels only
    impl = {layer(module_name(p))[0] for p in MODULES for _ in _calls(p, "Library")}
    assert impl == {"_autograd", "_mps"}, impl


# ---- csrc: the backends include the core, args, driver and plan interfaces,
# never each other ----------------------------------------------------------
CSRC = PKG.parent / "csrc"
# folder -> folders of csrc it must not include from
CSRC_FORBIDDEN = {
    "cpu": {"cuda", "conv_cuda", "rtc", "metal", "emulation"},
    "cuda": {"cpu", "metal", "emulation"},
    "conv_cuda": {"cpu", "metal", "emulation"},
    "core": {"cpu", "cuda", "conv_cuda", "rtc", "metal", "emulation", "args", "driver", "plan"},
    "args": {"cpu", "cuda", "conv_cuda", "rtc", "metal", "emulation"},
    "driver": {"cpu", "cuda", "conv_cuda", "rtc", "metal", "emulation"},
    "plan": {"cpu", "cuda", "conv_cuda", "rtc", "metal", "emulation"},
}


def csrc_violations(folder, text):
    """The quoted includes of a file in csrc/<folder> that reach a folder it
    must not include from."""
    bad = []
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("#include \""):
            continue
        target = line.split('"')[1]
        parts = pathlib.PurePosixPath(target).parts
        if len(parts) >= 2 and parts[0] == ".." and parts[1] in CSRC_FORBIDDEN.get(folder, ()):
            bad.append(target)
    return bad


@pytest.mark.parametrize("folder", sorted(CSRC_FORBIDDEN))
def test_csrc_backends_do_not_include_each_other(folder):
    files = [p for p in (CSRC / folder).rglob("*") if p.suffix in {".h", ".cpp", ".cu", ".cuh"}]
    assert files, folder
    bad = {str(p.relative_to(CSRC)): csrc_violations(folder, p.read_text()) for p in files}
    assert not {k: v for k, v in bad.items() if v}


def test_csrc_include_check_can_fail():
    assert csrc_violations("cuda", '#include "../cpu/plan.h"\n') == ["../cpu/plan.h"]
    assert csrc_violations("cpu", '#include "../cuda/ops_driver.h"\n') == ["../cuda/ops_driver.h"]
    assert csrc_violations("cuda", '#include "../plan/host_plans.h"\n') == []


PLAN_FILES = ("plan.cpp", "plan_convolution.cpp", "plan_fill.h")


@pytest.mark.parametrize("name", PLAN_FILES)
def test_plan_tables_call_no_executor(name):
    """Strategy and execution apart from the plan tables: plan.cpp and
    plan_convolution.cpp build the tables (Bluestein's filter spectrum by its
    own double-precision DFT) and include no executor; the executors include
    the plans, not the reverse."""
    text = (CSRC / "cpu" / name).read_text()
    includes = [line.split('"')[1] for line in text.splitlines()
                if line.startswith("#include \"")]
    assert not {"axis.h", "axis_job.h", "four_step.h"} & set(includes), includes
    assert "run_job(" not in text


def test_plan_fill_is_private_to_the_plan_builders():
    """plan_fill.h, the builders' shared pieces, is included by plan.cpp and
    plan_convolution.cpp only."""
    users = sorted(p.name for p in CSRC.rglob("*") if p.is_file() and p.suffix in
                   (".h", ".cpp", ".cu", ".cuh", ".mm") and '"plan_fill.h"' in p.read_text())
    assert users == ["plan.cpp", "plan_convolution.cpp"]
