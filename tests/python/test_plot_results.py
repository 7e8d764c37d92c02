"""CPU tests of scripts/plot_results.py. Run: python3 -m unittest -v tests/python/test_plot_results.py"""
import json
import math
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from tests.python.script_loader import load_script, script_path

SCRIPT = script_path("plot_results")
plot_results = load_script("plot_results")

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def results(timing, accuracy):
    """A minimal schema_version 1 document: {(row, op): median}, {(row, decay, tensor): rel_l2}."""
    ctx = {"date": "2026-12-02T11:58:37Z", "host": "h", "command_line": "x", "seed": 1,
           "gpu": {"name": "NVIDIA H200", "gpu_class": "H200 (sm_90, 132 SMs)", "arch": "sm_90a",
                   "sm_count": 132, "driver": "580", "cuda_runtime": "13.0", "nvcc": "13.0"},
           "kernel_library": {"path": "libkda.so", "build_id": "b", "git_revision": ""},
           "harness": {"version": "0.1.0", "git_revision": ""},
           "method": {"samples": 1, "calls_per_sample": 20, "warmup": 3, "l2": "warm",
                      "launch": "eager"}}
    t = [{"row": r, "op": o, "median_ms": m, "min_ms": m, "max_ms": m, "iqr_ms": 0.0,
          "samples_ms": [m]} for (r, o), m in timing.items()]
    a = [{"row": r, "decay": d, "tensor": n, "status": "ok" if e is not None else "non-finite",
          "rel_l2": e, "max_abs_over_max_ref": e, "floor_rel_l2": 1e-3,
          "err_over_floor": None if e is None else e / 1e-3, "heads_checked": [0]}
         for (r, d, n), e in accuracy.items()]
    return {"schema_version": 1, "context": ctx, "timing": t, "accuracy": a, "determinism": []}


BEFORE = results({("m2:g:off:saved", "fwd"): 2.0, ("m2:g:off:saved", "bwd"): 4.0,
                  ("4doc:raw:off:saved", "fwd"): 8.0},
                 {("m2:g:off:saved", "normal", "o"): 4e-3, ("m2:g:off:saved", "normal", "dq"): 2e-3,
                  ("m2:g:off:saved", "fast", "dg"): 1e-3})
AFTER = results({("m2:g:off:saved", "fwd"): 1.0, ("m2:g:off:saved", "bwd"): 5.0,
                 ("R2:g:off:saved", "fwd"): 1.0},
                {("m2:g:off:saved", "normal", "o"): 2e-3, ("m2:g:off:saved", "normal", "dq"): None,
                 ("m2:g:off:saved", "fast", "dg"): 3e-3})


class PlotTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)
        self.before = self.dir / "before.json"
        self.after = self.dir / "after.json"
        self.before.write_text(json.dumps(BEFORE))
        self.after.write_text(json.dumps(AFTER))

    def tearDown(self):
        self.tmp.cleanup()

    def test_time_ratios(self):
        r = plot_results.time_ratios(BEFORE, AFTER)
        self.assertEqual(r, [("m2:g:off:saved", "fwd", 0.5), ("m2:g:off:saved", "bwd", 1.25)])

    def test_error_ratios(self):
        r = {k[:3]: k[3] for k in plot_results.error_ratios(BEFORE, AFTER)}
        self.assertAlmostEqual(r[("m2:g:off:saved", "normal", "o")], 0.5)
        self.assertAlmostEqual(r[("m2:g:off:saved", "fast", "dg")], 3.0)
        self.assertTrue(math.isnan(r[("m2:g:off:saved", "normal", "dq")]))

    def assert_png(self, path):
        data = Path(path).read_bytes()
        self.assertGreater(len(data), 1000)
        self.assertEqual(data[:8], PNG_MAGIC)

    def test_plots_are_pngs(self):
        out = self.dir / "plots"
        written = plot_results.plot(self.before, [self.after], out)
        self.assertEqual(sorted(Path(p).name for p in written), ["error_ratio.png", "time_ratio.png"])
        for p in written:
            self.assert_png(p)
        self.assertEqual(sorted(p.name for p in out.iterdir()), ["error_ratio.png", "time_ratio.png"])

    def test_several_after_files(self):
        after2 = self.dir / "after2.json"
        after2.write_text(json.dumps(BEFORE))
        written = plot_results.plot(self.before, [self.after, after2], self.dir / "plots")
        self.assertEqual(len(written), 4)
        self.assertIn(str(self.dir / "plots" / "time_ratio-2.png"), written)
        for p in written:
            self.assert_png(p)

    def test_refuses_overwrite_without_force(self):
        out = self.dir / "plots"
        out.mkdir()
        (out / "time_ratio.png").write_bytes(b"keep")
        with self.assertRaisesRegex(plot_results.PlotError, "--force"):
            plot_results.plot(self.before, [self.after], out)
        self.assertEqual((out / "time_ratio.png").read_bytes(), b"keep")
        self.assertFalse((out / "error_ratio.png").exists())
        plot_results.plot(self.before, [self.after], out, force=True)
        self.assert_png(out / "time_ratio.png")

    def test_cli(self):
        out = self.dir / "cli"
        cmd = [sys.executable, str(SCRIPT), str(self.before), str(self.after), "--out-dir", str(out)]
        r = subprocess.run(cmd, capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assert_png(out / "time_ratio.png")
        self.assert_png(out / "error_ratio.png")
        r = subprocess.run(cmd, capture_output=True, text=True)
        self.assertEqual(r.returncode, 1)
        self.assertIn("--force", r.stderr)

    def test_wrong_schema_version(self):
        bad = self.dir / "bad.json"
        bad.write_text(json.dumps({"schema_version": 2}))
        with self.assertRaisesRegex(plot_results.PlotError, "schema_version 2"):
            plot_results.plot(bad, [self.after], self.dir / "plots")


if __name__ == "__main__":
    unittest.main()
