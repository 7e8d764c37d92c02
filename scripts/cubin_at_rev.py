#!/usr/bin/env python3
"""One kernel source of a git revision compiled alone to a cubin with line info, with the flags the
library's build uses: for scripts/ncu_phases.py on a profile that an older library produced (the
profiles under docs/device-runs/ carry no source lines, and the .so they ran is not kept).

    python3 scripts/cubin_at_rev.py REV kernels/bwd/grad.cu OUT.cubin [--build build]

The flags are those of BUILD/compile_commands.json (this checkout's configured build; it must
compile that file), with `-c` made `-cubin`, the architecture list made the one real architecture
it names, `-lineinfo` added if missing, and the checkout's source and include paths pointed at a
temporary git worktree of REV (the build's generated headers stay). The kernel SASS is the
library's: e.g. bwd_grad of session 34's profile (v49, 0f2d24e) comes out with the profile's 6 992
instructions. Only cubin_command() is pure; tests/python/test_cubin_at_rev.py checks it.
"""
from __future__ import annotations

import argparse
import json
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

ARCH_RE = re.compile(r"sm_\w+")


def cubin_command(command: str, repo: str, tree: str, build: str, source: str, out: str) -> list[str]:
    """The compile command of `source` (repo-relative) from compile_commands.json, rewritten to
    compile the copy of it in `tree` to the cubin `out`; paths under `build` are kept."""
    repo, tree, build = repo.rstrip("/"), tree.rstrip("/"), build.rstrip("/")

    def moved(path: str) -> str:
        if path.startswith(build + "/") or path == build:
            return path
        if path.startswith(repo + "/"):
            return tree + path[len(repo):]
        return path

    args, result, i = shlex.split(command), [], 0
    while i < len(args):
        a = args[i]
        if a == "-o":
            result += ["-o", out]
            i += 2
            continue
        if a == "-c":
            result.append("-cubin")
        elif a.startswith(("--generate-code=", "-gencode=")):
            archs = ARCH_RE.findall(a)
            if not archs:
                sys.exit(f"no real architecture (sm_..) in {a!r}: a cubin needs one")
            result.append(f"-arch={archs[-1]}")
        elif a.startswith("-I") and len(a) > 2:
            result.append("-I" + moved(a[2:]))
        elif a.startswith("-isystem="):
            result.append("-isystem=" + moved(a[len("-isystem="):]))
        elif a == repo + "/" + source:
            result.append(tree + "/" + source)
        else:
            result.append(a)
        i += 1
    if "-lineinfo" not in result:
        result.append("-lineinfo")
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rev", help="git revision whose source to compile")
    ap.add_argument("source", help="repository-relative kernel source, e.g. kernels/bwd/grad.cu")
    ap.add_argument("out", type=Path, help="the cubin to write")
    ap.add_argument("--build", type=Path, default=Path("build"), help="configured build folder (default build)")
    a = ap.parse_args()

    repo = subprocess.run(["git", "rev-parse", "--show-toplevel"], check=True, capture_output=True,
                          text=True).stdout.strip()
    build = (a.build if a.build.is_absolute() else Path.cwd() / a.build).resolve()
    db = build / "compile_commands.json"
    if not db.is_file():
        sys.exit(f"{db} not found: configure the build first (cmake -S . -B {a.build})")
    entry = next((e for e in json.loads(db.read_text()) if e["file"] == f"{repo}/{a.source}"), None)
    if entry is None:
        sys.exit(f"{a.source} is not compiled by {build}: name a kernel source of the library")
    out = a.out.resolve()
    with tempfile.TemporaryDirectory() as tmp:
        tree = f"{tmp}/tree"
        subprocess.run(["git", "worktree", "add", "--detach", tree, a.rev], check=True, capture_output=True)
        try:
            cmd = cubin_command(entry["command"], repo, tree, str(build), a.source, str(out))
            subprocess.run(cmd, check=True, cwd=entry["directory"])
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", tree], check=False, capture_output=True)
    print(f"{out}: {a.source} at {a.rev}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
