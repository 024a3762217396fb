"""What an installed package carries: the kernel sources that the Metal
backend compiles at run time (csrc/core, csrc/metal) ship inside the wheel
as complexext/_src/, and the Metal source assembled from an unpacked wheel,
away from the checkout, is the checkout's own.

The wheel is built with COMPLEXEXT_PYTHON_ONLY=1 (setup.py: the package
without the extension, seconds instead of minutes) from a copy of the files
a build reads, so the checkout's build/ folder is not touched.
"""
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _strip_lines(text):
    return re.sub(r'^#line \d+ "[^"]*"\n', "", text, flags=re.M)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    work = tmp_path_factory.mktemp("pkg")
    src = work / "src"
    src.mkdir()
    for name in ("setup.py", "pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    shutil.copytree(ROOT / "complexext", src / "complexext",
                    ignore=shutil.ignore_patterns("__pycache__", "*.so", "_src"))
    for sub in ("core", "metal"):
        shutil.copytree(ROOT / "csrc" / sub, src / "csrc" / sub)
    out = work / "dist"
    env = dict(os.environ, COMPLEXEXT_PYTHON_ONLY="1")
    p = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-build-isolation",
                        "--no-deps", "--no-index", "-q", "-w", str(out), str(src)],
                       env=env, capture_output=True, text=True)
    if p.returncode != 0 and "No module named pip" in p.stderr:
        pytest.skip("pip is not available")
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    wheels = list(out.glob("complexext-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def test_the_wheel_carries_the_kernel_sources(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    want = {f"complexext/_src/core/{p.name}" for p in (ROOT / "csrc" / "core").glob("*.h")}
    want |= {f"complexext/_src/metal/{p.name}" for p in (ROOT / "csrc" / "metal").iterdir()
             if p.suffix in (".h", ".metal")}
    assert "complexext/_src/metal/fft.metal" in want and "complexext/_src/core/cx_block.h" in want
    missing = sorted(want - names)
    assert not missing, f"not in {wheel.name}: {missing}"
    assert "complexext/_mps/source.py" in names


def test_the_metal_source_assembles_from_an_unpacked_wheel(wheel, tmp_path):
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    path = site / "complexext" / "_mps" / "source.py"
    spec = importlib.util.spec_from_file_location("packaged_metal_source", path)
    packaged = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(packaged)
    assert packaged.CSRC == (site / "complexext" / "_src").resolve()
    text = packaged.assemble()
    assert '#line 1 "_src/metal/fft.metal"' in text
    assert '#line 1 "_src/core/cx_block.h"' in text

    spec = importlib.util.spec_from_file_location(
        "checkout_metal_source", ROOT / "complexext" / "_mps" / "source.py")
    checkout = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(checkout)
    assert checkout.CSRC == ROOT / "csrc"
    assert _strip_lines(text) == _strip_lines(checkout.assemble())
    assert packaged.layout("MX_") == checkout.layout("MX_") and packaged.layout("MX_")
