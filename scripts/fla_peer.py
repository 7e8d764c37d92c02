#!/usr/bin/env python3
"""Run flash-linear-attention's `chunk_kda` as a peer on the exact inputs of kda-bench dumps.

For each `--dump DIR` (written by `kda-bench --rows ROW --dump DIR --check`) this script feeds
FLA the harness's inputs (bf16 on CUDA, varlen `cu_seqlens`, scale K^-0.5, L2 norm fused or not as
the manifest says, raw gate through FLA's in-kernel gate), times fwd, bwd and fwd+bwd with our
method (CUDA events, median of `--samples` samples, a sample = `--calls` back-to-back calls /
`--calls`, after `--warmup` calls) and compares FLA's outputs with the FP64 reference in the dump
(`ref_<name>.npy`, heads of `ref_heads.npy`). It writes a results JSON in our schema
(docs/results-schema.md, schema_version 1) that `kda-bench table` reads. See docs/fla-peer.md.

FLA is imported at run time from the installed `fla` package; no FLA code lives in this repository.
The pure parts (dump reading, error metrics, JSON assembly, atomic write) need only numpy and are
tested in tests/python/test_fla_peer.py without torch, FLA or a GPU.
"""
from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import re
import shlex
import socket
import subprocess
import sys
from pathlib import Path

SCHEMA_VERSION = 1
OPS = ("fwd", "bwd", "fwd+bwd")
# Tensor names as in our results JSON; which are bf16 outputs (the rest are fp32).
BF16_OUTPUTS = ("o", "dq", "dk", "dv", "dbeta")
FP32_OUTPUTS = ("dg", "dx", "dA_log", "ddt_bias")
# Tensors without a token axis: their head axis is axis 0 ([H], [H, K]); all others have [T, H, ...].
HEAD_FIRST = ("dA_log", "ddt_bias")
REPO_ROOT = Path(__file__).resolve().parent.parent


class PeerError(Exception):
    """A problem with the inputs or the environment, reported as one line and exit 1."""


# ---------------------------------------------------------------------------------------------
# Dumps (numpy only)
# ---------------------------------------------------------------------------------------------

def parse_row_key(row: str) -> dict:
    """`rows:gate:l2n:path` -> dict; raises PeerError naming the bad field."""
    parts = row.split(":")
    if len(parts) != 4:
        raise PeerError(f"row key '{row}' is not rows:gate:l2n:path")
    rows, gate, l2n, path = parts
    valid = {"gate": ("g", "raw"), "l2n": ("off", "fused"), "path": ("saved", "replay")}
    for field, value in (("gate", gate), ("l2n", l2n), ("path", path)):
        if value not in valid[field]:
            raise PeerError(f"row key '{row}': {field} '{value}' (valid: {', '.join(valid[field])})")
    return {"rows": rows, "gate": gate, "l2n": l2n, "path": path}


def read_manifest(dump_dir) -> dict:
    """The dump's manifest.json, checked for the keys this script uses (src/io/dump_manifest.cpp)."""
    path = Path(dump_dir) / "manifest.json"
    try:
        with open(path, encoding="utf-8") as f:
            m = json.load(f)
    except FileNotFoundError:
        raise PeerError(f"{path}: no manifest (write the dump with kda-bench --dump DIR)") from None
    except json.JSONDecodeError as e:
        raise PeerError(f"{path}: not valid JSON: {e}") from None
    if m.get("format_version") != 1:
        raise PeerError(f"{path}: format_version {m.get('format_version')!r} is not supported (reads 1)")
    for key in ("row", "scenario", "decay", "seed", "gate", "l2n", "dims", "files"):
        if key not in m:
            raise PeerError(f"{path}: missing field '{key}'")
    for key in ("tokens", "sequences", "heads", "k_dim", "v_dim"):
        if key not in m["dims"]:
            raise PeerError(f"{path}: missing field 'dims.{key}'")
    if m["gate"] not in ("g", "raw") or m["l2n"] not in ("off", "fused"):
        raise PeerError(f"{path}: gate '{m['gate']}' / l2n '{m['l2n']}' unknown")
    if m["decay"] not in ("normal", "fast"):
        raise PeerError(f"{path}: decay '{m['decay']}' unknown")
    key = parse_row_key(m["row"])
    if key["gate"] != m["gate"] or key["l2n"] != m["l2n"]:
        raise PeerError(f"{path}: row '{m['row']}' disagrees with gate '{m['gate']}' / l2n '{m['l2n']}'")
    return m


def load_dump(dump_dir) -> dict:
    """Manifest, inputs and references of one dump as numpy arrays.

    Returns {"dir", "manifest", "row", "path", "inputs": {name: array}, "refs": {name: float64
    array}, "ref_heads": [int]}. Inputs: cu_seqlens, q, k, v, beta, do, g or x, and A_log, dt_bias
    for the raw form (also for the g form when present).
    """
    import numpy as np

    d = Path(dump_dir)
    m = read_manifest(d)
    files = {f["name"]: f for f in m["files"]}

    def load(name):
        entry = files.get(name)
        fname = entry["file"] if entry else f"{name}.npy"
        p = d / fname
        if not p.exists():
            raise PeerError(f"{p}: missing (the manifest of {d} lists no '{name}')")
        return np.load(p, allow_pickle=False)

    gate_input = "g" if m["gate"] == "g" else "x"
    needed = ["cu_seqlens", "q", "k", "v", "beta", "do", gate_input]
    if m["gate"] == "raw":
        needed += ["A_log", "dt_bias"]
    inputs = {n: load(n) for n in needed}
    if m["gate"] == "g":
        for n in ("A_log", "dt_bias"):
            if n in files:
                inputs[n] = load(n)
    T, H, K, V = (m["dims"][k] for k in ("tokens", "heads", "k_dim", "v_dim"))
    cu = inputs["cu_seqlens"]
    if cu.ndim != 1 or cu.size < 2 or int(cu[0]) != 0 or int(cu[-1]) != T:
        raise PeerError(f"{d}/cu_seqlens.npy: must be 1-D, start at 0 and end at {T} tokens")
    expect = {"q": (T, H, K), "k": (T, H, K), "v": (T, H, V), "beta": (T, H), "do": (T, H, V),
              gate_input: (T, H, K), "A_log": (H,)}
    for n, shape in expect.items():
        if n in inputs and tuple(inputs[n].shape) != shape:
            raise PeerError(f"{d}/{n}.npy: shape {tuple(inputs[n].shape)}, expected {list(shape)}")
    if "dt_bias" in inputs:
        if inputs["dt_bias"].size != H * K:
            raise PeerError(f"{d}/dt_bias.npy: shape {tuple(inputs['dt_bias'].shape)}, expected [{H}, {K}]")
        inputs["dt_bias"] = inputs["dt_bias"].reshape(H, K)

    refs = {}
    for name, entry in files.items():
        if entry.get("role") == "reference" and name.startswith("ref_") and name != "ref_heads":
            refs[name[4:]] = load(name).astype(np.float64)
    ref_heads = []
    if "ref_heads" in files or (d / "ref_heads.npy").exists():
        ref_heads = [int(h) for h in load("ref_heads")]
    if refs and not ref_heads:
        raise PeerError(f"{d}: ref_ arrays without ref_heads.npy")
    return {"dir": str(d), "manifest": m, "row": m["row"], "path": parse_row_key(m["row"])["path"],
            "inputs": inputs, "refs": refs, "ref_heads": ref_heads}


def load_head_first_outputs(dump: dict) -> dict:
    """kda-bench's own per-head outputs (dA_log, ddt_bias) in the dump, where it wrote them:
    {name: numpy array [H] or [H, K]}. Missing files are left out (a dump of inputs alone)."""
    import numpy as np

    d = Path(dump["dir"])
    files = {f["name"]: f for f in dump["manifest"]["files"]}
    out = {}
    for name in HEAD_FIRST:
        entry = files.get(name)
        if entry and entry.get("role") == "output" and (d / entry["file"]).exists():
            out[name] = np.load(d / entry["file"], allow_pickle=False)
    return out


# ---------------------------------------------------------------------------------------------
# Error metrics (numpy only), as src/check/accuracy.cpp computes them
# ---------------------------------------------------------------------------------------------

def round_to_bf16(a):
    """float64/float32 array -> float64 array of the nearest bf16 values (round to nearest even),
    via float32 as the harness does."""
    import numpy as np

    f = np.ascontiguousarray(np.asarray(a, dtype=np.float64).astype(np.float32))
    bits = f.view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    out = (rounded & 0xFFFFFFFF).astype(np.uint32).view(np.float32)
    out = np.where(np.isnan(f), f, out)  # keep NaN as NaN
    return out.astype(np.float64)


def round_to_dtype(a, dtype: str):
    import numpy as np

    if dtype == "bf16":
        return round_to_bf16(a)
    if dtype == "fp32":
        return np.asarray(a, dtype=np.float64).astype(np.float32).astype(np.float64)
    raise ValueError(f"unknown output dtype '{dtype}' (valid: bf16, fp32)")


def output_dtype(name: str) -> str:
    """bf16 or fp32: the dtype our JSON's tensor `name` has as a kernel output."""
    if name in BF16_OUTPUTS:
        return "bf16"
    if name in FP32_OUTPUTS:
        return "fp32"
    raise ValueError(f"unknown tensor '{name}'")


def select_heads(out, heads, name: str):
    """The heads `heads` of a full output, in the layout of the head-compact reference."""
    import numpy as np

    out = np.asarray(out)
    axis = 0 if name in HEAD_FIRST else 1
    return np.take(out, list(heads), axis=axis)


def tensor_errors(name: str, out, ref, dtype: str, heads=None) -> dict:
    """Errors of `out` against the FP64 reference `ref` (same shape: the checked heads only).

    Returns {"status", "rel_l2", "max_abs_over_max_ref", "floor_rel_l2", "err_over_floor",
    ["note"]}; figures are floats, NaN when non-finite (JSON null). `heads` (the ref_heads) turns
    the head-compact index of a non-finite value into the model's head in the note."""
    import numpy as np

    out = np.asarray(out, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    if out.shape != ref.shape:
        raise PeerError(f"{name}: output shape {out.shape} differs from the reference's {ref.shape}")
    for what, arr in (("output", out), ("reference", ref)):
        bad = ~np.isfinite(arr)
        if bad.any():
            flat = int(np.flatnonzero(bad)[0])
            idx = [int(i) for i in np.unravel_index(flat, arr.shape)]
            kind = "NaN" if np.isnan(arr.flat[flat]) else "Inf"
            axis = 0 if name in HEAD_FIRST else 1
            if heads is not None and len(idx) > axis:
                idx[axis] = int(list(heads)[idx[axis]])
            nan = float("nan")
            return {"status": "non-finite", "rel_l2": nan, "max_abs_over_max_ref": nan,
                    "floor_rel_l2": nan, "err_over_floor": nan,
                    "note": f"{kind} in {what} {name} at index {idx}"}
    diff = out - ref
    nref = math.sqrt(float(np.sum(ref * ref)))
    nerr = math.sqrt(float(np.sum(diff * diff)))
    nfloor = math.sqrt(float(np.sum((round_to_dtype(ref, dtype) - ref) ** 2)))
    max_err = float(np.max(np.abs(diff))) if diff.size else 0.0
    max_ref = float(np.max(np.abs(ref))) if ref.size else 0.0
    rel = nerr / nref if nref > 0 else nerr
    floor = nfloor / nref if nref > 0 else 0.0
    return {"status": "ok", "rel_l2": rel,
            "max_abs_over_max_ref": max_err / max_ref if max_ref > 0 else max_err,
            "floor_rel_l2": floor, "err_over_floor": rel / floor if floor > 0 else 0.0}


def accuracy_entry(row: str, decay: str, tensor: str, errors: dict, heads) -> dict:
    """One accuracy[] entry of our schema (NaN/Inf figures -> null)."""
    def fig(x):
        return float(x) if x is not None and math.isfinite(x) else None

    e = {"row": row, "decay": decay, "tensor": tensor, "status": errors["status"],
         "rel_l2": fig(errors["rel_l2"]),
         "max_abs_over_max_ref": fig(errors["max_abs_over_max_ref"]),
         "floor_rel_l2": fig(errors["floor_rel_l2"]),
         "err_over_floor": fig(errors["err_over_floor"]),
         "heads_checked": [int(h) for h in heads]}
    if errors.get("note"):
        e["note"] = errors["note"]
    return e


def per_head_errors(dump: dict, fla: dict, ours: dict) -> list:
    """Each checked head's error in the per-head tensors (dA_log, ddt_bias), FLA's and ours side by
    side: the rel-L2 over a whole row hides one head's failure among the others, and dA_log's
    cancellation differs from head to head (docs/backward-design.md). Returns [{"tensor", "head",
    "ref_norm", "fla", "ours"}]: rel-L2 of that head (|err| / |ref| for dA_log), None where that
    side has no output."""
    import numpy as np

    rows = []
    for name in HEAD_FIRST:
        if name not in dump["refs"]:
            continue
        ref = np.asarray(dump["refs"][name], dtype=np.float64)
        sides = {}
        for side, outs in (("fla", fla), ("ours", ours)):
            if name in outs:
                sides[side] = np.asarray(select_heads(outs[name], dump["ref_heads"], name), dtype=np.float64)
        for i, head in enumerate(dump["ref_heads"]):
            r = ref[i].reshape(-1)
            nref = math.sqrt(float(np.sum(r * r)))
            e = {"tensor": name, "head": int(head), "ref_norm": nref}
            for side in ("fla", "ours"):
                if side not in sides:
                    e[side] = None
                    continue
                diff = sides[side][i].reshape(-1) - r
                nerr = math.sqrt(float(np.sum(diff * diff)))
                e[side] = nerr / nref if nref > 0 else nerr
            rows.append(e)
    return rows


def print_per_head(dump: dict, rows: list, stream) -> None:
    """The per_head_errors table of one dump, a line per (tensor, head), with FLA / ours."""
    if not rows:
        return
    m = dump["manifest"]
    print(f"per-head errors, {m['row']} ({m['decay']} decay): rel-L2 of each head", file=stream)
    print(f"  {'tensor':9s} {'head':>4s} {'|ref|':>10s} {'FLA':>10s} {'ours':>10s} {'ours/FLA':>9s}", file=stream)

    def fig(x, fmt, width):
        return format(x, fmt) if x is not None else "-".rjust(width)

    for e in rows:
        ratio = e["ours"] / e["fla"] if e["ours"] is not None and e["fla"] else None
        print(f"  {e['tensor']:9s} {e['head']:4d} {e['ref_norm']:10.3e} {fig(e['fla'], '10.3e', 10)} "
              f"{fig(e['ours'], '10.3e', 10)} {fig(ratio, '9.2f', 9)}", file=stream)


def check_outputs(dump: dict, outputs: dict) -> list:
    """accuracy[] entries for every reference in the dump that FLA produced an output for.
    `outputs`: {tensor name: numpy array in the full (all heads) layout}."""
    entries = []
    m = dump["manifest"]
    order = ("o", "dq", "dk", "dv", "dbeta", "dg", "dx", "dA_log", "ddt_bias")
    for name in order:
        if name not in dump["refs"] or name not in outputs:
            continue
        ref = dump["refs"][name]
        got = select_heads(outputs[name], dump["ref_heads"], name)
        errs = tensor_errors(name, got, ref, output_dtype(name), heads=dump["ref_heads"])
        entries.append(accuracy_entry(m["row"], m["decay"], name, errs, dump["ref_heads"]))
    return entries


# ---------------------------------------------------------------------------------------------
# Timing statistics and the results document (standard library only)
# ---------------------------------------------------------------------------------------------

def _quantile(sorted_xs, q):
    """Linear interpolation between closest ranks (numpy's default)."""
    n = len(sorted_xs)
    pos = q * (n - 1)
    lo = int(math.floor(pos))
    hi = min(lo + 1, n - 1)
    return sorted_xs[lo] + (sorted_xs[hi] - sorted_xs[lo]) * (pos - lo)


def timing_entry(row: str, op: str, samples_ms) -> dict:
    if op not in OPS:
        raise ValueError(f"op '{op}' (valid: {', '.join(OPS)})")
    xs = [float(x) for x in samples_ms]
    if not xs:
        raise ValueError("no samples")
    s = sorted(xs)
    return {"row": row, "op": op, "median_ms": _quantile(s, 0.5), "min_ms": s[0], "max_ms": s[-1],
            "iqr_ms": _quantile(s, 0.75) - _quantile(s, 0.25), "samples_ms": xs}


def harness_version() -> str:
    try:
        text = (REPO_ROOT / "CMakeLists.txt").read_text(encoding="utf-8")
        m = re.search(r"project\(\s*\w+\s+VERSION\s+([0-9.]+)", text)
        if m:
            return m.group(1)
    except OSError:
        pass
    return "unknown"


def git_revision() -> str:
    try:
        r = subprocess.run(["git", "-C", str(REPO_ROOT), "rev-parse", "--short=12", "HEAD"],
                           capture_output=True, text=True, timeout=10)
        return r.stdout.strip() if r.returncode == 0 else ""
    except (OSError, subprocess.SubprocessError):
        return ""


def make_context(*, gpu: dict, fla_version: str, seed: int, samples: int, calls: int, warmup: int,
                 command_line: str, date: str | None = None, host: str | None = None) -> dict:
    """context of our schema. `gpu`: name, gpu_class, arch, sm_count, driver, cuda_runtime, nvcc."""
    for key in ("name", "gpu_class", "arch", "sm_count", "driver", "cuda_runtime", "nvcc"):
        if key not in gpu:
            raise ValueError(f"gpu info lacks '{key}'")
    return {
        "date": date or datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "host": host or socket.gethostname(),
        "command_line": command_line,
        "seed": int(seed),
        "gpu": {k: gpu[k] for k in ("name", "gpu_class", "arch", "sm_count", "driver",
                                     "cuda_runtime", "nvcc")},
        "kernel_library": {"path": f"fla {fla_version}",
                           "build_id": f"flash-linear-attention {fla_version}",
                           "git_revision": ""},
        "harness": {"version": harness_version(), "git_revision": git_revision()},
        "method": {"samples": int(samples), "calls_per_sample": int(calls), "warmup": int(warmup),
                   "l2": "warm", "launch": "eager"},
    }


def make_results(context: dict, timing: list, accuracy: list) -> dict:
    return {"schema_version": SCHEMA_VERSION, "context": context, "timing": list(timing),
            "accuracy": list(accuracy), "determinism": []}


def _no_nan(obj):
    """JSON has no NaN: non-finite floats become null."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: _no_nan(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_no_nan(v) for v in obj]
    return obj


def write_json_atomic(path, doc: dict, force: bool = False) -> None:
    """Write `doc` to `path` via `<path>.tmp.<pid>` and os.replace; refuse an existing file
    unless `force`. Parent directories are created."""
    p = Path(path)
    if p.exists() and not force:
        raise PeerError(f"{p}: exists; pass --force to overwrite")
    if p.parent and not p.parent.exists():
        p.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(f"{p}.tmp.{os.getpid()}")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(_no_nan(doc), f, indent=2, allow_nan=False)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, p)
    except BaseException:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise


# ---------------------------------------------------------------------------------------------
# torch / FLA side (imported only here)
# ---------------------------------------------------------------------------------------------

def fla_chunk_kda():
    """(chunk_kda, version, accepted parameter names, takes **kwargs) from the installed fla."""
    import inspect

    try:
        import fla  # noqa: F401
        from fla.ops.kda import chunk_kda
    except ImportError as e:
        raise PeerError(f"cannot import fla.ops.kda.chunk_kda ({e}); install flash-linear-attention "
                        "(docs/fla-peer.md)") from None
    version = getattr(fla, "__version__", None)
    if version is None:
        try:
            from importlib.metadata import version as dist_version
            version = dist_version("flash-linear-attention")
        except Exception:
            version = "unknown"
    fn = chunk_kda
    sig = inspect.signature(inspect.unwrap(fn))
    params = sig.parameters
    var_kw = any(p.kind == inspect.Parameter.VAR_KEYWORD for p in params.values())
    required = ("q", "k", "v", "g", "beta", "scale", "use_qk_l2norm_in_kernel",
                "use_gate_in_kernel", "cu_seqlens", "disable_recompute")
    missing = [n for n in required if n not in params]
    if not var_kw:
        missing += [n for n in ("A_log", "dt_bias") if n not in params]
    if missing:
        raise PeerError(f"fla {version}: chunk_kda{sig} lacks the argument(s) {', '.join(missing)} "
                        "this peer needs (written for flash-linear-attention 0.6.0)")
    return fn, version, set(params), var_kw


def gpu_info() -> dict:
    import torch

    if not torch.cuda.is_available():
        raise PeerError("no CUDA device (torch.cuda.is_available() is False)")
    props = torch.cuda.get_device_properties(0)
    name = props.name
    short = name[len("NVIDIA "):] if name.startswith("NVIDIA ") else name
    cc = f"sm_{props.major}{props.minor}"
    # `arch` is what the kernels were built for: Triton targets the arch-specific sm_90a/sm_100a
    # from capability 9.0 on (its sm_arch_from_capability), as our -gencode does.
    arch = cc + ("a" if props.major >= 9 else "")
    driver = ""
    try:
        r = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=20)
        if r.returncode == 0:
            driver = r.stdout.strip().splitlines()[0].strip()
    except (OSError, subprocess.SubprocessError, IndexError):
        pass
    try:
        import triton
        nvcc = f"triton {triton.__version__}"
    except ImportError:
        nvcc = ""
    return {"name": name, "gpu_class": f"{short} ({cc}, {props.multi_processor_count} SMs)",
            "arch": arch, "sm_count": int(props.multi_processor_count), "driver": driver,
            "cuda_runtime": str(torch.version.cuda or ""), "nvcc": nvcc}


class FlaRow:
    """FLA chunk_kda bound to one dump's inputs, on CUDA."""

    def __init__(self, dump: dict, fn, params: set, var_kw: bool):
        import torch

        self.torch = torch
        self.fn = fn
        self.dump = dump
        m = dump["manifest"]
        inp = dump["inputs"]
        dev = torch.device("cuda")
        self.raw = m["gate"] == "raw"
        H, K = m["dims"]["heads"], m["dims"]["k_dim"]

        def bf16(a):
            t = torch.from_numpy(a.astype("float32")).to(dev).to(torch.bfloat16)
            return t.unsqueeze(0).contiguous().requires_grad_(True)

        def fp32(a, batch=True):
            t = torch.from_numpy(a.astype("float32")).to(dev)
            return (t.unsqueeze(0) if batch else t).contiguous().requires_grad_(True)

        self.q, self.k, self.v = bf16(inp["q"]), bf16(inp["k"]), bf16(inp["v"])
        self.beta = bf16(inp["beta"])
        self.gate = fp32(inp["x" if self.raw else "g"])
        self.do = torch.from_numpy(inp["do"].astype("float32")).to(dev).to(torch.bfloat16).unsqueeze(0)
        self.leaves = [self.q, self.k, self.v, self.beta, self.gate]
        self.names = ["dq", "dk", "dv", "dbeta", "dx" if self.raw else "dg"]
        self.kwargs = {
            "scale": K ** -0.5,
            "use_qk_l2norm_in_kernel": m["l2n"] == "fused",
            "use_gate_in_kernel": self.raw,
            "cu_seqlens": torch.from_numpy(inp["cu_seqlens"].astype("int64")).to(dev),
            "disable_recompute": dump["path"] == "saved",
        }
        if "cu_seqlens_cpu" in params:
            self.kwargs["cu_seqlens_cpu"] = torch.from_numpy(inp["cu_seqlens"].astype("int64"))
        if self.raw:
            self.A_log = fp32(inp["A_log"], batch=False)
            # FLA takes dt_bias flat [H * K]; the dump holds [H, K].
            self.dt_bias = torch.from_numpy(inp["dt_bias"].reshape(H * K).astype("float32")).to(dev)
            self.dt_bias.requires_grad_(True)
            self.kwargs["A_log"] = self.A_log
            self.kwargs["dt_bias"] = self.dt_bias
            self.leaves += [self.A_log, self.dt_bias]
            self.names += ["dA_log", "ddt_bias"]

    def forward(self):
        out = self.fn(self.q, self.k, self.v, self.gate, self.beta, **self.kwargs)
        return out[0] if isinstance(out, (tuple, list)) else out

    def backward(self, o, retain):
        return self.torch.autograd.grad(o, self.leaves, self.do, retain_graph=retain)

    def fwd_bwd(self):
        return self.backward(self.forward(), retain=False)

    def outputs(self) -> dict:
        """All of FLA's outputs of this row as full-layout numpy arrays (float32)."""
        torch = self.torch
        o = self.forward()
        grads = self.backward(o, retain=False)
        res = {"o": o.detach().float().squeeze(0).cpu().numpy()}
        H, K = self.dump["manifest"]["dims"]["heads"], self.dump["manifest"]["dims"]["k_dim"]
        for name, g in zip(self.names, grads):
            if g is None:
                continue
            a = g.detach().float()
            if name == "ddt_bias":
                a = a.reshape(H, K)
            elif name != "dA_log":
                a = a.squeeze(0)
            res[name] = a.cpu().numpy()
        torch.cuda.synchronize()
        return res

    def time_op(self, op: str, samples: int, calls: int, warmup: int) -> list:
        """Our method: `warmup` calls, then `samples` samples of `calls` back-to-back calls between
        two CUDA events; a sample is their time / calls, in ms."""
        torch = self.torch
        saved = None
        if op == "fwd":
            call = self.forward
        elif op == "bwd":
            saved = self.forward()
            call = lambda: self.backward(saved, retain=True)  # noqa: E731
        else:
            call = self.fwd_bwd
        for _ in range(warmup):
            call()
        torch.cuda.synchronize()
        out = []
        for _ in range(samples):
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(calls):
                call()
            end.record()
            end.synchronize()
            out.append(start.elapsed_time(end) / calls)
        del saved
        return out


def run(args) -> dict:
    dumps = [load_dump(d) for d in args.dump]
    fn, version, params, var_kw = fla_chunk_kda()
    gpu = gpu_info()
    ops = [o.strip() for o in args.ops.split(",") if o.strip()]
    for o in ops:
        if o not in OPS:
            raise PeerError(f"--ops: unknown op '{o}' (valid: {', '.join(OPS)})")
    timing, accuracy, timed = [], [], set()
    for dump in dumps:
        row = dump["row"]
        print(f"fla_peer: {row} ({dump['manifest']['decay']} decay) from {dump['dir']}", file=sys.stderr)
        peer = FlaRow(dump, fn, params, var_kw)
        if not args.no_check and dump["refs"]:
            outputs = peer.outputs()
            accuracy += check_outputs(dump, outputs)
            if args.per_head:
                print_per_head(dump, per_head_errors(dump, outputs, load_head_first_outputs(dump)), sys.stdout)
        if not args.no_timing and row not in timed:  # one (row, op) per file
            timed.add(row)
            for op in ops:
                xs = peer.time_op(op, args.samples, args.calls, args.warmup)
                e = timing_entry(row, op, xs)
                timing.append(e)
                print(f"  {op:8s} median {e['median_ms']:.4f} ms", file=sys.stderr)
        del peer
    context = make_context(gpu=gpu, fla_version=version, seed=dumps[0]["manifest"]["seed"],
                           samples=args.samples, calls=args.calls, warmup=args.warmup,
                           command_line=" ".join(shlex.quote(a) for a in sys.argv))
    return make_results(context, timing, accuracy)


def parse_args(argv=None):
    p = argparse.ArgumentParser(
        description="Run FLA chunk_kda (installed fla package) on kda-bench dumps: time fwd, bwd, "
                    "fwd+bwd with our method and check against the dump's FP64 reference; writes a "
                    "results JSON (schema_version 1) for `kda-bench table`.")
    p.add_argument("--dump", action="append", required=True, metavar="DIR",
                   help="a kda-bench --dump folder (repeatable; one row and decay each)")
    p.add_argument("--out", required=True, metavar="FILE", help="results JSON to write")
    p.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    p.add_argument("--ops", default="fwd,bwd,fwd+bwd", help="ops to time (default: %(default)s)")
    p.add_argument("--samples", type=int, default=15, help="samples per (row, op) (default: %(default)s)")
    p.add_argument("--calls", type=int, default=20,
                   help="back-to-back calls per sample; a sample is their mean (default: %(default)s)")
    p.add_argument("--warmup", type=int, default=3, help="calls before measuring (default: %(default)s)")
    p.add_argument("--no-timing", action="store_true", help="only check accuracy")
    p.add_argument("--no-check", action="store_true", help="only time")
    p.add_argument("--per-head", action="store_true",
                   help="also print each checked head's error in dA_log and ddt_bias, FLA's beside "
                        "kda-bench's own outputs from the dump")
    args = p.parse_args(argv)
    for name in ("samples", "calls"):
        if getattr(args, name) < 1:
            p.error(f"--{name} must be at least 1")
    if args.warmup < 0:
        p.error("--warmup must be >= 0")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        if Path(args.out).exists() and not args.force:  # fail before minutes of autotuning
            raise PeerError(f"{args.out}: exists; pass --force to overwrite")
        doc = run(args)
        write_json_atomic(args.out, doc, force=args.force)
    except PeerError as e:
        print(f"fla_peer: error: {e}", file=sys.stderr)
        return 1
    print(f"fla_peer: wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
