"""Checks that a built complexext._C takes its C++ stream and locale code from libstdc++.

    python benchmarks/check_built_so.py [PATH ...]

PATH: a built _C (or any ELF object: the build checks its .o files with the
same code). Default: complexext/_C*.so of this checkout, else of the
installed complexext (found without importing it, so without torch).

Fails (exit 1, naming each symbol) where a file defines a symbol of
libstdc++'s stream and locale classes: std::basic_ostream (std::ostream),
basic_istream, basic_iostream, basic_ios, ios_base, basic_streambuf, the
file streams, std::locale and its facets (num_put, num_get, numpunct,
codecvt), use_facet/has_facet, the stream inserters and manipulators.
libstdc++ declares all of these `extern template` and ships them compiled,
so no object of ours should hold a copy. A copy in _C is what a CUDA build
of _C held on the first GPU machine, where it crashed inside
`std::ostream::_M_insert<long>` while formatting an argument error
(docs/gpu.md): that Python links extensions with -Wl,-Bsymbolic-functions,
which binds every call to the copy in _C at link time. Not counted:
std::string and the string streams (C++20 code instantiates std::string
itself by libstdc++'s design, and every g++ build holds the inline
destructor of basic_stringbuf), std::ctype<char> (an explicit
specialization whose inline members, such as do_widen, g++ -O2 emits into
any object that calls widen()), and the compiler's local clones
("[clone .isra.0]"), which are inlined code.

readelf adds, for a shared object: whether it needs libstdc++.so.6; the
stream and locale functions it imports (undefined, with their GLIBCXX
version) and the dynamic relocations through which they are called (a
call bound inside the file at link time has none); for a copy it defines,
whether any call to it goes through a relocation.

Where the libstdc++.so.6 that the file loads (ldd), or else the one the
C++ compiler links, is found, only symbols that it exports count: an
inline member that libstdc++ does not ship is every object's own.

Exit: 0 clean, 1 when a file defines such symbols, 2 when nm or readelf is
missing or no file was found.
"""
import glob
import importlib.util
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# The class or function a symbol belongs to, as it starts after "std::"
# (c++filt writes basic_ostream<char> as std::ostream, and so on).
STD_IO = re.compile(
    r"^std::(?:__cxx11::)?(?:"
    r"basic_(?:i|o|io)?stream|w?(?:i|o|io)stream|basic_ios|w?ios|ios_base"
    r"|basic_streambuf|w?streambuf|basic_(?:i|o)?fstream|w?(?:i|o)?fstream|basic_filebuf|w?filebuf"
    r"|locale|num_put|num_get|numpunct(?:_byname)?|codecvt(?:_byname)?"
    r"|use_facet|has_facet|__check_facet|__use_cache|__ostream_insert|__ostream_write"
    r"|__ostream_fill|__convert_from_v|__int_to_char|__add_grouping|__pad"
    r"|endl|ends|flush|ws|operatorSHL|operatorSHR"
    r")(?:::|$)")

# What c++filt puts before the entity of a special symbol.
SPECIAL = ("construction vtable for ", "vtable for ", "VTT for ", "typeinfo name for ",
           "typeinfo for ", "guard variable for ", "non-virtual thunk to ",
           "virtual thunk to ", "covariant return thunk to ", "TLS init function for ",
           "TLS wrapper function for ")
OPERATORS = re.compile(r"operator\s*(<<=|>>=|<=>|<<|>>|<=|>=|->\*|->|<|>|\(\)|\[\])")
OP_NAMES = {"<<": "SHL", ">>": "SHR"}


def entity(demangled):
    """The qualified name a demangled symbol defines, without template and
    function arguments, return type or qualifiers:
    'std::ostream& std::ostream::_M_insert<long>(long)' -> 'std::ostream::_M_insert'.
    A clone of a function ('... [clone .isra.0]') gives None."""
    s = demangled.split("@", 1)[0].strip()
    if "[clone " in s:
        return None
    for p in SPECIAL:
        if s.startswith(p):
            s = s[len(p):]
            break
    s = OPERATORS.sub(lambda m: "operator" + OP_NAMES.get(m.group(1), "OP"), s)
    s = re.sub(r"operator\s+(?=[A-Za-z_])", "operatorCONV_", s)
    depth, out = 0, []
    for c in s:
        if c in "<(":
            depth += 1
        elif c in ">)":
            depth = max(depth - 1, 0)
        elif depth == 0:
            out.append(c)
    words = "".join(out).replace("&", " ").replace("*", " ").split()
    while words and words[-1] in ("const", "volatile", "noexcept"):
        words.pop()
    return words[-1] if words else ""


def is_std_io(demangled):
    name = entity(demangled)
    return bool(name) and STD_IO.match(name) is not None


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0 and "no symbols" not in r.stderr:
        raise RuntimeError(f"{' '.join(cmd)}: {r.stderr.strip()}")
    return r.stdout


NM_LINE = re.compile(r"^\s*[0-9a-fA-F]*\s+(\S)\s(.*)$")


def nm_lines(path, *flags):
    """(type, mangled, demangled) of each symbol nm lists, in symbol-table
    order (-p), so that the mangled and demangled listings pair up."""
    rows = []
    for m, d in zip(run(["nm", "-p", *flags, path]).splitlines(),
                    run(["nm", "-p", "-C", *flags, path]).splitlines()):
        mm, dm = NM_LINE.match(m), NM_LINE.match(d)
        if mm and dm:
            rows.append((mm.group(1), mm.group(2), dm.group(2)))
    return rows


def libstdcxx(path):
    """The libstdc++.so.6 that a shared object loads (ldd), else the one the
    C++ compiler links (c++ -print-file-name); None when neither is found."""
    try:
        out = subprocess.run(["ldd", path], capture_output=True, text=True).stdout
        m = re.search(r"libstdc\+\+\.so\.6 => (\S+)", out)
        if m and os.path.isfile(m.group(1)):
            return m.group(1)
    except OSError:
        pass
    for cxx in (os.environ.get("CXX", "c++"), "g++"):
        try:
            out = subprocess.run([cxx, "-print-file-name=libstdc++.so.6"],
                                 capture_output=True, text=True).stdout.strip()
        except OSError:
            continue
        if os.path.isabs(out) and os.path.isfile(out):
            return out
    return None


def running_libstdcxx():
    """The path of the libstdc++.so.6 mapped into this process (torch loads
    it; setup.py names it on _C's link line, ahead of the compiler driver's
    own -lstdc++, so that a driver that links libstdc++.a, or finds only
    it, adds no copy of the stream code), or None."""
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split()[-1]
                if os.path.basename(path).startswith("libstdc++.so") and os.path.isfile(path):
                    return path
    except OSError:
        pass
    return None


_EXPORTS = {}


def exports(lib):
    """The mangled names libstdc++.so.6 defines in its dynamic symbol table."""
    if lib not in _EXPORTS:
        _EXPORTS[lib] = {m.split("@", 1)[0] for t, m, d in nm_lines(lib, "-D", "--defined-only")}
    return _EXPORTS[lib]


def copies(path, lib="find"):
    """[(nm type, mangled, demangled)] of the stream and locale symbols the
    file defines, from its symbol table and, for a stripped file, its
    dynamic one; where libstdc++.so.6 is found (lib="find", or its path),
    only those it exports too: an inline member that libstdc++ does not
    ship (ios_base::width at -O0, say) is every object's own by design."""
    if lib == "find":
        lib = libstdcxx(path)
    shipped = exports(lib) if lib else None
    found = {}
    for flags in (["--defined-only"], ["-D", "--defined-only"]):
        for t, m, d in nm_lines(path, *flags):
            name = m.split("@", 1)[0]
            if is_std_io(d) and (shipped is None or name in shipped):
                found.setdefault(name, (t, m, d))
    return sorted(found.values(), key=lambda r: r[2])


def dynamic_report(path, defined):
    """Lines on how a shared object reaches libstdc++ (readelf)."""
    lines = []
    dyn = run(["readelf", "-dW", path])
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dyn)
    lines.append("needs libstdc++.so.6: " + ("yes" if "libstdc++.so.6" in needed else "NO"))
    if re.search(r"\(FLAGS\).*\bSYMBOLIC\b", dyn):
        lines.append("linked with -Bsymbolic (DT_FLAGS SYMBOLIC)")
    relocs = run(["readelf", "-rW", path])
    rel_syms = {}
    for line in relocs.splitlines():
        f = line.split()
        if len(f) >= 5 and f[2].startswith("R_"):
            rel_syms.setdefault(f[4].split("@", 1)[0], []).append(f[2])
    imported = [(m, d) for t, m, d in nm_lines(path, "-D", "--undefined-only") if is_std_io(d)]
    unversioned = [d for m, d in imported if "@" not in m]
    through = sum(len(rel_syms.get(m.split("@", 1)[0], [])) for m, _ in imported)
    lines.append(f"imports {len(imported)} stream/locale symbols from a shared library, "
                 f"called through {through} dynamic relocations")
    for d in unversioned:
        lines.append(f"  imported without a version (not bound to libstdc++ at link time): {d}")
    for t, m, d in defined:
        n = len(rel_syms.get(m.split("@", 1)[0], []))
        how = (f"{n} dynamic relocation(s): bound at load time to the first definition "
               "in lookup order (this copy, unless libstdc++ is loaded globally)" if n else
               "no dynamic relocation: calls bound to this copy at link time")
        lines.append(f"  {d}: {how}")
    return lines


def default_paths():
    paths = glob.glob(os.path.join(ROOT, "complexext", "_C*.so"))
    if not paths:
        spec = importlib.util.find_spec("complexext")
        if spec is not None and spec.submodule_search_locations:
            for loc in spec.submodule_search_locations:
                paths += glob.glob(os.path.join(loc, "_C*.so"))
    return sorted(paths)


def check(path, out=sys.stdout):
    """Prints the report of one file; True when it defines no such symbol."""
    lib = libstdcxx(path)
    defined = copies(path, lib)
    print(f"{path}:", file=out)
    print("  against the exports of " + (lib or "no libstdc++.so.6 (not found): "
                                          "every stream/locale definition counts"), file=out)
    if defined:
        print(f"  FAIL: defines {len(defined)} libstdc++ stream/locale symbol(s):", file=out)
        for t, m, d in defined:
            print(f"    {t} {d}", file=out)
    else:
        print("  ok: defines no libstdc++ stream/locale symbol", file=out)
    if run(["readelf", "-hW", path]).find("DYN (Shared object file)") >= 0:
        for line in dynamic_report(path, defined):
            print("  " + line, file=out)
    return not defined


def main(argv):
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    missing = [t for t in ("nm", "readelf") if shutil.which(t) is None]
    if missing:
        print(f"check_built_so: {' and '.join(missing)} not found (binutils)", file=sys.stderr)
        return 2
    paths = argv or default_paths()
    if not paths:
        print("check_built_so: no complexext/_C*.so found; build it or pass a path",
              file=sys.stderr)
        return 2
    for p in paths:
        if not os.path.isfile(p):
            print(f"check_built_so: {p}: no such file", file=sys.stderr)
            return 2
    ok = [check(p) for p in paths]
    return 0 if all(ok) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
