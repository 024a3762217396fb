# CPU only: runs the documentation's examples and checks the reference is complete.
"""The documentation runs and is complete.

Every `>>>` example in the markdown pages runs under doctest (ELLIPSIS and
NORMALIZE_WHITESPACE) and must give the output it shows; docs/api.md names
every public name of complexext and carries every op schema exactly as
registered, so the reference cannot fall behind the code; every relative
link between the pages points to a file that exists.
"""
import doctest
import importlib
import pathlib
import re
import warnings

import pytest
import torch

import complexext

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.glob("*.md")) + [ROOT / "README.md"]
# Pages whose examples are the point of the page: each must hold some.
WITH_EXAMPLES = {"api.md": 100, "porting.md": 15, "index.md": 5}
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE

PUBLIC_MODULES = ["complexext", "complexext.fft", "complexext.backends", "complexext.nn",
                  "complexext.nn.functional", "complexext.nn.init", "complexext.amp"]


@pytest.fixture
def restore_state():
    """The examples change process-wide settings; put them back whatever
    happens. They run on one thread: their tensors are tiny, and on a busy
    machine each parallel region would wait for a second thread."""
    max_size = complexext.backends.plan_cache.max_size
    check = complexext.is_overflow_check_enabled()
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
    complexext.backends.plan_cache.max_size = max_size
    complexext.set_overflow_check(check)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_examples_run(page, restore_state):
    with warnings.catch_warnings():
        # torch warns once that complex32 is experimental; not part of any output
        warnings.filterwarnings("ignore", message="ComplexHalf support is experimental")
        failed, attempted = doctest.testfile(str(page), module_relative=False, optionflags=FLAGS,
                                             verbose=False, report=True, encoding="utf-8")
    assert failed == 0, f"{page.name}: {failed} of {attempted} examples failed (see the output)"
    if page.name in WITH_EXAMPLES:
        assert attempted >= WITH_EXAMPLES[page.name], \
            f"{page.name}: only {attempted} examples ran"


def _public_names():
    """(qualified name, short name) of everything public, found by looking."""
    names = []
    for modname in PUBLIC_MODULES:
        mod = importlib.import_module(modname)
        exported = getattr(mod, "__all__", None)
        if exported is None:
            exported = [n for n in dir(mod) if not n.startswith("_")]
        for n in exported:
            names.append((f"{modname}.{n}", n))
    names += [(f"complexext.backends.plan_cache.{n}", n) for n in ("size", "max_size", "clear")]
    names.append(("complexext.__version__", "__version__"))
    return names


def test_public_names_found():
    names = {q for q, _ in _public_names()}
    # the count the reference promises: 18 transforms, 4 functions, 6 modules, ...
    assert sum(q.startswith("complexext.fft.") for q in names) == 18
    assert {"complexext.stft", "complexext.istft", "complexext.nn.STFT",
            "complexext.nn.ComplexConvTranspose2d", "complexext.nn.init.fans"} <= names


def test_api_names_every_public_name():
    api = (DOCS / "api.md").read_text(encoding="utf-8")
    headings = "\n".join(line for line in api.splitlines() if line.startswith("#"))
    missing = []
    for qualified, short in _public_names():
        # submodules and functions have a heading of their own; the members
        # of plan_cache and nn.init share a table
        if qualified in headings or f"`{qualified}`" in api:
            continue
        if qualified.startswith(("complexext.backends.plan_cache.", "complexext.nn.init.")) \
                and (f"`plan_cache.{short}" in api or f"`{short}(" in api):
            continue
        missing.append(qualified)
    assert not missing, f"docs/api.md does not document: {missing}"


def _schemas():
    return [str(s).split("::", 1)[1] for s in torch._C._jit_get_all_schemas()
            if str(s).startswith("complexext::")]


def test_api_has_every_op_schema():
    api = (DOCS / "api.md").read_text(encoding="utf-8")
    schemas = _schemas()
    assert len(schemas) >= 15
    missing = [s for s in schemas if s not in api]
    assert not missing, f"docs/api.md lacks these schemas (as registered): {missing}"
    # and every op listed there (a schema line: no comment) is registered
    listed = re.findall(r"^(\w+)\([^#\n]*\) -> [^#\n]*$", api, flags=re.M)
    registered = {s.split("(", 1)[0] for s in schemas}
    assert set(listed) <= registered, set(listed) - registered


def test_main_job_options_documented(capsys):
    from complexext.__main__ import parse
    api = (DOCS / "api.md").read_text(encoding="utf-8")
    with pytest.raises(SystemExit):
        parse(["--help"])
    usage = capsys.readouterr().out
    flags = set(re.findall(r"(--[a-z][a-z-]*)", usage)) - {"--help"}
    assert flags, usage
    for flag in flags:
        assert f"python -m complexext {flag}" in api, f"api.md lacks {flag}"
    if "bench" in usage:
        assert "python -m complexext bench" in api


def test_index_links_every_page():
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    for page in DOCS.glob("*.md"):
        if page.name != "index.md":
            assert f"({page.name})" in index, f"docs/index.md does not link {page.name}"


# Pages written by a command rather than by hand: a link to one may precede it.
GENERATED = {"performance.md": "python -m complexext bench"}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_relative_links_resolve(page):
    text = page.read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if "://" in target or (target in GENERATED and page.parent == DOCS):
            continue
        assert (page.parent / target).exists(), f"{page.name} links to missing {target}"
