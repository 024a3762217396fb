"""Reading CUDA binaries for sm_90 without a GPU: finding nvcc, cuobjdump and
nvdisasm (PyPI's nvidia-* wheels first), parsing ptxas -v, the PTX's launch
bounds, cuobjdump's ELF attributes and SASS, and the occupancy rules of
sm_90. Standard library only; cuda_static.py (the checks, the table, the
command line) and cuda_rtc.py build on it.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import sysconfig

# sm_90 (H100/H200) per-SM limits, as CUDA's occupancy calculator
# (cuda_occupancy.h) applies them.
SM90 = {
    "regs_per_sm": 65536,
    "regs_per_block": 65536,
    "reg_alloc_unit": 256,        # registers, allocated per warp
    "sub_partitions": 4,          # the register file is split four ways
    "max_regs_per_thread": 255,
    "max_warps": 64,
    "max_blocks": 32,
    "max_threads_per_block": 1024,
    "smem_per_sm": 228 * 1024,
    "smem_per_block_max": 227 * 1024,
    "smem_reserved_per_block": 1024,
    "smem_alloc_unit": 128,
}

BUTTERFLY_OPS = {"FADD", "FFMA", "FMUL", "DADD", "DFMA", "DMUL"}
DIV64_RE = re.compile(r"(div|rem)_?[su]?64|[su]64_?(div|rem)|__internal.*[su]64", re.I)


class ToolError(Exception):
    pass


# --- finding the tools ------------------------------------------------------------

def find_nvcc(given=None):
    if given:
        return given if os.path.isfile(given) else None
    found = shutil.which("nvcc")
    if found:
        return found
    for d in [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"]:
        if d and os.access(os.path.join(d, "bin", "nvcc"), os.X_OK):
            return os.path.join(d, "bin", "nvcc")
    return None


def _site_dirs():
    dirs = []
    for key in ("purelib", "platlib"):
        p = sysconfig.get_paths().get(key)
        if p:
            dirs.append(p)
    dirs += [p for p in sys.path if p.endswith("site-packages") or p.endswith("dist-packages")]
    try:
        import site
        dirs += site.getsitepackages() + [site.getusersitepackages()]
    except Exception:
        pass
    out = []
    for d in dirs:
        if d and os.path.isdir(d) and d not in out:
            out.append(d)
    return out


def find_binary(name, nvcc=None, given=None):
    """PyPI's nvidia-* wheels first (site-packages/nvidia/<pkg>/bin/<name>),
    then PATH, $CUDA_HOME/bin, nvcc's folder, /usr/local/cuda*/bin."""
    if given:
        return given if os.path.isfile(given) else None
    for d in _site_dirs():
        hits = sorted(glob.glob(os.path.join(d, "nvidia", "*", "bin", name)) +
                      glob.glob(os.path.join(d, "nvidia", "*", "*", "bin", name)))
        hits = [h for h in hits if os.access(h, os.X_OK)]
        if hits:
            return hits[-1]
    found = shutil.which(name)
    if found:
        return found
    cands = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH")]
    if nvcc:
        cands.append(os.path.dirname(os.path.dirname(os.path.realpath(nvcc))))
        cands.append(os.path.dirname(os.path.dirname(nvcc)))
    cands += sorted(glob.glob("/usr/local/cuda*"), reverse=True)
    for d in cands:
        if d and os.access(os.path.join(d, "bin", name), os.X_OK):
            return os.path.join(d, "bin", name)
    return None


def _disasm_env(cuobjdump):
    """The environment for cuobjdump -sass: nvdisasm found beside cuobjdump
    (PyPI puts both in site-packages/nvidia/cu*/bin) or on PATH."""
    env = dict(os.environ)
    here = os.path.dirname(os.path.abspath(cuobjdump))
    found = os.path.join(here, "nvdisasm")
    if not os.path.exists(found):
        for d in _site_dirs():
            hits = sorted(glob.glob(os.path.join(d, "nvidia", "*", "bin", "nvdisasm")))
            if hits:
                found = hits[-1]
                break
    if os.path.exists(found):
        env["PATH"] = os.path.dirname(found) + os.pathsep + env.get("PATH", "")
        env["NVDISASM_PATH"] = os.path.dirname(found)
    return env


def _run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        raise ToolError(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stderr[-4000:]}")
    return p


def demangle(names):
    names = list(names)
    tool = shutil.which("c++filt") or shutil.which("cu++filt")
    if not tool or not names:
        return {n: n for n in names}
    p = subprocess.run([tool], input="\n".join(names) + "\n", capture_output=True, text=True)
    out = p.stdout.splitlines()
    if p.returncode != 0 or len(out) != len(names):
        return {n: n for n in names}
    return dict(zip(names, out))


# --- parsers ----------------------------------------------------------------------

def parse_ptxas(text):
    """ptxas -v (stderr of nvcc): {mangled: {regs, stack, spill_stores,
    spill_loads, smem, barriers}} for the entry functions."""
    out, cur, entries = {}, None, set()
    for line in text.splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            entries.add(m.group(1))
            cur = out.setdefault(m.group(1), {})
            continue
        m = re.search(r"Function properties for (\S+)", line)
        if m:
            cur = out.setdefault(m.group(1), {})
            continue
        if cur is None:
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads",
                      line)
        if m:
            cur["stack"], cur["spill_stores"], cur["spill_loads"] = map(int, m.groups())
        m = re.search(r"Used (\d+) registers", line)
        if m:
            cur["regs"] = int(m.group(1))
            b = re.search(r"used (\d+) barriers", line)
            cur["barriers"] = int(b.group(1)) if b else 0
            s = re.search(r"(\d+) bytes smem", line)
            cur["smem"] = int(s.group(1)) if s else 0
    return {k: v for k, v in out.items() if k in entries}


def parse_ptx(text):
    """PTX: {mangled: {maxntid, reqntid, minnctapersm, maxnreg}} per .entry."""
    out = {}
    for m in re.finditer(r"\.entry\s+([\w$.]+)\s*\(", text):
        head = text[m.end():]
        brace = head.find("{")
        head = head[:brace if brace >= 0 else len(head)]
        d = {}
        for key in ("maxntid", "reqntid"):
            k = re.search(r"\." + key + r"\s+([\d\s,]+)", head)
            if k:
                prod = 1
                for v in k.group(1).replace(",", " ").split():
                    prod *= int(v)
                d[key] = prod
        for key in ("minnctapersm", "maxnreg"):
            k = re.search(r"\." + key + r"\s+(\d+)", head)
            if k:
                d[key] = int(k.group(1))
        out[m.group(1)] = d
    return out


def parse_elf(text):
    """cuobjdump -elf: per kernel its section and EIATTR_MAX_THREADS /
    EIATTR_MAXREG_COUNT; per section the FUNC symbols (value, size, name)."""
    kernels, funcs = {}, {}
    sym_re = re.compile(r"^\s*(0x[0-9a-f]+|\d+)\s+(0x[0-9a-f]+|\d+)\s+(0x[0-9a-f]+|\d+)\s+FUNC\s+"
                        r"(\S+)\s+(\S+)\s+(\S+)\s+(0x[0-9a-f]+|\d+)\s+(\S+)\s*$")
    info = None
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = sym_re.match(line)
        if m:
            value, size, other, ndx, name = (int(m.group(2), 0), int(m.group(3), 0), m.group(6),
                                             int(m.group(7), 0), m.group(8))
            funcs.setdefault(ndx, []).append((value, size, name))
            if other == "ENTRY":
                kernels.setdefault(name, {})["section"] = ndx
            continue
        if line.startswith(".nv.info."):
            info = kernels.setdefault(line[len(".nv.info."):].strip(), {})
            continue
        if line.startswith(".") and not line.startswith(".nv.info."):
            info = None
            continue
        if info is not None and "Attribute:" in line:
            attr = line.split("Attribute:")[1].strip()
            val = next((lines[j] for j in range(i + 1, min(i + 4, len(lines)))
                        if "Value:" in lines[j]), "")
            nums = [int(x, 0) for x in re.findall(r"0x[0-9a-f]+|\b\d+\b",
                                                  val.split("Value:", 1)[-1])]
            if attr == "EIATTR_MAX_THREADS" and nums:
                prod = 1
                for v in nums[:3]:
                    prod *= v
                info["max_threads"] = prod
            elif attr == "EIATTR_MAXREG_COUNT" and nums:
                info["maxreg"] = nums[0]
    return kernels, funcs


INSN_RE = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")


def access_width(op):
    """Bytes of one thread's access for an LDG/STG/LD/ST/LDGSTS opcode."""
    parts = op.split(".")[1:]
    for p in parts:
        if p in ("64",):
            return 8
        if p in ("128",):
            return 16
        if p in ("256",):
            return 32
        if p in ("U16", "S16", "16"):
            return 2
        if p in ("U8", "S8", "8"):
            return 1
    return 4


def parse_sass(text):
    """cuobjdump -sass: {mangled: [(address, opcode, operands)]}."""
    out, cur = {}, None
    for line in text.splitlines():
        m = re.search(r"Function\s*:\s*(\S+)", line)
        if m:
            cur = out.setdefault(m.group(1), [])
            continue
        if cur is None:
            continue
        m = INSN_RE.search(line)
        if not m:
            continue
        body = m.group(2).strip()
        if body.startswith("@"):
            body = body.split(None, 1)[1] if " " in body else ""
        if not body:
            continue
        op, _, rest = body.partition(" ")
        cur.append((int(m.group(1), 16), op, rest))
    return out


def sass_figures(insns, subs):
    """Counts over one kernel's SASS; subs: [(value, size, name)] of the FUNC
    symbols in its section (the called helpers)."""
    by_addr = {v: n for v, _, n in subs}
    f = {"instructions": 0, "ldl_stl": 0, "div64_calls": 0, "g16": 0, "global_loads": 0,
         "load_bytes_before_butterfly": 0, "butterfly_found": False}
    helpers = set()
    for addr, op, rest in insns:
        base = op.split(".")[0]
        if base == "NOP":
            continue
        f["instructions"] += 1
        if base in ("LDL", "STL"):
            f["ldl_stl"] += 1
        elif base in ("LDG", "STG", "LD", "ST", "LDGSTS"):
            w = access_width(op)
            if w <= 2:
                f["g16"] += 1
            if base in ("LDG", "LD", "LDGSTS"):
                f["global_loads"] += 1
                if not f["butterfly_found"]:
                    f["load_bytes_before_butterfly"] += w
        elif base in BUTTERFLY_OPS:
            f["butterfly_found"] = True
        elif base == "CALL":
            target = None
            m = re.search(r"`\(([^)]+)\)", rest)
            if m:
                target = m.group(1)
            else:
                m = re.search(r"0x([0-9a-f]+)", rest)
                if m:
                    target = by_addr.get(int(m.group(1), 16))
            if target and DIV64_RE.search(target):
                f["div64_calls"] += 1
                helpers.add(target)
    f["div64_helpers"] = sorted(helpers)
    return f


# --- occupancy --------------------------------------------------------------------

def _round_up(x, unit):
    return -(-x // unit) * unit


def occupancy(regs, threads, smem_bytes, arch=SM90):
    """Resident blocks and warps per SM of blocks of `threads` threads, and
    what limits them (cuda_occupancy.h's rules for sm_90)."""
    warps_per_block = -(-threads // 32)
    limits = {"warps": arch["max_warps"] // warps_per_block, "blocks": arch["max_blocks"]}
    regs_per_warp = _round_up(max(regs, 1) * 32, arch["reg_alloc_unit"])
    if regs > arch["max_regs_per_thread"] or \
            regs_per_warp * warps_per_block > arch["regs_per_block"]:
        limits["registers"] = 0
    else:
        per_part = arch["regs_per_sm"] // arch["sub_partitions"]
        warps = (per_part // regs_per_warp) * arch["sub_partitions"]
        limits["registers"] = warps // warps_per_block
    if smem_bytes > arch["smem_per_block_max"]:
        limits["shared"] = 0
    else:
        per_block = _round_up(smem_bytes, arch["smem_alloc_unit"]) + arch["smem_reserved_per_block"]
        limits["shared"] = arch["smem_per_sm"] // per_block
    blocks = min(limits.values())
    # On a tie the hardware's caps are named first: registers or shared
    # memory limit only when they bind alone.
    limiter = min(limits, key=lambda k: (limits[k], ["warps", "blocks", "registers",
                                                     "shared"].index(k)))
    return {"blocks_per_sm": blocks, "warps_per_sm": blocks * warps_per_block,
            "threads_per_sm": blocks * warps_per_block * 32, "limiter": limiter,
            "limits": limits}
