"""CPU tests of scripts/fla_peer.py's pure parts (no torch, FLA or GPU): dump reading, error
metrics, results JSON, atomic write. Run: python3 -m unittest -v tests/python/test_fla_peer.py"""
import io
import json
import math
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import numpy as np

from tests.python.script_loader import load_script, script_path

SCRIPT = script_path("fla_peer")
peer = load_script("fla_peer")

T, H, K = 6, 3, 4
HEADS = [0, 2]


def bf16(a):
    return peer.round_to_bf16(a).astype(np.float32)


def make_dump(d, gate="raw", l2n="off", row=None, with_refs=True):
    """A tiny dump folder as kda-bench writes it (docs/dump-format.md, src/io/dump_manifest.cpp)."""
    d = Path(d)
    d.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(7)
    row = row or f"tiny:{gate}:{l2n}:saved"
    files = []

    def save(name, arr, role, bf16_values=False):
        np.save(d / f"{name}.npy", arr)
        e = {"name": name, "file": f"{name}.npy", "role": role, "dtype": arr.dtype.str,
             "shape": list(arr.shape)}
        if bf16_values:
            e["bf16_values"] = True
        e["description"] = name
        files.append(e)

    save("cu_seqlens", np.array([0, 4, T], np.int32), "input")
    for n in ("q", "k", "v", "do"):
        save(n, bf16(rng.normal(size=(T, H, K))), "input", True)
    save("beta", bf16(rng.uniform(size=(T, H))), "input", True)
    save("x" if gate == "raw" else "g", rng.normal(size=(T, H, K)).astype(np.float32), "input")
    save("A_log", rng.normal(size=H).astype(np.float32), "input")
    save("dt_bias", rng.normal(size=(H, K)).astype(np.float32), "input")
    if with_refs:
        save("ref_heads", np.array(HEADS, np.int32), "reference")
        save("ref_o", rng.normal(size=(T, len(HEADS), K)), "reference")
        save("ref_dbeta", rng.normal(size=(T, len(HEADS))), "reference")
        save("ref_dA_log", rng.normal(size=len(HEADS)), "reference")
        save("ref_ddt_bias", rng.normal(size=(len(HEADS), K)), "reference")
    manifest = {"format": "kda-bench dump", "format_version": 1, "row": row, "scenario": "tiny",
                "decay": "normal", "seed": 20261202, "gate": gate, "l2n": l2n,
                "dims": {"tokens": T, "sequences": 2, "heads": H, "k_dim": K, "v_dim": K},
                "files": files}
    (d / "manifest.json").write_text(json.dumps(manifest, indent=2))
    return d


GPU = {"name": "NVIDIA H200", "gpu_class": "H200 (sm_90, 132 SMs)", "arch": "sm_90",
       "sm_count": 132, "driver": "580.159", "cuda_runtime": "13.0", "nvcc": "triton 3.6.0"}


def validate_results(tc, doc):
    """The required fields of schema_version 1, as src/report/results_json.cpp reads them."""
    tc.assertEqual(doc["schema_version"], 1)
    c = doc["context"]
    for k in ("date", "host", "command_line"):
        tc.assertIsInstance(c[k], str)
    tc.assertIsInstance(c["seed"], int)
    tc.assertGreaterEqual(c["seed"], 0)
    for k in ("name", "gpu_class", "arch", "driver", "cuda_runtime", "nvcc"):
        tc.assertIsInstance(c["gpu"][k], str)
    tc.assertIsInstance(c["gpu"]["sm_count"], int)
    for k in ("path", "build_id", "git_revision"):
        tc.assertIsInstance(c["kernel_library"][k], str)
    for k in ("version", "git_revision"):
        tc.assertIsInstance(c["harness"][k], str)
    m = c["method"]
    for k in ("samples", "calls_per_sample", "warmup"):
        tc.assertIsInstance(m[k], int)
    tc.assertIn(m["l2"], ("warm", "cold"))
    tc.assertIn(m["launch"], ("eager", "graph"))
    for t in doc["timing"]:
        tc.assertIsInstance(t["row"], str)
        tc.assertIn(t["op"], ("fwd", "bwd", "fwd+bwd"))
        for k in ("median_ms", "min_ms", "max_ms", "iqr_ms"):
            tc.assertIsInstance(t[k], float)
        tc.assertTrue(all(isinstance(x, float) for x in t["samples_ms"]))
    for a in doc["accuracy"]:
        tc.assertIn(a["decay"], ("normal", "fast"))
        tc.assertIn(a["tensor"], ("o", "dq", "dk", "dv", "dbeta", "dg", "dx", "dA_log", "ddt_bias"))
        tc.assertIn(a["status"], ("ok", "non-finite", "failed-threshold"))
        for k in ("rel_l2", "max_abs_over_max_ref", "floor_rel_l2", "err_over_floor"):
            tc.assertTrue(a[k] is None or isinstance(a[k], float), k)
        tc.assertTrue(all(isinstance(h, int) for h in a["heads_checked"]))
        if "note" in a:
            tc.assertIsInstance(a["note"], str)
    tc.assertIsInstance(doc["determinism"], list)


class DumpTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def test_reads_raw_dump(self):
        d = peer.load_dump(make_dump(self.dir / "d"))
        self.assertEqual(d["row"], "tiny:raw:off:saved")
        self.assertEqual(d["path"], "saved")
        self.assertEqual(d["ref_heads"], HEADS)
        self.assertEqual(sorted(d["refs"]), ["dA_log", "dbeta", "ddt_bias", "o"])
        self.assertEqual(d["refs"]["o"].dtype, np.float64)
        for n in ("cu_seqlens", "q", "k", "v", "beta", "do", "x", "A_log", "dt_bias"):
            self.assertIn(n, d["inputs"])
        self.assertEqual(d["inputs"]["dt_bias"].shape, (H, K))

    def test_g_form_reads_g(self):
        d = peer.load_dump(make_dump(self.dir / "d", gate="g", l2n="fused"))
        self.assertIn("g", d["inputs"])
        self.assertNotIn("x", d["inputs"])

    def test_missing_manifest_is_named(self):
        (self.dir / "empty").mkdir()
        with self.assertRaisesRegex(peer.PeerError, "no manifest"):
            peer.load_dump(self.dir / "empty")

    def test_missing_file_is_named(self):
        d = make_dump(self.dir / "d")
        os.unlink(d / "beta.npy")
        with self.assertRaisesRegex(peer.PeerError, "beta.npy"):
            peer.load_dump(d)

    def test_row_key_must_match_manifest(self):
        d = make_dump(self.dir / "d", gate="raw", row="tiny:g:off:saved")
        with self.assertRaisesRegex(peer.PeerError, "disagrees"):
            peer.load_dump(d)

    def test_bad_row_key(self):
        with self.assertRaisesRegex(peer.PeerError, "path 'again'"):
            peer.parse_row_key("m2:g:off:again")


class MetricsTest(unittest.TestCase):
    def test_round_to_bf16(self):
        x = np.array([1.0, 0.1, 1.0 + 2.0 ** -8, 1.0 + 3 * 2.0 ** -8, -3.0e-5])
        r = peer.round_to_bf16(x)
        self.assertEqual(r[0], 1.0)
        self.assertEqual(r[1], 0.10009765625)  # docs/dump-format.md's nearest bf16 of 0.1
        self.assertEqual(r[2], 1.0)  # tie -> even
        self.assertEqual(r[3], 1.0 + 2.0 ** -6)  # tie -> even (up)
        bits = np.float32(r[4]).view(np.uint32)
        self.assertEqual(int(bits) & 0xFFFF, 0)  # a bf16 value
        ulp = 2.0 ** (math.floor(math.log2(3.0e-5)) - 7)
        self.assertLessEqual(abs(r[4] + 3.0e-5), ulp / 2)
        self.assertTrue(np.isnan(peer.round_to_bf16(np.array([np.nan]))[0]))

    def test_hand_computed_errors(self):
        ref = np.array([[3.0, 4.0], [0.0, 0.0]])  # |ref| = 5, max |ref| = 4
        out = np.array([[3.0, 4.0], [0.0, 0.3]], np.float32).astype(np.float64)
        out[1, 1] = 0.3  # exact: the error is 0.3
        e = peer.tensor_errors("o", out, ref, "bf16")
        self.assertEqual(e["status"], "ok")
        self.assertAlmostEqual(e["rel_l2"], 0.3 / 5.0, places=15)
        self.assertAlmostEqual(e["max_abs_over_max_ref"], 0.3 / 4.0, places=15)
        self.assertEqual(e["floor_rel_l2"], 0.0)  # 3 and 4 are bf16 values
        self.assertEqual(e["err_over_floor"], 0.0)

    def test_floor_bf16_and_fp32(self):
        ref = np.array([0.1, 1.0])
        nref = math.sqrt(0.01 + 1.0)
        e = peer.tensor_errors("dq", ref.copy(), ref, "bf16")
        self.assertEqual(e["rel_l2"], 0.0)
        self.assertAlmostEqual(e["floor_rel_l2"], abs(0.10009765625 - 0.1) / nref, places=15)
        f = peer.tensor_errors("dx", ref.copy(), ref, "fp32")
        self.assertAlmostEqual(f["floor_rel_l2"], abs(float(np.float32(0.1)) - 0.1) / nref, places=18)
        out = ref + np.array([0.001, 0.0])
        g = peer.tensor_errors("dq", out, ref, "bf16")
        self.assertAlmostEqual(g["err_over_floor"], 0.001 / abs(0.10009765625 - 0.1), places=9)

    def test_output_dtypes(self):
        for n in ("o", "dq", "dk", "dv", "dbeta"):
            self.assertEqual(peer.output_dtype(n), "bf16")
        for n in ("dg", "dx", "dA_log", "ddt_bias"):
            self.assertEqual(peer.output_dtype(n), "fp32")

    def test_non_finite_names_tensor_and_index(self):
        ref = np.ones((2, 2, 3))
        out = ref.copy()
        out[1, 1, 2] = np.nan
        e = peer.tensor_errors("dk", out, ref, "bf16", heads=[0, 5])
        self.assertEqual(e["status"], "non-finite")
        self.assertTrue(math.isnan(e["rel_l2"]))
        self.assertIn("dk", e["note"])
        self.assertIn("NaN", e["note"])
        self.assertIn("[1, 5, 2]", e["note"])  # token 1, model head 5, column 2
        out[1, 1, 2] = np.inf
        self.assertIn("Inf", peer.tensor_errors("dk", out, ref, "bf16")["note"])

    def test_select_heads(self):
        full = np.arange(T * H * K, dtype=np.float64).reshape(T, H, K)
        np.testing.assert_array_equal(peer.select_heads(full, HEADS, "o"), full[:, HEADS])
        per_head = np.arange(H * K, dtype=np.float64).reshape(H, K)
        np.testing.assert_array_equal(peer.select_heads(per_head, HEADS, "ddt_bias"), per_head[HEADS])

    def test_check_outputs_against_dump(self):
        with tempfile.TemporaryDirectory() as tmp:
            dump = peer.load_dump(make_dump(Path(tmp) / "d"))
        refs = dump["refs"]
        o = np.zeros((T, H, K))
        o[:, HEADS] = refs["o"]  # exact in the checked heads, garbage elsewhere is ignored
        o[:, 1] = 1e9
        ddt = np.zeros((H, K))
        ddt[HEADS] = refs["ddt_bias"] * 1.01
        dbeta = np.zeros((T, H))
        dbeta[:, HEADS] = refs["dbeta"]
        dbeta[2, 2] = np.nan
        entries = peer.check_outputs(dump, {"o": o, "ddt_bias": ddt, "dbeta": dbeta,
                                            "dq": np.zeros((T, H, K))})
        by = {e["tensor"]: e for e in entries}
        self.assertEqual(sorted(by), ["dbeta", "ddt_bias", "o"])  # no ref_dq, no dA_log output
        self.assertEqual(by["o"]["rel_l2"], 0.0)
        self.assertEqual(by["o"]["heads_checked"], HEADS)
        self.assertAlmostEqual(by["ddt_bias"]["rel_l2"], 0.01, places=12)
        self.assertEqual(by["dbeta"]["status"], "non-finite")
        self.assertIsNone(by["dbeta"]["rel_l2"])
        self.assertIn("[2, 2]", by["dbeta"]["note"])


    def test_per_head_errors_fla_beside_ours(self):
        with tempfile.TemporaryDirectory() as tmp:
            d = make_dump(Path(tmp) / "d")
            dump = peer.load_dump(d)
            ref = dump["refs"]["dA_log"]
            ours = np.zeros(H, np.float32)
            ours[HEADS] = ref * np.array([1.5, 1.0])  # head 0 off by 50 %, head 2 exact (to fp32)
            np.save(d / "dA_log.npy", ours)
            m = json.loads((d / "manifest.json").read_text())
            m["files"].append({"name": "dA_log", "file": "dA_log.npy", "role": "output", "dtype": "<f4",
                               "shape": [H], "description": "dA_log"})
            (d / "manifest.json").write_text(json.dumps(m))
            dump = peer.load_dump(d)
            read = peer.load_head_first_outputs(dump)
        self.assertEqual(sorted(read), ["dA_log"])  # no ddt_bias output in this dump
        fla = np.zeros(H)
        fla[HEADS] = ref * np.array([1.0, 0.9])
        ddt = np.zeros((H, K))
        ddt[HEADS] = dump["refs"]["ddt_bias"] * 1.02
        rows = peer.per_head_errors(dump, {"dA_log": fla, "ddt_bias": ddt}, read)
        by = {(e["tensor"], e["head"]): e for e in rows}
        self.assertEqual(sorted(by), [("dA_log", 0), ("dA_log", 2), ("ddt_bias", 0), ("ddt_bias", 2)])
        self.assertAlmostEqual(by[("dA_log", 0)]["ours"], 0.5, places=6)
        self.assertEqual(by[("dA_log", 0)]["fla"], 0.0)
        self.assertLess(by[("dA_log", 2)]["ours"], 1e-7)
        self.assertAlmostEqual(by[("dA_log", 2)]["fla"], 0.1, places=12)
        self.assertAlmostEqual(by[("ddt_bias", 2)]["fla"], 0.02, places=12)
        self.assertIsNone(by[("ddt_bias", 2)]["ours"])
        self.assertAlmostEqual(by[("dA_log", 2)]["ref_norm"], abs(ref[1]), places=12)
        out = io.StringIO()
        peer.print_per_head(dump, rows, out)
        lines = out.getvalue().splitlines()
        self.assertEqual(len(lines), 2 + len(rows))
        self.assertIn("tiny:raw:off:saved", lines[0])
        self.assertTrue(lines[-1].rstrip().endswith("-"))  # ddt_bias head 2: no ours, no ratio

class ResultsTest(unittest.TestCase):
    def doc(self):
        ctx = peer.make_context(gpu=GPU, fla_version="0.6.0", seed=20261202, samples=15, calls=20,
                                warmup=3, command_line="fla_peer.py --dump d --out f.json")
        timing = [peer.timing_entry("tiny:raw:off:saved", "fwd", [1.0, 3.0, 2.0, 4.0, 5.0])]
        acc = [peer.accuracy_entry("tiny:raw:off:saved", "normal", "o",
                                   peer.tensor_errors("o", np.ones(3), np.ones(3), "bf16"), HEADS),
               peer.accuracy_entry("tiny:raw:off:saved", "normal", "dq",
                                   peer.tensor_errors("dq", np.array([np.nan]), np.ones(1), "bf16"),
                                   HEADS)]
        return peer.make_results(ctx, timing, acc)

    def test_timing_stats_like_numpy(self):
        xs = [0.9, 0.5, 0.7, 1.3, 0.6, 0.8]
        e = peer.timing_entry("r:g:off:saved", "bwd", xs)
        self.assertAlmostEqual(e["median_ms"], float(np.median(xs)), places=15)
        q75, q25 = np.percentile(xs, [75, 25])
        self.assertAlmostEqual(e["iqr_ms"], float(q75 - q25), places=15)
        self.assertEqual((e["min_ms"], e["max_ms"]), (0.5, 1.3))
        self.assertEqual(e["samples_ms"], xs)
        with self.assertRaises(ValueError):
            peer.timing_entry("r:g:off:saved", "fwdx", xs)

    def test_context(self):
        c = self.doc()["context"]
        self.assertEqual(c["kernel_library"], {"path": "fla 0.6.0",
                                               "build_id": "flash-linear-attention 0.6.0",
                                               "git_revision": ""})
        self.assertEqual(c["method"], {"samples": 15, "calls_per_sample": 20, "warmup": 3,
                                       "l2": "warm", "launch": "eager"})
        self.assertRegex(c["date"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")

    def test_written_json_validates(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "sub" / "fla.json"
            peer.write_json_atomic(out, self.doc())
            text = out.read_text()
            self.assertNotRegex(text, r":\s*-?(NaN|Infinity)")  # JSON has no NaN: null
            doc = json.loads(text)
            validate_results(self, doc)
            self.assertEqual(doc["accuracy"][1]["status"], "non-finite")
            self.assertIsNone(doc["accuracy"][1]["err_over_floor"])
            self.assertEqual([p.name for p in out.parent.iterdir()], ["fla.json"])  # no temp left

    def test_refuses_overwrite_without_force(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "fla.json"
            out.write_text("keep")
            with self.assertRaisesRegex(peer.PeerError, "--force"):
                peer.write_json_atomic(out, self.doc())
            self.assertEqual(out.read_text(), "keep")
            peer.write_json_atomic(out, self.doc(), force=True)
            validate_results(self, json.loads(out.read_text()))

    def test_cli_refuses_overwrite_before_running(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "fla.json"
            out.write_text("keep")
            d = make_dump(Path(tmp) / "d")
            r = subprocess.run([sys.executable, str(SCRIPT), "--dump", str(d), "--out", str(out)],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 1)
            self.assertIn("--force", r.stderr)
            self.assertEqual(out.read_text(), "keep")

    def test_help(self):
        r = subprocess.run([sys.executable, str(SCRIPT), "--help"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0)
        for word in ("--dump", "--out", "--force", "--samples", "--calls", "--warmup"):
            self.assertIn(word, r.stdout)

    def test_pure_parts_do_not_import_torch(self):
        code = ("import importlib.util, sys; s = importlib.util.spec_from_file_location('p', %r); "
                "m = importlib.util.module_from_spec(s); s.loader.exec_module(m); "
                "print('torch' in sys.modules or 'fla' in sys.modules)" % str(SCRIPT))
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        self.assertEqual(r.stdout.strip(), "False", r.stderr)


if __name__ == "__main__":
    unittest.main()
