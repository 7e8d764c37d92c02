#!/usr/bin/env python3
"""Summarise a per-block timeline written by a KDA_TIMELINE build (docs/timeline.md).

    scripts/timeline_summary.py FILE.csv [--bin US]

For each kernel row: its blocks, when the first started and the last ended, the blocks' median
time; then, per time bin, how many SMs held a block of each kernel (a block counts in every bin
it overlaps). That is where the overlapped stages of one call sit against each other.
"""
import argparse
import csv
import statistics
import sys
from collections import defaultdict


def read(path):
    with open(path) as f:
        header = f.readline().strip()
        rows = list(csv.DictReader(f))
    blocks = defaultdict(list)  # kernel -> [(block, sm, start, end)]
    for r in rows:
        blocks[r["kernel"]].append((int(r["block"]), int(r["sm"]), float(r["start_us"]), float(r["end_us"])))
    return header, blocks


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", help="a timeline file (KDA_TIMELINE_OUT-N.csv)")
    ap.add_argument("--bin", type=float, default=10.0, help="width of a time bin in us (default 10)")
    a = ap.parse_args()
    if a.bin <= 0:
        sys.exit("timeline_summary: --bin must be positive")
    header, blocks = read(a.csv)
    if not blocks:
        sys.exit(f"timeline_summary: no blocks recorded in {a.csv}")
    print(header.lstrip("# "))
    kernels = sorted(blocks, key=lambda k: min(b[2] for b in blocks[k]))
    print(f"{'kernel':8} {'blocks':>6} {'first start':>11} {'last start':>10} {'last end':>9} {'median us':>9}")
    for k in kernels:
        b = blocks[k]
        print(f"{k:8} {len(b):6d} {min(x[2] for x in b):11.1f} {max(x[2] for x in b):10.1f} "
              f"{max(x[3] for x in b):9.1f} {statistics.median(x[3] - x[2] for x in b):9.1f}")
    end = max(x[3] for b in blocks.values() for x in b)
    nbins = int(end // a.bin) + 1
    print(f"\nSMs holding a block, per {a.bin:g} us bin (bin start in us)")
    print(f"{'bin':>6} " + " ".join(f"{k:>7}" for k in kernels))
    for i in range(nbins):
        lo, hi = i * a.bin, (i + 1) * a.bin
        counts = [len({x[1] for x in blocks[k] if x[2] < hi and x[3] > lo}) for k in kernels]
        print(f"{lo:6.0f} " + " ".join(f"{c:7d}" for c in counts))


if __name__ == "__main__":
    main()
