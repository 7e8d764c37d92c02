#!/usr/bin/env python3
"""Summarise a per-block timeline written by a KDA_TIMELINE build (docs/timeline.md).

    scripts/timeline_summary.py FILE.csv [--bin US] [--waves KERNEL [--wave-size N] [--wave W]] [--occupancy]

For each kernel row: its blocks, when the first started and the last ended, the blocks' median
time; then, per time bin, how many SMs held a block of each kernel (a block counts in every bin
it overlaps). That is where the overlapped stages of one call sit against each other.

--waves KERNEL instead groups KERNEL's blocks, in block order, into waves of N (default: the
blocks that started before the first of them ended, i.e. the first wave's width) and prints each
wave's start and end spread and its median block time. Blocks of one wave that start and end
within a microsecond of each other run in lockstep (session 35: bwd_grad's first waves). Where
the kernel stamps marks inside its blocks (columns mark0_us, ...; bwd_grad: its loads issued,
its dh flags acquired, its inputs in, stages 3a - 3c done, v and dv_new's lo half in, stages 3 - 4 done),
each wave also gets the median time from start to the first mark, between marks and from the
last mark to the end: where the wave's time goes. With --wave W it prints instead wave W's
blocks one per line, each with its own spans (session 38: which blocks of bwd_grad's first wave
wait and which catch up).

--occupancy instead splits the file into phases (spans in which some block runs; a gap of a
microsecond or more between them, e.g. the host between kda_fwd and kda_bwd) and prints, per
phase, the SM time it had (the SMs seen in the file x its span) and held (on each SM, the union
of all blocks' intervals), and per kernel the SM time its blocks held (the same union over its
own blocks: where two kernels share an SM both count it, so the kernels' shares can add up to
more than the phase's) and their summed block time. A phase whose kernels hold nearly all its SM time is bound by SM
time: only less held time shortens it, whatever the order (session 36: R2's forward, 96 %).
"""
import argparse
import csv
import itertools
import statistics
import sys
from collections import defaultdict


def read_table(path):
    """The file's first line (the plan's shape), its column names and its rows (dicts)."""
    with open(path) as f:
        header = f.readline().strip()
        reader = csv.DictReader(f)
        rows = list(reader)
    return header, reader.fieldnames or [], rows


def read(path):
    header, _, rows = read_table(path)
    blocks = defaultdict(list)  # kernel -> [(block, sm, start, end)]
    for r in rows:
        blocks[r["kernel"]].append((int(r["block"]), int(r["sm"]), float(r["start_us"]), float(r["end_us"])))
    return header, blocks


def read_marks(path):
    """{kernel: {block: (mark0, mark1, ...)}}: per kernel, the blocks that stamped as many marks
    as any of its blocks did (kernels stamp marks 0 .. n - 1 of their own n, docs/timeline.md; a
    block missing one is left out); empty for a file without marks."""
    _, fields, rows = read_table(path)
    cols = sorted((c for c in fields if c.startswith("mark") and c.endswith("_us")), key=lambda c: int(c[4:-3]))
    stamped = defaultdict(dict)
    for r in rows:
        leading = list(itertools.takewhile(bool, (r[c] for c in cols)))
        if leading:
            stamped[r["kernel"]][int(r["block"])] = tuple(float(v) for v in leading)
    marks = defaultdict(dict)
    for kernel, blocks in stamped.items():
        n = max(len(m) for m in blocks.values())
        marks[kernel] = {b: m for b, m in blocks.items() if len(m) == n}
    return marks


def block_spans(start, marks, end):
    """One block's durations start -> mark 0, mark i -> mark i + 1, ..., last mark -> end."""
    t = (start,) + tuple(marks) + (end,)
    return tuple(t[i + 1] - t[i] for i in range(len(t) - 1))


def mark_segments(wave, marks):
    """Median block_spans over the blocks of `wave` ((block, sm, start, end) tuples) that have
    marks; None if none has marks."""
    spans = [block_spans(x[2], marks[x[0]], x[3]) for x in wave if x[0] in marks]
    if not spans:
        return None
    return tuple(statistics.median(s[i] for s in spans) for i in range(len(spans[0])))


def wave_size(blocks, kernel, size=None):
    """`size` if given, else the first wave's width: KERNEL's blocks that started before the first
    of them ended."""
    if size is not None:
        return size
    first_end = min(x[3] for x in blocks[kernel])
    return sum(1 for x in blocks[kernel] if x[2] < first_end)


def wave_rows(blocks, kernel, size=None, marks=None):
    """KERNEL's blocks in block order, in waves of `size` (default: the number of blocks that
    started before the first of them ended). Returns (size, rows), a row per wave:
    (first block, last block, start min, start max, end min, end max, median block time), and
    where `marks` ({block: marks}, read_marks) covers some of the wave's blocks, their
    mark_segments after it."""
    b = sorted(blocks[kernel])
    size = wave_size(blocks, kernel, size)
    rows = []
    for lo in range(0, len(b), size):
        w = b[lo:lo + size]
        row = (w[0][0], w[-1][0], min(x[2] for x in w), max(x[2] for x in w), min(x[3] for x in w),
               max(x[3] for x in w), statistics.median(x[3] - x[2] for x in w))
        segments = mark_segments(w, marks) if marks else None
        rows.append(row + segments if segments else row)
    return size, rows


def block_rows(blocks, kernel, size, wave, marks=None):
    """The blocks of wave `wave` (0-based, waves as wave_rows forms them), one row each in block
    order: (block, sm, start, end, spans...), the spans being start -> mark 0, between marks and
    last mark -> end for a block in `marks` (read_marks), none for the others. Where one block's
    time goes, e.g. which of a wave's blocks wait and which catch up (session 38)."""
    size = wave_size(blocks, kernel, size)
    waves = -(-len(blocks[kernel]) // size)
    if not 0 <= wave < waves:
        raise ValueError(f"{kernel} has waves 0 - {waves - 1} of {size} blocks")
    lo = wave * size
    out = []
    for b, sm, start, end in sorted(blocks[kernel])[lo:lo + size]:
        m = (marks or {}).get(b)
        out.append((b, sm, start, end) + (block_spans(start, m, end) if m else ()))
    return out


def span_header(n_marks):
    """The column titles of the spans between a block's start, its n_marks marks and its end
    ("start-m0", "m0-m1", ..., "mN-end"), with their leading gap; empty without marks."""
    if n_marks <= 0:
        return ""
    names = ["start"] + [f"m{i}" for i in range(n_marks)] + ["end"]
    return "  " + " ".join(f"{names[i] + '-' + names[i + 1]:>9}" for i in range(n_marks + 1))


def print_blocks(blocks, kernel, size, wave, marks=None):
    rows = block_rows(blocks, kernel, size, wave, marks)
    n_marks = max(len(r) for r in rows) - 5
    head = f"{'block':>6} {'sm':>4} {'start':>9} {'end':>9}"
    head += span_header(n_marks)
    print(f"{kernel}: wave {wave}, one line a block (us)")
    print(head)
    for r in rows:
        line = f"{r[0]:6d} {r[1]:4d} {r[2]:9.1f} {r[3]:9.1f}"
        if len(r) > 4:
            line += "  " + " ".join(f"{x:9.1f}" for x in r[4:])
        print(line)


def print_waves(blocks, kernel, size, marks=None):
    size, rows = wave_rows(blocks, kernel, size, marks)
    print(f"{kernel}: {len(blocks[kernel])} blocks in waves of {size} (block order)")
    head = f"{'blocks':>11} {'start min':>9} {'start max':>9} {'end min':>9} {'end max':>9} {'median us':>9}"
    n_marks = max(len(r) for r in rows) - 8
    head += span_header(n_marks)  # median us from start to mark 0, between marks, last mark to end
    print(head)
    for r in rows:
        line = f"{r[0]:5d}-{r[1]:<5d} " + " ".join(f"{x:9.1f}" for x in r[2:7])
        if len(r) > 7:
            line += "  " + " ".join(f"{x:9.1f}" for x in r[7:])
        print(line)


def merged(intervals, gap=0.0):
    """(start, end) intervals joined where one starts less than `gap` us after the spans before it
    end (overlapping ones always), in order."""
    out = []
    for s, e in sorted(intervals):
        if out and s < out[-1][1] + gap:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return [tuple(p) for p in out]


def held_time(intervals):
    """The length of the union of (start, end) intervals."""
    return sum(e - s for s, e in merged(intervals))


def phases(blocks, gap=1.0):
    """(start, end) of each span in which some block of any kernel runs; spans apart by >= gap us."""
    return merged(((x[2], x[3]) for b in blocks.values() for x in b), gap)


def kernels_by_start(blocks):
    return sorted(blocks, key=lambda k: min(x[2] for x in blocks[k]))


def intervals_by_sm(block_lists, lo, hi):
    """{SM: [(start, end)]} of the blocks in block_lists that start in [lo, hi)."""
    per_sm = {}
    for b in block_lists:
        for _, sm, s, e in b:
            if lo <= s < hi:
                per_sm.setdefault(sm, []).append((s, e))
    return per_sm


def occupancy_rows(blocks, lo, hi):
    """Per kernel with blocks starting in [lo, hi): (kernel, SMs used, SM time held in us, block
    time in us), kernels in order of their first start."""
    rows = []
    for k in kernels_by_start(blocks):
        per_sm = intervals_by_sm([blocks[k]], lo, hi)
        if per_sm:
            rows.append((k, len(per_sm), sum(held_time(v) for v in per_sm.values()),
                         sum(e - s for v in per_sm.values() for s, e in v)))
    return rows


def print_occupancy(blocks):
    sms = len({x[1] for b in blocks.values() for x in b})
    for n, (lo, hi) in enumerate(phases(blocks), 1):
        cap = sms * (hi - lo)
        # every kernel's blocks together: an SM that two kernels share counts once
        held = sum(held_time(v) for v in intervals_by_sm(blocks.values(), lo, hi).values())
        print(f"\nphase {n}: {lo:.1f} - {hi:.1f} us on {sms} SMs: {cap / 1000:.2f} ms of SM time, "
              f"{held / 1000:.2f} ms held ({100 * held / cap:.0f} %)")
        print(f"{'kernel':8} {'SMs':>4} {'held ms':>8} {'share':>6} {'block ms':>9}")
        for k, n_sm, h, b in occupancy_rows(blocks, lo, hi):
            print(f"{k:8} {n_sm:4d} {h / 1000:8.2f} {100 * h / cap:5.0f}% {b / 1000:9.2f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", help="a timeline file (KDA_TIMELINE_OUT-N.csv)")
    ap.add_argument("--bin", type=float, default=10.0, help="width of a time bin in us (default 10)")
    ap.add_argument("--waves", metavar="KERNEL", help="per-wave view of one kernel's blocks instead of the bins")
    ap.add_argument("--wave-size", type=int, help="blocks a wave (default: the first wave's width)")
    ap.add_argument("--wave", type=int, metavar="N",
                    help="with --waves: wave N's blocks one per line, with their spans between marks")
    ap.add_argument("--occupancy", action="store_true", help="SM time held per kernel and phase instead of the bins")
    a = ap.parse_args()
    if a.bin <= 0:
        sys.exit("timeline_summary: --bin must be positive")
    if a.wave_size is not None and a.wave_size <= 0:
        sys.exit("timeline_summary: --wave-size must be positive")
    if a.wave is not None and a.waves is None:
        sys.exit("timeline_summary: --wave N needs --waves KERNEL")
    header, blocks = read(a.csv)
    if not blocks:
        sys.exit(f"timeline_summary: no blocks recorded in {a.csv}")
    print(header.lstrip("# "))
    if a.waves is not None:
        if a.waves not in blocks:
            sys.exit(f"timeline_summary: no kernel '{a.waves}' in {a.csv} (it has {', '.join(sorted(blocks))})")
        if a.wave is not None:
            try:
                print_blocks(blocks, a.waves, a.wave_size, a.wave, read_marks(a.csv).get(a.waves))
            except ValueError as e:
                sys.exit(f"timeline_summary: --wave {a.wave}: {e}")
            return
        print_waves(blocks, a.waves, a.wave_size, read_marks(a.csv).get(a.waves))
        return
    if a.occupancy:
        print_occupancy(blocks)
        return
    kernels = kernels_by_start(blocks)
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
