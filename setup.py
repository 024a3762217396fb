"""Builds complexext._C: the op schemas and CPU kernels, plus the CUDA
kernels where both a CUDA build of torch and nvcc are present.

Settings (environment):
  COMPLEXEXT_CUDA=1|0   force the CUDA sources on or off (default: auto)
  COMPLEXEXT_SANITIZE=1 ASan + UBSan build of the C++ code (.ci/sanitize)
  COMPLEXEXT_REG_EMU_FEW=1  the CPU emulation of the register kernels at a
                        few lengths only (reg_emulation.h): minutes less to
                        build where that emulation is not what is tested
                        (the sanitized build; benchmarks/device_check.sh)
  MAX_JOBS              parallel compile jobs (torch's cpp_extension)
"""
import glob
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile

from setuptools import setup
from setuptools.command.build_py import build_py

import torch
from torch.utils import cpp_extension

ROOT = os.path.dirname(os.path.abspath(__file__))


def want_cuda():
    flag = os.environ.get("COMPLEXEXT_CUDA", "auto").lower()
    has_torch_cuda = torch.version.cuda is not None
    has_nvcc = cpp_extension.CUDA_HOME is not None and (
        shutil.which("nvcc") is not None
        or os.path.exists(os.path.join(cpp_extension.CUDA_HOME, "bin", "nvcc")))
    if flag in ("1", "on", "true", "yes"):
        if not (has_torch_cuda and has_nvcc):
            sys.exit("complexext: COMPLEXEXT_CUDA=1 but torch has CUDA=%s and nvcc=%s"
                     % (has_torch_cuda, has_nvcc))
        return True
    if flag in ("0", "off", "false", "no"):
        return False
    return has_torch_cuda and has_nvcc


def cxx_std():
    """The C++ standard torch's headers ask for: ATen.h stops with an #error
    below C++20 from torch 2.14 on (below C++17 before)."""
    major, minor = (int(v) for v in torch.__version__.split("+")[0].split(".")[:2])
    return "-std=c++20" if (major, minor) >= (2, 14) else "-std=c++17"


RTC_GEN = os.path.join(ROOT, "build", "rtc_gen")


def write_rtc_sources():
    """Embeds csrc/cuda/reg_kernels.cuh and the core headers it includes
    (quoted includes, followed from file to file) as C++ raw strings in
    build/rtc_gen/complexext_rtc_sources.inc, for the NVRTC programs of
    csrc/rtc/reg_program.cpp: {"name as included", R"...(text)..."}. Each
    file must be included under one spelling (NVRTC matches includes by
    name). Rewritten only when its text changes, so it costs no rebuild."""
    import re
    start = os.path.join(ROOT, "csrc", "cuda", "reg_kernels.cuh")
    order, names, todo = [], {}, [(start, "reg_kernels.cuh")]
    while todo:
        path, name = todo.pop(0)
        path = os.path.normpath(path)
        if path in names:
            if names[path] != name:
                sys.exit("complexext: %s is included as %r and as %r; the NVRTC program "
                         "needs one name" % (path, names[path], name))
            continue
        names[path] = name
        order.append(path)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for inc in re.findall(r'^\s*#\s*include\s+"([^"]+)"', text, re.M):
            todo.append((os.path.join(os.path.dirname(path), inc), inc))
    delim = "cx_rtc_src"
    lines = ["// Written by setup.py (write_rtc_sources) from csrc/: do not edit."]
    for path in order:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if ")" + delim + '"' in text:
            sys.exit("complexext: %s holds the raw-string delimiter %r" % (path, delim))
        lines.append('{"%s", R"%s(%s)%s"},' % (names[path], delim, text, delim))
    out = "\n".join(lines) + "\n"
    dest = os.path.join(RTC_GEN, "complexext_rtc_sources.inc")
    os.makedirs(RTC_GEN, exist_ok=True)
    try:
        with open(dest, encoding="utf-8") as f:
            if f.read() == out:
                return
    except OSError:
        pass
    with open(dest + ".tmp", "w", encoding="utf-8") as f:
        f.write(out)
    os.replace(dest + ".tmp", dest)


def extension():
    rel = lambda pats: sorted(os.path.relpath(p, ROOT) for pat in pats
                              for p in glob.glob(os.path.join(ROOT, pat)))
    # The longest compiles first (the emulated register kernels, minutes
    # each), so the parallel build does not end on one of them alone.
    heavy = ("csrc/emulation/reg_emu_", "csrc/emulation/block_emulation", "csrc/cpu/isa_avx512")
    sources = sorted(rel(["csrc/*.cpp", "csrc/args/*.cpp", "csrc/cpu/*.cpp", "csrc/emulation/*.cpp",
                          "csrc/conv_cuda/*.cpp", "csrc/rtc/*.cpp"]),
                     key=lambda p: (not p.startswith(heavy), p))
    write_rtc_sources()
    # at::parallel_for is a header template: its "#pragma omp parallel" is
    # compiled into our own objects, and without -fopenmp it silently runs
    # the whole range on the calling thread. Linked with -fopenmp, the
    # extension needs libgomp.so.1, which resolves at load time to the copy
    # torch has already loaded (one OpenMP runtime, one thread pool, and
    # torch.set_num_threads applies). Apple's clang has no -fopenmp: there
    # the CPU kernels run on one thread.
    omp = [] if sys.platform == "darwin" else ["-fopenmp"]
    cxx = ["-O3", cxx_std(), "-ffp-contract=fast", "-fno-math-errno", "-Wno-psabi"] + omp
    use_cuda = want_cuda()
    kwargs = dict(extra_compile_args={"cxx": cxx}, extra_link_args=list(omp),
                  include_dirs=[RTC_GEN])
    # COMPLEXEXT_SANITIZE=1 (.ci/sanitize only): AddressSanitizer and
    # UndefinedBehaviorSanitizer, any UB fatal; -O1 for a build twice as fast;
    # -fno-wrapv undoes Python's -fwrapv, under which signed overflow goes unchecked.
    if os.environ.get("COMPLEXEXT_SANITIZE") == "1":
        san = ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined",
               "-fno-omit-frame-pointer", "-g"]
        opt = [f for f in cxx if f != "-O3"] + ["-O1", "-fno-wrapv"]
        kwargs["extra_compile_args"]["cxx"] = opt + san
        kwargs["extra_link_args"] = san + omp
    # the register-kernel emulation at one length of each kind (reg_emulation.h)
    if (os.environ.get("COMPLEXEXT_SANITIZE") == "1"
            or os.environ.get("COMPLEXEXT_REG_EMU_FEW") == "1"):
        kwargs["define_macros"] = [("COMPLEXEXT_REG_EMU_FEW", "1")]
    if use_cuda:
        sources += rel(["csrc/cuda/*.cu", "csrc/cuda/*.cpp"])
        kwargs["extra_compile_args"]["nvcc"] = ["-O3", cxx_std()]
        kwargs.setdefault("define_macros", []).append(("COMPLEXEXT_WITH_CUDA", "1"))
        ext = cpp_extension.CUDAExtension("complexext._C", sources, **kwargs)
    else:
        ext = cpp_extension.CppExtension("complexext._C", sources, **kwargs)
    print("complexext: building backends: cpu%s (torch %s, torch CUDA %s)"
          % (" + cuda" if use_cuda else "", torch.__version__, torch.version.cuda))
    return ext


# libstdc++'s stream and locale code must come from libstdc++.so.6, never
# from a copy in _C. libstdc++ declares those templates `extern template`
# (std::ostream::_M_insert<long>, behind every `os << long`, and the rest of
# basic_ostream, basic_istream, basic_ios, std::locale and its facets) and
# ships them compiled, so g++ and clang with its headers emit no copy into
# our objects. Yet the CUDA build on the first GPU machine held a copy of
# _M_insert<long>, and it crashed there inside TORCH_CHECK's message
# formatting (docs/gpu.md). The second GPU run found where it came from: no
# object defined it; the link did. That machine's g++ (/opt/gcc/bin/g++, a
# wrapper of g++ 13.3) took libstdc++.a (linked statically, or the only
# libstdc++ it finds: -Wl,-Bdynamic -lstdc++ ahead of it did not help), so
# the whole of its stream and locale code went into _C (the same happens
# here with -static-libstdc++, or with only the archive on the search
# path). (0) below names the libstdc++.so.6 that runs, by its path, ahead
# of the driver's archive, which then supplies nothing. When an object holds such a copy, the linker keeps it
# over the shared library's definition, and nothing at load time sends the
# calls back to libstdc++:
#   - With -Wl,-Bsymbolic-functions, which Debian's and Ubuntu's Pythons put
#     in sysconfig's LDSHARED, as that machine's did, the linker binds every
#     call from _C to a function _C defines at link time, with no PLT entry.
#   - Without it the call goes through the PLT, but the dynamic linker looks
#     a reference of _C up in the global scope and then in _C's own scope,
#     where _C comes before libstdc++ (Python loads extensions RTLD_LOCAL):
#     the copy still wins (LD_DEBUG=bindings, on a CPU build given a copy on
#     purpose).
# So: (0) the running libstdc++.so.6 on the link line before the driver's
# own -lstdc++; (1)
# -Wl,-Bno-symbolic after Python's flags cancels -Bsymbolic and
# -Bsymbolic-functions (GNU ld 2.37+, gold, lld; probed, left out where the
# linker lacks it), so that _C is linked alike whatever Python's flags are;
# (2) the build refuses a _C that defines any such symbol, and names the
# symbols, the objects that define them and the compilers
# (benchmarks/check_built_so.py has the list and the reasons for it).
def probe_link_flag(linker, flag):
    """Whether the linker command links a shared object with the flag."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = linker + ["-fPIC", "-x", "c", os.devnull, "-o",
                        os.path.join(tmp, "probe.so"), flag]
        try:
            return subprocess.run(cmd, capture_output=True).returncode == 0
        except OSError:
            return False


def load_checker():
    path = os.path.join(ROOT, "benchmarks", "check_built_so.py")
    if not os.path.exists(path):
        return None
    spec = importlib.util.spec_from_file_location("complexext_check_built_so", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def compiler_version(cmd):
    try:
        out = subprocess.run([cmd, "--version"], capture_output=True, text=True).stdout
        return "%s (%s): %s" % (cmd, shutil.which(cmd), out.splitlines()[0])
    except (OSError, IndexError):
        return "%s: not found" % cmd


class BuildExt(cpp_extension.BuildExtension):
    def finalize_options(self):
        super().finalize_options()
        # setuptools gives each editable install (pip install -e) a fresh
        # temporary build_temp, so every reinstall compiled everything
        # again. The folder of `setup.py build_ext` instead: ninja's log and
        # the objects stay, and a reinstall recompiles only what changed
        # (ninja compares each object's command line and its sources' and
        # headers' times, torch's headers included).
        if getattr(self, "editable_mode", False):
            self.build_temp = os.path.join(
                ROOT, "build", "temp.%s-%s" % (self.plat_name, sys.implementation.cache_tag))

    def build_extensions(self):
        if sys.platform.startswith("linux"):
            # The libstdc++.so.6 this process runs (torch's), by its path,
            # before the driver's own -lstdc++: a g++ that links libstdc++
            # statically, or finds only libstdc++.a (the GPU machine's
            # /opt/gcc/bin/g++ did one or the other: -Wl,-Bdynamic -lstdc++
            # still gave the archive), would put a second copy of the
            # stream code into _C; with the shared library first, the
            # archive has nothing left to resolve.
            checker = load_checker()
            lib = (checker and checker.running_libstdcxx()) or "-l:libstdc++.so.6"
            for ext in self.extensions:
                ext.extra_link_args.append(lib)
            if probe_link_flag(list(self.compiler.linker_so), "-Wl,-Bno-symbolic"):
                for ext in self.extensions:
                    ext.extra_link_args.append("-Wl,-Bno-symbolic")
            else:
                print("complexext: the linker does not take -Wl,-Bno-symbolic; "
                      "linking with Python's flags as they are")
        super().build_extensions()

    def build_extension(self, ext):
        super().build_extension(ext)
        checker = load_checker()
        if checker is None or not (shutil.which("nm") and shutil.which("readelf")):
            print("complexext: nm, readelf or benchmarks/check_built_so.py missing: "
                  "the built _C is not checked for copies of libstdc++ stream code")
            return
        so = self.get_ext_fullpath(ext.name)
        try:
            copies = checker.copies(so)
        except RuntimeError as e:
            print("complexext: the built _C could not be checked (%s)" % e)
            return
        if not copies:
            return
        objects = [o for o in self.compiler.object_filenames(ext.sources,
                                                             output_dir=self.build_temp)
                   if os.path.exists(o)]
        lines = ["complexext: the built _C defines its own copy of libstdc++ stream/locale "
                 "code, which libstdc++ declares extern and ships compiled:"]
        lines += ["    %s %s" % (t, d) for t, m, d in copies]
        lines.append("  defined in:")
        for o in objects:
            found = checker.copies(o)
            if found:
                lines.append("    %s: %s" % (os.path.relpath(o, ROOT),
                                              "; ".join(d for t, m, d in found)))
        lines.append("  C++ compiler: " + compiler_version(os.environ.get("CXX", "c++")))
        if any(src.endswith(".cu") for src in ext.sources):
            lines.append("  nvcc's host compiler: " + compiler_version(
                os.environ.get("CC", "gcc")))
        lines.append("  A call into such a copy crashed a CUDA build on the first GPU machine "
                     "(docs/gpu.md, \"A crash on error messages\").")
        os.remove(so)
        raise SystemExit("\n".join(lines))


class BuildPy(build_py):
    """The Python package, and beside it in complexext/_src/ the kernel
    sources that the Metal backend compiles at run time (csrc/core/*.h,
    csrc/metal/*: complexext/_mps/source.py), so an installed package
    (a wheel, pip install .) finds them without the checkout. An editable
    install reads them from the checkout's csrc/ instead."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        for sub, exts in (("core", (".h",)), ("metal", (".h", ".metal"))):
            src = os.path.join(ROOT, "csrc", sub)
            dst = os.path.join(self.build_lib, "complexext", "_src", sub)
            self.mkpath(dst)
            for name in sorted(os.listdir(src)):
                if name.endswith(exts):
                    self.copy_file(os.path.join(src, name), os.path.join(dst, name))


# COMPLEXEXT_PYTHON_ONLY=1: the Python package and its kernel sources
# without the extension (tests/test_package_wheel.py builds such a wheel in
# seconds to check what a wheel carries).
setup(
    ext_modules=[] if os.environ.get("COMPLEXEXT_PYTHON_ONLY") == "1" else [extension()],
    cmdclass={"build_ext": BuildExt, "build_py": BuildPy},
)
