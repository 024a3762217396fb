# CPU only: inspects the built extension with binutils (nm, readelf).
"""The built complexext._C calls libstdc++'s stream and locale code and
holds no copy of it (benchmarks/check_built_so.py; docs/gpu.md says why: a
copy of std::ostream::_M_insert<long> in a CUDA build crashed on the first
argument error). The checker itself is tested on a copy made on purpose."""
import os
import shutil
import subprocess
import sys

import pytest

import complexext  # noqa: F401  (loads _C)
from complexext import _C

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "benchmarks", "check_built_so.py")
BINUTILS = shutil.which("nm") is not None and shutil.which("readelf") is not None
needs_binutils = pytest.mark.skipif(not BINUTILS, reason="nm or readelf not found (binutils)")


def _checker():
    import importlib.util
    spec = importlib.util.spec_from_file_location("complexext_check_built_so", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _run(*paths):
    return subprocess.run([sys.executable, SCRIPT, *paths], capture_output=True, text=True,
                          timeout=120)


@pytest.mark.parametrize("demangled, flagged", [
    ("std::ostream& std::ostream::_M_insert<long>(long)", True),
    ("std::basic_ostream<char, std::char_traits<char> >& std::operator<< "
     "<std::char_traits<char> >(std::basic_ostream<char, std::char_traits<char> >&, "
     "char const*)", True),
    ("std::basic_ostream<char, std::char_traits<char> >& std::operator<< "
     "<std::char_traits<char> >(std::basic_ostream<char, std::char_traits<char> >&, "
     "char const*) [clone .isra.0]", False),
    ("vtable for std::basic_ostream<char, std::char_traits<char> >", True),
    ("std::num_put<char, std::ostreambuf_iterator<char, std::char_traits<char> > >::id", True),
    ("std::locale::locale()", True),
    ("std::ctype<char>::do_widen(char) const", False),
    ("std::basic_ios<char, std::char_traits<char> >::operator bool() const", True),
    ("std::istream& std::istream::_M_extract<long>(long&)@GLIBCXX_3.4.9", True),
    ("std::ostream& c10::detail::_str<char const*, long>(std::ostream&, "
     "char const* const&, long const&)", False),
    ("std::ostream& c10::operator<< <long>(std::ostream&, c10::ArrayRef<long>)", False),
    ("std::__cxx11::basic_stringbuf<char, std::char_traits<char>, "
     "std::allocator<char> >::~basic_stringbuf()", False),
    ("typeinfo for std::__cxx11::basic_string<char, std::char_traits<char>, "
     "std::allocator<char> >", False),
    ("void std::vector<long, std::allocator<long> >::_M_realloc_insert<long>(long&&)", False),
])
def test_symbol_classes(demangled, flagged):
    assert _checker().is_std_io(demangled) == flagged


@needs_binutils
def test_built_extension_holds_no_stream_or_locale_code():
    r = _run(_C.__file__)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "needs libstdc++.so.6: yes" in r.stdout, r.stdout


@needs_binutils
@pytest.mark.skipif(shutil.which("c++") is None, reason="no C++ compiler (c++) found")
def test_checker_names_a_copy(tmp_path):
    src = tmp_path / "copy.cpp"
    src.write_text("#include <ostream>\n"
                   "template std::ostream& std::ostream::_M_insert<long>(long);\n")
    obj = tmp_path / "copy.o"
    subprocess.run(["c++", "-c", "-fPIC", str(src), "-o", str(obj)], check=True, timeout=120)
    r = _run(str(obj))
    assert r.returncode == 1, r.stdout + r.stderr
    assert "std::ostream::_M_insert<long>(long)" in r.stdout, r.stdout


@needs_binutils
@pytest.mark.skipif(shutil.which("c++") is None, reason="no C++ compiler (c++) found")
def test_checker_passes_inline_members_every_object_holds(tmp_path):
    """g++ -O0 emits ios_base::width and ios_base::precision into the object
    (inline, not shipped by libstdc++); -O2 emits ctype<char>::do_widen."""
    src = tmp_path / "inline.cpp"
    src.write_text("#include <sstream>\n#include <string>\n"
                   "std::string f(long v) { std::ostringstream o; o.width(5); o.precision(3);"
                   " o << o.widen('x') << v; return o.str(); }\n")
    for opt in ("-O0", "-O2"):
        obj = tmp_path / f"inline{opt}.o"
        subprocess.run(["c++", "-c", "-fPIC", opt, str(src), "-o", str(obj)], check=True,
                       timeout=120)
        r = _run(str(obj))
        assert r.returncode == 0, r.stdout + r.stderr


@needs_binutils
@pytest.mark.skipif(shutil.which("g++") is None, reason="no g++ found")
def test_running_libstdcxx_first_keeps_a_static_driver_out(tmp_path):
    """The GPU machine's g++ linked libstdc++.a into _C (its whole stream and
    locale code, from no object of ours). -static-libstdc++ does the same
    here; the running libstdc++.so.6 named ahead of it, as setup.py names
    it, leaves the archive nothing to supply."""
    lib = _checker().running_libstdcxx()
    assert lib is not None and os.path.basename(lib).startswith("libstdc++.so"), lib
    src = tmp_path / "fmt.cpp"
    src.write_text("#include <sstream>\n#include <string>\n"
                   "std::string f(long v) { std::ostringstream o; o << v; return o.str(); }\n")
    obj = tmp_path / "fmt.o"
    subprocess.run(["g++", "-c", "-fPIC", "-O2", str(src), "-o", str(obj)], check=True,
                   timeout=120)
    static = tmp_path / "static.so"
    subprocess.run(["g++", "-shared", str(obj), "-o", str(static), "-static-libstdc++"],
                   check=True, timeout=120)
    r = _run(str(static))
    assert r.returncode == 1 and "_M_insert<long>" in r.stdout, r.stdout + r.stderr
    fixed = tmp_path / "fixed.so"
    subprocess.run(["g++", "-shared", str(obj), "-o", str(fixed), lib, "-static-libstdc++"],
                   check=True, timeout=120)
    r = _run(str(fixed))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "needs libstdc++.so.6: yes" in r.stdout, r.stdout


@needs_binutils
def test_checker_refuses_a_missing_file(tmp_path):
    r = _run(str(tmp_path / "none.so"))
    assert r.returncode == 2 and "no such file" in r.stderr
