# CPU only: reads the built extension's machine code; runs nothing.
"""Speed proxies of the CPU kernels, read from the built extension's
disassembly (objdump), so that a change that makes the compiler copy the
butterflies' values through general registers or the stack fails here, on
any machine, whatever its instruction set (docs/design.md, "What each
instruction set's code must avoid").

For each function below: at most a few 64-bit lane inserts (`vpinsrq`,
the mark of a cx<V> pair reassembled from general registers:
pass_fixed<16> on AVX2 had 64 of them, pass16 has none), and at most a
budget of stack references, about 1.25 x what GCC 12 gives today (pass16 on
AVX2 vectors: 321 of 751 instructions; the copies had made it 912 of
1992)."""
import platform
import re
import shutil
import subprocess

import pytest

import complexext

OBJDUMP = shutil.which("objdump")
pytestmark = [pytest.mark.skipif(OBJDUMP is None, reason="no objdump (binutils)"),
              pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"),
                                 reason="the AVX2 / AVX-512 kernels are x86-64 only")]

# (demangled name prefix, stack references at most, vpinsrq at most)
BUDGET = [
    ("void cx_avx2::pass16<float __vector(8), float>(", 400, 0),
    ("void cx_avx2::pass16<cx_avx2::rv, float>(", 730, 8),
    ("void cx_avx2::pass_fixed<8, float __vector(8), float>(", 80, 0),
    ("void cx_avx2::pass_halves<8, float>(", 150, 0),
    ("void cx_avx2::pass_odd_fixed<13, float __vector(8), float>(", 230, 0),
    ("cx_avx2::row256_fft(", 860, 0),
    # rowm_run, its c2c and r2c instantiations: 1901 and 1946 today (one
    # function, 2350, before they were two); 2705 when its first pass ran
    # on whole rv vectors (1.2 x slower), which this budget refuses
    ("void cx_avx2::rowm_run<unsigned short, unsigned short, true>(", 2550, 0),
    ("void cx_avx2::rowm_run<unsigned short, unsigned short, false>(", 2550, 0),
    ("void cx_avx512::pass16<float __vector(16), float>(", 200, 0),
]


@pytest.fixture(scope="module")
def functions():
    so = complexext._C.__file__
    out = subprocess.run([OBJDUMP, "-d", "-C", "--no-show-raw-insn", so], capture_output=True,
                         text=True, check=True).stdout
    funcs, cur = {}, None
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <(.*)>:$", line)
        if m:
            cur = funcs.setdefault(m.group(1), [])
        elif cur is not None and "\t" in line:
            cur.append(line)
    return funcs


def data_inserts(body):
    """The vpinsrq of a function that insert data. Those whose register was
    last written by a `lea` off the stack pointer or frame pointer insert
    the address of a local: a lambda's closure of references built with
    vector stores (rowm_run's, once a call), not a cx<V> pair copied
    through general registers, and are not counted."""
    last = {}  # register -> the instruction that last wrote it
    count = 0
    for line in body:
        ins = line.split("\t")[-1].strip()
        m = re.match(r"vpinsrq\s+\$0x1,%(r\w+),", ins)
        if m:
            src = last.get(m.group(1), "")
            if not re.match(r"lea\s+-?(0x[0-9a-f]+)?\(%r[sb]p\)", src):
                count += 1
            continue
        d = re.search(r",%(r\w+)$", ins)
        if d:
            last[d.group(1)] = ins
    return count


@pytest.mark.parametrize("name, stack_budget, inserts_max", BUDGET,
                         ids=[b[0].split("(")[0] for b in BUDGET])
def test_no_register_copies_and_stack_within_budget(functions, name, stack_budget, inserts_max):
    bodies = [v for k, v in functions.items() if k.startswith(name)]
    assert len(bodies) == 1, f"{name}: {len(bodies)} functions in the extension"
    body = bodies[0]
    inserts = data_inserts(body)
    stack = sum(1 for line in body if "%rsp" in line or "%rbp" in line)
    assert inserts <= inserts_max, f"{name}: {inserts} vpinsrq (cx<V> copied through registers)"
    assert stack <= stack_budget, f"{name}: {stack} stack references (budget {stack_budget})"
