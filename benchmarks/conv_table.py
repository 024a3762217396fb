"""The convolution method table, csrc/conv_cuda/conv_method_table.h: written from
benchmarks/gpu.py's timings (--write-conv-table), read back here and, by
the C++ (csrc/conv_cuda/conv_method.cpp), for the CUDA convolution's method "auto".

The header holds one C++ raw string: '#' comment lines (device, date, unit,
source, notes, the column names), then one line per timed call, its fields
separated by spaces (TABLE_COLUMNS; '-' for a method not timed).
"""
import math
import os
import re
import textwrap

import torch

METHODS = ["rows", "rows32", "wide", "wide32", "gauss"]
DTYPES = {"c32": torch.complex32, "c64": torch.complex64, "c128": torch.complex128}
CONV_TABLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                          "csrc", "conv_cuda", "conv_method_table.h")
TABLE_COLUMNS = ["shape", "dtype", "dims", "transposed", "bias", "elems", "kernel", "cin",
                 "cout", "torch"] + METHODS
TABLE_INTS = {"dims", "transposed", "bias", "elems", "kernel", "cin", "cout"}
TABLE_KEYS = ["device", "date", "unit", "source"]
TABLE_OPEN, TABLE_CLOSE = 'constexpr const char kTimes[] = R"table(', ')table";'
TABLE_PROLOGUE = """\
// The convolution method table: times of each method of the CUDA
// convolution on the benchmark's shapes, which the method "auto" reads
// (csrc/conv_cuda/conv_method.cpp; the rule: docs/gpu.md, "Choosing the method").
// Written by benchmarks/gpu.py --write-conv-table (bash
// benchmarks/device_check.sh runs it); a new run replaces the whole file.
//
// Columns: the call (shape name; dtype c32/c64/c128; spatial dims;
// transposed 0/1; bias 0/1; elems, the input's elements: batch x channels x
// spatial sizes; kernel, the kernel's elements; cin, cout: channels), then
// the time of torch's own convolution of the same call and of each method,
// in the unit below; '-': not timed.
#pragma once

namespace complexext {
namespace conv_table {

"""
TABLE_EPILOGUE = """
}  // namespace conv_table
}  // namespace complexext
"""


def conv_table_line(name, fname, xs, ws, dtype, bias, t):
    """A line of the method table: the call's features and the times in ms
    (t in seconds: "torch" and the methods; None where not timed)."""
    transposed = "transpose" in fname
    line = {"shape": name, "dtype": next(k for k, v in DTYPES.items() if v == dtype),
            "dims": len(xs) - 2, "transposed": int(transposed), "bias": int(bias),
            "elems": math.prod(xs), "kernel": math.prod(ws[2:]), "cin": xs[1],
            "cout": ws[1] if transposed else ws[0]}  # groups 1 in every benchmark shape
    line.update({k: None if t.get(k) is None else t[k] * 1e3 for k in ["torch"] + METHODS})
    return line


def conv_table_header(lines, meta):
    """The text of csrc/conv_cuda/conv_method_table.h: meta holds device, date, unit,
    source and notes (a list); lines as conv_table_line gives them."""
    def cell(k, v):
        return "-" if v is None else str(v) if k in TABLE_INTS or k in ("shape", "dtype") \
            else f"{v:.4g}"
    rows = [TABLE_COLUMNS] + [[cell(k, ln[k]) for k in TABLE_COLUMNS] for ln in lines]
    widths = [max(len(r[i]) for r in rows) for i in range(len(TABLE_COLUMNS))]
    fmt = lambda r: " ".join(f"{v:<{n}}" for v, n in zip(r, widths)).rstrip()  # noqa: E731
    wrap = lambda key, text: textwrap.wrap(  # noqa: E731
        text, 77, initial_indent=f"# {key}: ", subsequent_indent="#   ",
        break_long_words=False, break_on_hyphens=False) or [f"# {key}:"]
    body = [x for k in TABLE_KEYS for x in wrap(k, meta[k])]
    body += [x for note in meta.get("notes", []) for x in wrap("note", note)]
    body += ["# " + fmt(rows[0])] + ["  " + fmt(r) for r in rows[1:]]
    return TABLE_PROLOGUE + TABLE_OPEN + "\n" + "\n".join(body) + "\n" + TABLE_CLOSE + \
        "\n" + TABLE_EPILOGUE


def conv_table_text(header):
    """The table itself (the raw string of the header), as the op's table
    argument takes it."""
    start = header.index(TABLE_OPEN) + len(TABLE_OPEN)
    return header[start:header.index(TABLE_CLOSE, start)]


def read_conv_table(header):
    """(lines, meta) of a header written by conv_table_header."""
    fields, lines = [], []  # fields: [key, text] in order, notes among them
    for raw in conv_table_text(header).splitlines():
        m = re.match(r"# (%s): ?(.*)$" % "|".join(TABLE_KEYS + ["note"]), raw)
        if m:
            fields.append([m[1], m[2]])
        elif raw.startswith("#   ") and fields:  # a wrapped field goes on
            fields[-1][1] += " " + raw[4:]
        elif raw.strip() and not raw.startswith("#"):
            f = raw.split()
            if len(f) != len(TABLE_COLUMNS):
                raise ValueError(f"conv table: expected {len(TABLE_COLUMNS)} fields: {raw!r}")
            lines.append({k: v if k in ("shape", "dtype") else int(v) if k in TABLE_INTS
                          else None if v == "-" else float(v) for k, v in zip(TABLE_COLUMNS, f)})
    meta = {k: v for k, v in fields if k != "note"}
    meta["notes"] = [v for k, v in fields if k == "note"]
    return lines, meta


def write_conv_table(path, calls, meta):
    """Writes the table of calls ((line, input shape, weight shape, op
    arguments) each) to path and prints the method that "auto" picks from
    it for each call, as the op _conv_cuda_method reads it. Returns the picks."""
    if not calls:
        print("\nconv method table: no convolution was timed; nothing written")
        return []
    if meta["device"] == "cpu" and os.path.abspath(path) == CONV_TABLE:
        print("\nconv method table: a --device cpu run does not replace "
              "csrc/conv_cuda/conv_method_table.h; name another PATH")
        return []
    header = conv_table_header([c[0] for c in calls], meta)
    with open(path, "w", encoding="utf-8") as f:
        f.write(header)
    print(f"\nconv method table written to {path} ({meta['device']}, {meta['date']}); "
          f"\"auto\" picks:")
    text, picks = conv_table_text(header), []
    for line, xs, ws, oa in calls:
        picks.append(auto_pick(DTYPES[line["dtype"]], xs, ws, oa, line["bias"], text))
        print(f"  {line['shape']:>7} {line['dtype']:>4} {'bias' if line['bias'] else 'no bias':>7}:"
              f" {picks[-1]}")
    return picks


def auto_pick(dtype, xs, ws, oa, bias, table=None):
    """The op _conv_cuda_method for a call of these shapes and op arguments
    (oa: stride .. groups): with a table's text, the method "auto" takes
    from it; without, the method the CUDA kernel runs. The tensors are
    sizes only (expanded from one element)."""
    z = lambda shape: torch.zeros((), dtype=dtype).expand(shape)  # noqa: E731
    cout = ws[1] * oa[5] if oa[3] else ws[0]
    return torch.ops.complexext._conv_cuda_method(z(xs), z(ws), z(cout) if bias else None, *oa,
                                                  table)
