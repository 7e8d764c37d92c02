"""CPU tests of scripts/timeline_summary.py: reading a KDA_TIMELINE file, the per-wave view
(--waves), the SM-time view (--occupancy) and the errors, on a synthetic timeline of known waves.
Run: python3 -m unittest -v tests/python/test_timeline_summary.py"""
import contextlib
import io
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from tests.python.script_loader import load_script, script_path

SCRIPT = script_path("timeline_summary")
timeline_summary = load_script("timeline_summary")

HEADER = "# libkda timeline: tokens 128, sequences 1, heads 1, gate g, l2n off, V tile 16"


def timeline_text():
    """A 'dh' block over the whole run, and 6 'grad' blocks on 3 SMs: blocks 0-2 start at 0 and
    end together at 10 (lockstep), blocks 3-5 start at 10.0, 10.5, 11.0 and take 4, 5, 6 us."""
    rows = ["kernel,block,sm,start_us,end_us", "dh,0,3,0.000,30.000"]
    rows += [f"grad,{b},{b},0.000,10.000" for b in range(3)]
    rows += [f"grad,{3 + i},{i},{10 + 0.5 * i:.3f},{10 + 0.5 * i + 4 + i:.3f}" for i in range(3)]
    return HEADER + "\n" + "\n".join(rows) + "\n"


class TimelineSummaryTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.csv = Path(self.dir.name) / "tl-0.csv"
        self.csv.write_text(timeline_text())

    def tearDown(self):
        self.dir.cleanup()

    def run_main(self, *args):
        out = io.StringIO()
        with mock.patch.object(sys, "argv", ["timeline_summary.py", str(self.csv), *args]), \
                contextlib.redirect_stdout(out):
            timeline_summary.main()
        return out.getvalue()

    def test_read_groups_blocks_by_kernel(self):
        header, blocks = timeline_summary.read(self.csv)
        self.assertEqual(header, HEADER)
        self.assertEqual(sorted(blocks), ["dh", "grad"])
        self.assertEqual(len(blocks["grad"]), 6)
        self.assertEqual(blocks["grad"][3], (3, 0, 10.0, 14.0))

    def test_default_wave_size_is_the_first_waves_width(self):
        _, blocks = timeline_summary.read(self.csv)
        size, rows = timeline_summary.wave_rows(blocks, "grad")
        self.assertEqual(size, 3)
        self.assertEqual(rows, [(0, 2, 0.0, 0.0, 10.0, 10.0, 10.0), (3, 5, 10.0, 11.0, 14.0, 17.0, 5.0)])

    def test_explicit_wave_size_and_a_short_last_wave(self):
        _, blocks = timeline_summary.read(self.csv)
        size, rows = timeline_summary.wave_rows(blocks, "grad", 4)
        self.assertEqual(size, 4)
        self.assertEqual([(r[0], r[1]) for r in rows], [(0, 3), (4, 5)])
        self.assertEqual(rows[1][6], 5.5)  # median of 5 and 6 us

    def test_waves_option_prints_one_line_per_wave(self):
        text = self.run_main("--waves", "grad")
        self.assertIn("grad: 6 blocks in waves of 3 (block order)", text)
        self.assertRegex(text, r"\n +0-2 +0\.0 +0\.0 +10\.0 +10\.0 +10\.0\n")
        self.assertRegex(text, r"\n +3-5 +10\.0 +11\.0 +14\.0 +17\.0 +5\.0\n")
        self.assertNotIn("SMs holding a block", text)

    def test_marks_split_each_waves_time(self):
        # the file format with marks: grad blocks 0-2 mark at 1, 3, 8 (block 2 lacks mark 2: left
        # out, as grad's other blocks stamp 3); blocks 3-5 at start + 0.5, + 2, + 3; dh stamps none
        rows = ["kernel,block,sm,start_us,end_us,mark0_us,mark1_us,mark2_us", "dh,0,3,0.000,30.000,,,"]
        rows += ["grad,0,0,0.000,10.000,1.000,3.000,8.000", "grad,1,1,0.000,10.000,1.000,3.000,8.000",
                 "grad,2,2,0.000,10.000,1.000,3.000,"]
        rows += [f"grad,{3 + i},{i},{10 + 0.5 * i:.3f},{10 + 0.5 * i + 4 + i:.3f},"
                 f"{10.5 + 0.5 * i:.3f},{12 + 0.5 * i:.3f},{13 + 0.5 * i:.3f}" for i in range(3)]
        self.csv.write_text(HEADER + "\n" + "\n".join(rows) + "\n")
        marks = timeline_summary.read_marks(self.csv)
        self.assertEqual(sorted(marks), ["grad"])
        self.assertEqual(sorted(marks["grad"]), [0, 1, 3, 4, 5])
        _, blocks = timeline_summary.read(self.csv)
        _, waves = timeline_summary.wave_rows(blocks, "grad", None, marks["grad"])
        self.assertEqual(waves[0][7:], (1.0, 2.0, 5.0, 2.0))
        self.assertEqual(waves[1][7:], (0.5, 1.5, 1.0, 2.0))  # the last: 4, 5, 6 us after mark 2 -> 1, 2, 3
        text = self.run_main("--waves", "grad")
        self.assertIn("start-m0     m0-m1     m1-m2    m2-end", text)
        self.assertRegex(text, r"\n +0-2 +0\.0 +0\.0 +10\.0 +10\.0 +10\.0 +1\.0 +2\.0 +5\.0 +2\.0\n")
        # a kernel stamping fewer marks than the file has columns (dh: 2 of 3) keeps its own
        rows[1] = "dh,0,3,0.000,30.000,2.000,4.000,"
        self.csv.write_text(HEADER + "\n" + "\n".join(rows) + "\n")
        marks = timeline_summary.read_marks(self.csv)
        self.assertEqual(marks["dh"], {0: (2.0, 4.0)})
        self.assertEqual(sorted(marks["grad"]), [0, 1, 3, 4, 5])
        self.assertIn("start-m0     m0-m1    m1-end", self.run_main("--waves", "dh"))
        self.csv.write_text(timeline_text())  # the format before marks: none read, none printed
        self.assertEqual(timeline_summary.read_marks(self.csv), {})
        self.assertNotIn("start-m0", self.run_main("--waves", "grad"))

    def test_bins_view_counts_sms_per_kernel(self):
        text = self.run_main("--bin", "10")
        lines = text.splitlines()
        first_bin = next(line for line in lines if line.split()[:1] == ["0"])
        self.assertEqual(first_bin.split(), ["0", "1", "3"])  # dh on 1 SM, grad on 3

    def test_held_time_is_the_union_of_intervals(self):
        self.assertEqual(timeline_summary.held_time([(0, 10), (2, 6), (10, 14), (20, 21)]), 15)
        self.assertEqual(timeline_summary.held_time([]), 0)

    def test_occupancy_per_phase_counts_a_shared_sm_once(self):
        # a block sharing SM 0 with block 0, and a kernel after a 10 us gap (a phase of its own)
        self.csv.write_text(timeline_text() + "grad,6,0,2.000,6.000\nreduce,0,1,40.000,41.000\n")
        _, blocks = timeline_summary.read(self.csv)
        self.assertEqual(timeline_summary.phases(blocks), [(0.0, 30.0), (40.0, 41.0)])
        rows = timeline_summary.occupancy_rows(blocks, 0.0, 30.0)
        # grad held: SM 0 0-14 (the shared 2-6 counted once), SM 1 0-10 + 10.5-15.5, SM 2 0-10 + 11-17
        self.assertEqual(rows, [("dh", 1, 30.0, 30.0), ("grad", 3, 45.0, 49.0)])
        self.assertEqual(timeline_summary.occupancy_rows(blocks, 40.0, 41.0), [("reduce", 1, 1.0, 1.0)])
        text = self.run_main("--occupancy")
        self.assertIn("phase 1: 0.0 - 30.0 us on 4 SMs: 0.12 ms of SM time, 0.07 ms held (62 %)", text)
        self.assertRegex(text, r"\ngrad +3 +0\.04 +38% +0\.05\n")
        self.assertIn("phase 2: 40.0 - 41.0 us", text)

    def test_a_phase_counts_an_sm_two_kernels_share_once(self):
        # an 'out' block on SM 3 beside dh (0-30): dh and out each hold 5 us there, the phase 30
        self.csv.write_text(timeline_text() + "out,0,3,10.000,15.000\n")
        _, blocks = timeline_summary.read(self.csv)
        self.assertIn(("out", 1, 5.0, 5.0), timeline_summary.occupancy_rows(blocks, 0.0, 30.0))
        self.assertIn("0.12 ms of SM time, 0.07 ms held", self.run_main("--occupancy"))

    def test_one_waves_blocks_with_their_own_spans(self):
        # wave 1 (blocks 3-5, start 10 + 0.5 i, end 14 + 1.5 i) with marks at start + 0.5, + 2, + 3
        rows = ["kernel,block,sm,start_us,end_us,mark0_us,mark1_us", "dh,0,3,0.000,30.000,,"]
        rows += [f"grad,{b},{b},0.000,10.000,," for b in range(3)]
        rows += [f"grad,{3 + i},{i},{10 + 0.5 * i:.3f},{14 + 1.5 * i:.3f},{10.5 + 0.5 * i:.3f},{12 + 0.5 * i:.3f}"
                 for i in range(3)]
        self.csv.write_text(HEADER + "\n" + "\n".join(rows) + "\n")
        _, blocks = timeline_summary.read(self.csv)
        marks = timeline_summary.read_marks(self.csv)["grad"]
        got = timeline_summary.block_rows(blocks, "grad", None, 1, marks)
        self.assertEqual([r[:4] for r in got], [(3, 0, 10.0, 14.0), (4, 1, 10.5, 15.5), (5, 2, 11.0, 17.0)])
        self.assertEqual([r[4:] for r in got], [(0.5, 1.5, 2.0), (0.5, 1.5, 3.0), (0.5, 1.5, 4.0)])
        self.assertEqual(timeline_summary.block_rows(blocks, "grad", None, 0, marks)[0], (0, 0, 0.0, 10.0))
        text = self.run_main("--waves", "grad", "--wave", "1")
        self.assertIn("start-m0     m0-m1    m1-end", text)
        self.assertRegex(text, r"\n +5 +2 +11\.0 +17\.0 +0\.5 +1\.5 +4\.0\n")

    def test_unknown_kernel_and_bad_sizes_are_refused(self):
        for args, message in [(("--waves", "nope"), "no kernel 'nope'"),
                              (("--waves", "grad", "--wave", "2"), "grad has waves 0 - 1 of 3 blocks"),
                              (("--wave", "0",), "--wave N needs --waves KERNEL"),
                              (("--waves", "grad", "--wave-size", "0"), "--wave-size must be positive"),
                              (("--bin", "0"), "--bin must be positive")]:
            with self.subTest(args=args), self.assertRaises(SystemExit) as cm:
                self.run_main(*args)
            self.assertIn(message, str(cm.exception.code))


if __name__ == "__main__":
    unittest.main()
