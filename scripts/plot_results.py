#!/usr/bin/env python3
"""Plots of AFTER / BEFORE ratios from kda-bench results JSON files (docs/results-schema.md).

    python3 scripts/plot_results.py BEFORE.json AFTER.json [AFTER2.json ...] --out-dir plots/

Writes, per AFTER file (suffix `-N` from the second one on):
  time_ratio.png   median time after / before per (row, op), bars, a line at 1.0 (below = faster)
  error_ratio.png  rel_l2 after / before per (row, decay, tensor), bars, a line at 1.0 (log scale)
Only keys present in both files are plotted (timing entries with a `stage` are left out).
Existing PNGs are refused unless --force. Needs matplotlib (Agg backend; no display).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path


class PlotError(Exception):
    pass


def read_results(path) -> dict:
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise PlotError(f"{path}: cannot read: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise PlotError(f"{path}: not valid JSON: {e}") from None
    if doc.get("schema_version") != 1:
        raise PlotError(f"{path}: schema_version {doc.get('schema_version')!r} is not supported "
                        "(reads 1)")
    return doc


def time_ratios(before: dict, after: dict) -> list:
    """[(row, op, after median / before median)] for the (row, op) in both, in AFTER's order."""
    b = {(t["row"], t["op"]): t["median_ms"] for t in before.get("timing", []) if "stage" not in t}
    out = []
    for t in after.get("timing", []):
        if "stage" in t:
            continue
        key = (t["row"], t["op"])
        if key in b and b[key] and b[key] > 0:
            out.append((t["row"], t["op"], t["median_ms"] / b[key]))
    return out


def error_ratios(before: dict, after: dict) -> list:
    """[(row, decay, tensor, after rel_l2 / before rel_l2)]; NaN where either is null or zero."""
    b = {(a["row"], a["decay"], a["tensor"]): a.get("rel_l2") for a in before.get("accuracy", [])}
    out = []
    for a in after.get("accuracy", []):
        key = (a["row"], a["decay"], a["tensor"])
        if key not in b:
            continue
        x, y = b[key], a.get("rel_l2")
        r = y / x if (x is not None and y is not None and x > 0) else float("nan")
        out.append((*key, r))
    return out


def _bar_chart(labels, values, title, ylabel, path, log=False):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    width = max(6.0, 0.35 * len(labels) + 2.0)
    fig, ax = plt.subplots(figsize=(width, 4.8))
    xs = list(range(len(labels)))
    shown = [v if math.isfinite(v) else 0.0 for v in values]
    colors = ["tab:gray" if not math.isfinite(v) else ("tab:green" if v <= 1.0 else "tab:red")
              for v in values]
    ax.bar(xs, shown, color=colors)
    ax.axhline(1.0, color="black", linewidth=1.0, linestyle="--")
    if log and any(v > 0 for v in shown):
        ax.set_yscale("log")
    ax.set_xticks(xs)
    ax.set_xticklabels(labels, rotation=60, ha="right", fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    for x, v in zip(xs, values):
        if not math.isfinite(v):
            ax.annotate("n/a", (x, 1.0), ha="center", fontsize=7)
    fig.tight_layout()
    tmp = f"{path}.tmp.{os.getpid()}.png"
    try:
        fig.savefig(tmp, dpi=110)
        os.replace(tmp, path)
    finally:
        plt.close(fig)
        if os.path.exists(tmp):
            os.unlink(tmp)


def plot(before_path, after_paths, out_dir, force=False) -> list:
    """Renders the plots; returns the PNG paths written."""
    before = read_results(before_path)
    afters = [(p, read_results(p)) for p in after_paths]
    out = Path(out_dir)
    targets = []
    for i, (p, _) in enumerate(afters):
        suffix = "" if i == 0 else f"-{i + 1}"
        targets.append((out / f"time_ratio{suffix}.png", out / f"error_ratio{suffix}.png"))
    existing = [str(t) for pair in targets for t in pair if t.exists()]
    if existing and not force:
        raise PlotError(f"{', '.join(existing)}: exist; pass --force to overwrite")
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for (p, after), (time_png, err_png) in zip(afters, targets):
        name = f"{Path(p).name} / {Path(before_path).name}"
        tr = time_ratios(before, after)
        if not tr:
            print(f"plot_results: {p}: no (row, op) timed in both files; no time plot", file=sys.stderr)
        else:
            _bar_chart([f"{r} {o}" for r, o, _ in tr], [v for *_, v in tr],
                       f"median time, {name} (below 1 = faster)", "after / before", time_png)
            written.append(str(time_png))
        er = error_ratios(before, after)
        if not er:
            print(f"plot_results: {p}: no (row, decay, tensor) checked in both files; no error plot",
                  file=sys.stderr)
        else:
            _bar_chart([f"{r} {d} {t}" for r, d, t, _ in er], [v for *_, v in er],
                       f"rel. L2 error, {name} (below 1 = more accurate)", "after / before",
                       err_png, log=True)
            written.append(str(err_png))
    return written


def main(argv=None) -> int:
    p = argparse.ArgumentParser(
        description="Bar charts of after/before median time per (row, op) and rel-L2 error per "
                    "(row, decay, tensor) from kda-bench results JSON files.")
    p.add_argument("before", help="BEFORE results JSON")
    p.add_argument("after", nargs="+", help="one or more AFTER results JSON files")
    p.add_argument("--out-dir", required=True, metavar="DIR", help="folder for the PNGs")
    p.add_argument("--force", action="store_true", help="overwrite existing PNGs")
    args = p.parse_args(argv)
    try:
        for path in plot(args.before, args.after, args.out_dir, force=args.force):
            print(path)
    except PlotError as e:
        print(f"plot_results: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
