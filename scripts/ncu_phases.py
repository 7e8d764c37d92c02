#!/usr/bin/env python3
"""Stall samples and executed instructions of one kernel, per phase of its source.

    python3 scripts/ncu_phases.py LIB.so KERNEL NCU_SASS.csv[.gz] FILE.cu FIRST_LINE \
        'loads:196-313,3a:314-347,...' [--body-lines N]

NCU_SASS.csv is Nsight Compute's per-instruction source page of one launch (`ncu -i REP --page
source --csv --print-source sass`; scripts/device-env.sh's ncu_kernel writes it). It carries no
source lines, so the same build's cubin is disassembled here with line info (`nvdisasm -g`) and
the two are matched instruction by instruction. An instruction belongs to the phase of the last
line of FILE.cu at or after FIRST_LINE (the kernel body) before it: code inlined from helpers and
other files counts for the body line that called it. KERNEL is a substring of the mangled name,
e.g. 'bwd_grad_kernelILb0ELb0E' for bwd_grad<false, false>. A profile committed from an older
build is read against that revision's library: `scripts/build-rev.sh REV` (about 20 s here).

Needs cuobjdump and nvdisasm on PATH (not in this machine's CUDA 13.0; the pip wheels
nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm carry them, under nvidia/cu13/bin). Prints, per
phase, its share of the stall samples and of the executed instructions and its four largest
stall reasons, then the reasons over the whole kernel and the source lines with most samples;
with --body-lines N also the N body lines with most samples, each with its three largest reasons
(the finest split: a phase of one line).
Only disassemble() runs those tools; the parsing (instructions_of) and the counting (attribute)
take text and rows, so tests/python/test_ncu_phases.py checks them on machines without CUDA.
"""
from __future__ import annotations

import argparse
import collections
import csv
import gzip
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

LINE_RE = re.compile(r'//## File "([^"]+)", line (\d+)')
INSN_RE = re.compile(r"/\*[0-9a-f]{4,}\*/")


def parse_phases(spec: str) -> list[tuple[str, int, int]]:
    phases = []
    for item in spec.split(","):
        name, span = item.split(":")
        lo, hi = span.split("-")
        phases.append((name, int(lo), int(hi)))
    return phases


def instructions_of(text: str, kernel: str, source: str, first_line: int) -> list[tuple[int | None, tuple | None]]:
    """(body line, innermost (file, line)) of every instruction of the kernel in `nvdisasm -g` text,
    in address order. Body line is None before the first line of `source` at or after first_line."""
    insns, inside, body, where = [], False, None, None
    for line in text.splitlines():
        if line.startswith(".text."):
            inside = kernel in line  # one cubin holds every instantiation; count only this one
            continue
        if not inside:
            continue
        m = LINE_RE.search(line)
        if m:
            where = (m.group(1).split("/")[-1], int(m.group(2)))
            # Lines above first_line are helpers defined in the same file: they stay with the
            # body line that called them, like code inlined from other files.
            if source in m.group(1) and where[1] >= first_line:
                body = where[1]
        elif INSN_RE.search(line) and not line.strip().startswith("//"):
            insns.append((body, where))
    return insns


def disassemble(lib: Path, kernel: str, source: str, first_line: int) -> list[tuple[int | None, tuple | None]]:
    """instructions_of the cubin in lib that holds the kernel (runs cuobjdump and nvdisasm)."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["cuobjdump", "-xelf", "all", str(lib.resolve())], cwd=tmp, check=True, capture_output=True)
        text = ""
        for cubin in sorted(Path(tmp).glob("*.cubin")):
            out = subprocess.run(["nvdisasm", "-g", "-c", str(cubin)], check=True, capture_output=True, text=True)
            if kernel in out.stdout:
                text = out.stdout
                break
    if not text:
        sys.exit(f"no kernel matching {kernel!r} in {lib}")
    return instructions_of(text, kernel, source, first_line)


def read_profile(path: Path) -> tuple[list[str], list[list[str]]]:
    """(header, one row per instruction) of ncu's per-instruction CSV, plain or gzipped."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as f:
        rows = list(csv.reader(f))
    return rows[1], rows[2:]  # row 0 names the kernel


class Attribution(NamedTuple):
    samples: collections.Counter  # phase -> stall samples
    executed: collections.Counter  # phase -> executed instructions
    by_reason: collections.defaultdict  # phase -> Counter(stall reason -> samples)
    by_line: collections.Counter  # innermost (file, line) -> stall samples
    by_body: collections.Counter  # body line (None before the body) -> stall samples
    body_executed: collections.Counter  # body line -> executed instructions
    body_reasons: collections.defaultdict  # body line -> Counter(stall reason -> samples)


def attribute(insns, header: list[str], data: list[list[str]], phases: list[tuple[str, int, int]]) -> Attribution:
    """Counts of each profile row under the phase of its instruction's body line ("other" if none)."""
    # The rows carry no addresses or lines, so they match the disassembly only by position; a
    # different count means another build, and zip would silently pair the wrong instructions.
    if len(data) != len(insns):
        sys.exit(f"{len(data)} instructions in the profile, {len(insns)} in the disassembly: not the same build")
    i_samples = header.index("Warp Stall Sampling (All Samples)")
    i_executed = header.index("Instructions Executed")
    # "stall_x (Not Issued)" columns are a subset of stall_x: counting both would double them.
    reasons = [(h[len("stall_"):], i) for i, h in enumerate(header) if h.startswith("stall_") and "(" not in h]

    samples, executed = collections.Counter(), collections.Counter()
    by_reason = collections.defaultdict(collections.Counter)
    by_line, by_body, body_executed = collections.Counter(), collections.Counter(), collections.Counter()
    body_reasons = collections.defaultdict(collections.Counter)
    for (body, where), r in zip(insns, data):
        phase = next((p for p, lo, hi in phases if body is not None and lo <= body <= hi), "other")
        s, e = int(r[i_samples] or 0), int(r[i_executed] or 0)
        samples[phase] += s
        executed[phase] += e
        by_line[where] += s
        by_body[body] += s
        body_executed[body] += e
        for name, i in reasons:
            n = int(r[i] or 0)
            by_reason[phase][name] += n
            body_reasons[body][name] += n
    return Attribution(samples, executed, by_reason, by_line, by_body, body_executed, body_reasons)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("lib", type=Path, help="the library (or cubin container) the profile ran")
    ap.add_argument("kernel", help="substring of the kernel's mangled name")
    ap.add_argument("csv", type=Path, help="ncu's per-instruction source page, .csv or .csv.gz")
    ap.add_argument("source", help="the kernel's source file name, e.g. grad.cu")
    ap.add_argument("first_line", type=int, help="first line of the kernel body in that file")
    ap.add_argument("phases", help="name:first-last source lines, comma-separated")
    ap.add_argument("--body-lines", type=int, default=0, metavar="N",
                    help="also list the N body lines with most stall samples (default 0: none)")
    a = ap.parse_args()

    phases = parse_phases(a.phases)
    insns = disassemble(a.lib, a.kernel, a.source, a.first_line)
    header, data = read_profile(a.csv)
    att = attribute(insns, header, data, phases)
    samples, executed, by_reason, by_line = att.samples, att.executed, att.by_reason, att.by_line
    total_s, total_e = sum(samples.values()) or 1, sum(executed.values()) or 1
    print(f"{a.kernel}: {len(insns)} instructions, {total_s} stall samples")
    for p in [p for p, _, _ in phases] + ["other"]:
        top = " ".join(f"{k} {100 * v / total_s:.1f}" for k, v in by_reason[p].most_common(4))
        print(f"{p:14s} samples {100 * samples[p] / total_s:5.1f} %  instructions {100 * executed[p] / total_e:5.1f} %  | {top}")
    overall = collections.Counter()
    for c in by_reason.values():
        overall.update(c)
    print("reasons:", " ".join(f"{k} {100 * v / total_s:.1f}" for k, v in overall.most_common(10)))
    print("lines:", ", ".join(f"{w[0]}:{w[1]} {100 * s / total_s:.1f}" for w, s in by_line.most_common(20) if w))
    if a.body_lines > 0:
        print(f"body lines of {a.source} (code inlined from elsewhere counts for the line that called it):")
        for body, s in [(b, s) for b, s in att.by_body.most_common() if b is not None][: a.body_lines]:
            top = " ".join(f"{k} {100 * v / total_s:.1f}" for k, v in att.body_reasons[body].most_common(3))
            print(f"{body:6d}  samples {100 * s / total_s:5.1f} %  instructions "
                  f"{100 * att.body_executed[body] / total_e:5.1f} %  | {top}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
