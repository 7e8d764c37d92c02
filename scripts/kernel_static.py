#!/usr/bin/env python3
"""Static cost of each kernel in a libkda.so build: registers, stack, spills, instruction mix.

    scripts/kernel_static.py LIB.so [--before BEFORE.so] [--filter REGEX]

Per kernel (every template instance): registers and stack frame (`cuobjdump
--dump-resource-usage`), then from its SASS (`cuobjdump -sass`) the instructions (NOP padding
left out), the local-memory stores and loads (STL, LDL: spills where the stack is non-zero),
warp-level mma (HMMA), warpgroup mma (HGMMA), special-function ops (MUFU: exp, rsqrt) and
barriers (BAR). With --before, each figure of LIB.so is followed by its change from BEFORE.so.

Why: a device call is scarce, and a kernel change's static cost (a new spill, 5 % more
instructions in bwd_grad) can be read on any machine before one is spent on it. Those figures
predict time only in part (docs/perf-log.md, bwd v5 and v8a), so this is a check to run before a
device call, not a verdict.

Needs cuobjdump on PATH (the CUDA toolkit, or the pip wheel nvidia-cuda-cuobjdump) and c++filt
for readable names. Only `dump` runs those tools; the parsing takes text, so
tests/python/test_kernel_static.py checks it on machines without CUDA.
"""
from __future__ import annotations

import argparse
import collections
import re
import shutil
import subprocess
import sys

FUNC_RES_RE = re.compile(r"^\s*Function (\S+):\s*$")
RES_RE = re.compile(r"\b(REG|STACK|SHARED|LOCAL):(\d+)")
FUNC_SASS_RE = re.compile(r"^\s*Function : (\S+)\s*$")
# "/*0040*/   @!P0 LDC.64 R4, c[0x0][0x248] ;": an optional predicate, then the opcode
INSN_RE = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P[0-9T]\s+)?([A-Z][A-Z0-9_]*)")
COLUMNS = ["REG", "STACK", "insns", "STL", "LDL", "HMMA", "HGMMA", "MUFU", "BAR"]


def parse_resources(text: str) -> dict[str, dict[str, int]]:
    """`cuobjdump --dump-resource-usage` text -> {mangled name: {REG, STACK, SHARED, LOCAL}}."""
    out, current = {}, None
    for line in text.splitlines():
        m = FUNC_RES_RE.match(line)
        if m:
            current = m.group(1)
            continue
        if current is not None and "REG:" in line:
            out[current] = {k: int(v) for k, v in RES_RE.findall(line)}
            current = None
    return out


def parse_sass(text: str) -> dict[str, collections.Counter]:
    """`cuobjdump -sass` text -> {mangled name: Counter of base opcodes (HMMA.16816.F32 -> HMMA)}."""
    out, current = {}, None
    for line in text.splitlines():
        m = FUNC_SASS_RE.match(line)
        if m:
            current = out.setdefault(m.group(1), collections.Counter())
            continue
        if current is not None:
            m = INSN_RE.match(line)
            if m:
                current[m.group(1).split(".")[0]] += 1
    return out


def short_name(demangled: str) -> str:
    """void kda::dev::(anonymous namespace)::bwd_grad_kernel<true, false>(params, maps) ->
    bwd_grad_kernel<true, false>: the kernel and its template arguments (c++filt writes the
    return type of a template instance, void for a kernel)."""
    name = demangled.removeprefix("void ")
    depth = 0
    for i, ch in enumerate(name):  # cut the parameter list: the first '(' outside template brackets
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "(" and depth == 0 and not name.startswith("(anonymous", i):
            name = name[:i]
            break
    return re.sub(r"^(?:[\w]+::|\(anonymous namespace\)::)*", "", name)


def kernel_rows(resources: dict, sass: dict, names: dict[str, str]) -> dict[str, dict[str, int]]:
    """{short name: {column: value}} for every function in either listing."""
    rows = {}
    for mangled in sorted(set(resources) | set(sass)):
        res, ops = resources.get(mangled, {}), sass.get(mangled, collections.Counter())
        rows[short_name(names.get(mangled, mangled))] = {
            "REG": res.get("REG", 0),
            "STACK": res.get("STACK", 0),
            "insns": sum(n for op, n in ops.items() if op != "NOP"),
            **{op: ops.get(op, 0) for op in ("STL", "LDL", "HMMA", "HGMMA", "MUFU", "BAR")},
        }
    return rows


def render(after: dict, before: dict | None, pattern: str | None) -> str:
    keep = [k for k in sorted(set(after) | set(before or {})) if pattern is None or re.search(pattern, k)]
    width = max([len(k) for k in keep] + [6])
    cell = 13 if before is not None else 6
    lines = [f"{'kernel':{width}} " + " ".join(f"{c:>{cell}}" for c in COLUMNS)]
    for k in keep:
        if k not in after:
            lines.append(f"{k:{width}} (only in --before)")
            continue
        cells = []
        for c in COLUMNS:
            v = after[k][c]
            if before is None:
                cells.append(f"{v:>{cell}}")
            elif k not in before:
                cells.append(f"{str(v) + ' (new)':>{cell}}")
            else:
                d = v - before[k][c]
                cells.append(f"{v:>{cell}}" if d == 0 else f"{f'{v} ({d:+d})':>{cell}}")
        lines.append(f"{k:{width}} " + " ".join(cells))
    return "\n".join(lines)


def run_tool(args: list[str]) -> str:
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"kernel_static: {' '.join(args)} failed (exit {r.returncode}): {r.stderr.strip()[:300]}")
    return r.stdout


def dump(lib: str) -> dict[str, dict[str, int]]:
    """The rows of one library, through cuobjdump (and c++filt for the names)."""
    if shutil.which("cuobjdump") is None:
        sys.exit("kernel_static: cuobjdump not on PATH (CUDA toolkit, or pip install nvidia-cuda-cuobjdump)")
    resources = parse_resources(run_tool(["cuobjdump", "--dump-resource-usage", lib]))
    sass = parse_sass(run_tool(["cuobjdump", "-sass", lib]))
    mangled = sorted(set(resources) | set(sass))
    names = {}
    if mangled and shutil.which("c++filt"):
        names = dict(zip(mangled, run_tool(["c++filt", *mangled]).splitlines()))
    if not mangled:
        sys.exit(f"kernel_static: no device functions found in {lib}")
    return kernel_rows(resources, sass, names)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("lib", help="a libkda.so (or any file cuobjdump reads)")
    ap.add_argument("--before", help="another build: print each figure's change from it")
    ap.add_argument("--filter", help="only kernels whose short name matches this regex, e.g. 'bwd_grad'")
    a = ap.parse_args()
    if a.filter is not None:
        try:
            re.compile(a.filter)
        except re.error as e:
            sys.exit(f"kernel_static: bad --filter regex: {e}")
    after = dump(a.lib)
    before = dump(a.before) if a.before else None
    print(render(after, before, a.filter))


if __name__ == "__main__":
    main()
