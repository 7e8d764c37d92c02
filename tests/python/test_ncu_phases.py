"""CPU tests of scripts/ncu_phases.py's pure parts (no cuobjdump, nvdisasm or GPU): disassembly
parsing, phase attribution, the same-build check and the printed report, on a synthetic
`nvdisasm -g` text and a matching ncu CSV. Run: python3 -m unittest -v tests/python/test_ncu_phases.py"""
import contextlib
import csv
import gzip
import io
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from tests.python.script_loader import load_script, script_path

SCRIPT = script_path("ncu_phases")
ncu_phases = load_script("ncu_phases")

KERNEL = "bwd_grad_kernelILb0ELb0E"
SOURCE, FIRST_LINE = "grad.cu", 196
PHASES_SPEC = "loads:196-313,3a:314-347,store:348-400"
PHASES = [("loads", 196, 313), ("3a", 314, 347), ("store", 348, 400)]

GRAD = '\t//## File "/x/kernels/bwd/grad.cu", line {}'
MMA = '\t//## File "/x/kernels/common/mma.cuh", line {}'

# Three sections: another instantiation of the same kernel (before ours, with lines inside the
# phases), ours, and another kernel after it. Comments after '#' name the expected
# (body line, innermost (file, line)) of each instruction of ours; they are stripped below.
DISASM = "\n".join(line.split("  #")[0].rstrip() for line in [
    '\t.headerflags\t@"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"',
    '\t.section\t.text._ZN3kda15bwd_grad_kernelILb1ELb0EEEvNS_9BwdParamsE,"ax",@progbits',
    ".text._ZN3kda15bwd_grad_kernelILb1ELb0EEEvNS_9BwdParamsE:",
    GRAD.format(250),
    "        /*0000*/                   LDC R1, c[0x0][0x28] ;",
    "        /*0010*/                   EXIT ;",
    '\t.section\t.text._ZN3kda15bwd_grad_kernelILb0ELb0EEEvNS_9BwdParamsE,"ax",@progbits',
    ".text._ZN3kda15bwd_grad_kernelILb0ELb0EEEvNS_9BwdParamsE:",
    GRAD.format(120),  # a helper above the body, before any body line
    "        /*0000*/                   LDC R1, c[0x0][0x28] ;  # 0: None, grad.cu:120",
    "        /* 0x000fe40000000f00 */",  # an encoding, not an instruction
    "        /*0010*/                   S2R R0, SR_TID.X ;  # 1: None, grad.cu:120",
    GRAD.format(200),
    "        /*0020*/                   ULDC.64 UR4, c[0x0][0x208] ;  # 2: 200, grad.cu:200",
    MMA.format(55),
    "        /*0030*/                   LDSM.16.M88.4 R4, [R2] ;  # 3: 200, mma.cuh:55",
    MMA.format(330),  # inside 3a's range, but another file: stays with line 200
    "        /*0040*/                   HMMA.16816.F32.BF16 R8, R4, R6, R8 ;  # 4: 200, mma.cuh:330",
    GRAD.format(320),
    "        /*0050*/                   FMUL R9, R9, R10 ;  # 5: 320, grad.cu:320",
    GRAD.format(150),  # a helper above the body: stays with line 320
    "        /*0060*/                   FADD R9, R9, R11 ;  # 6: 320, grad.cu:150",
    MMA.format(60),
    "        /*0070*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;  # 7: 320, mma.cuh:60",
    "        // /*0078*/                NOP ;",  # commented out, not an instruction
    GRAD.format(360),
    "        /*0080*/                   STG.E [R2.64], R9 ;  # 8: 360, grad.cu:360",
    GRAD.format(500),  # body, but in no phase
    "        /*0090*/                   EXIT ;  # 9: 500, grad.cu:500",
    ".L_x_0:",
    "        /*00a0*/                   BRA `(.L_x_0) ;  # 10: 500, grad.cu:500",
    '\t.section\t.text._ZN3kda16bwd_state_kernelILb0EEEvNS_9BwdParamsE,"ax",@progbits',
    ".text._ZN3kda16bwd_state_kernelILb0EEEvNS_9BwdParamsE:",
    GRAD.format(300),
    "        /*0000*/                   LDC R1, c[0x0][0x28] ;",
    "        /*0010*/                   EXIT ;",
    "",
])

EXPECTED_INSNS = [
    (None, ("grad.cu", 120)), (None, ("grad.cu", 120)),
    (200, ("grad.cu", 200)), (200, ("mma.cuh", 55)), (200, ("mma.cuh", 330)),
    (320, ("grad.cu", 320)), (320, ("grad.cu", 150)), (320, ("mma.cuh", 60)),
    (360, ("grad.cu", 360)),
    (500, ("grad.cu", 500)), (500, ("grad.cu", 500)),
]

HEADER = ["Address", "Source", "Warp Stall Sampling (All Samples)",
          "Warp Stall Sampling (Not-issued Samples)", "Instructions Executed",
          "stall_barrier", "stall_long_sb", "stall_math",
          "stall_barrier (Not Issued)", "stall_long_sb (Not Issued)"]
# (samples, executed, barrier, long_sb, math) per instruction of ours; samples = the three reasons.
# "" is how ncu leaves a zero count out.
COUNTS = [("", 1, "", "", ""), (2, 1, 0, 2, 0),
          (6, 10, 0, 5, 1), (30, 40, 0, 30, 0), (8, 40, 0, 0, 8),
          (4, 20, 0, 0, 4), (3, 20, 0, 0, 3), (50, 5, 50, 0, 0),
          (12, 8, 0, 12, 0),
          (1, 1, 0, 0, 1), (0, 0, 0, 0, 0)]
# The "(Not Issued)" columns are large so that counting them would show in every sum.
DATA = [[f"0x{16 * i:x}", "SASS", s, 1000, e, b, l, m, 1000, 1000]
        for i, (s, e, b, l, m) in enumerate(COUNTS)]
DATA = [[str(v) for v in row] for row in DATA]


def write_csv(path, rows):
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "wt", newline="") as f:
        w = csv.writer(f)
        w.writerow([f'"{KERNEL}" (1, 1, 1)x(1, 1, 1)'])  # row 0 names the kernel
        w.writerow(HEADER)
        w.writerows(rows)


class ParseTest(unittest.TestCase):
    def test_parse_phases(self):
        self.assertEqual(ncu_phases.parse_phases(PHASES_SPEC), PHASES)
        self.assertEqual(ncu_phases.parse_phases("all:1-9"), [("all", 1, 9)])

    def test_instructions_of_kernel(self):
        self.assertEqual(ncu_phases.instructions_of(DISASM, KERNEL, SOURCE, FIRST_LINE), EXPECTED_INSNS)

    def test_kernel_substring_picks_its_section_only(self):
        other = ncu_phases.instructions_of(DISASM, "bwd_grad_kernelILb1ELb0E", SOURCE, FIRST_LINE)
        self.assertEqual(other, [(250, ("grad.cu", 250))] * 2)
        self.assertEqual(ncu_phases.instructions_of(DISASM, "no_such_kernel", SOURCE, FIRST_LINE), [])

    def test_first_line_decides_what_is_body(self):
        # With the body starting at line 100, the helper at 120 and 150 become body lines.
        insns = ncu_phases.instructions_of(DISASM, KERNEL, SOURCE, 100)
        self.assertEqual([b for b, _ in insns], [120, 120, 200, 200, 200, 320, 150, 150, 360, 500, 500])

    def test_other_source_file_is_never_body(self):
        # Named as the source, mma.cuh's lines become body lines and grad.cu's none.
        insns = ncu_phases.instructions_of(DISASM, KERNEL, "mma.cuh", FIRST_LINE)
        self.assertEqual([b for b, _ in insns], [None] * 4 + [330] * 7)


class AttributeTest(unittest.TestCase):
    def setUp(self):
        self.a = ncu_phases.attribute(EXPECTED_INSNS, HEADER, DATA, PHASES)

    def test_samples_per_phase(self):
        self.assertEqual(dict(self.a.samples), {"loads": 44, "3a": 57, "store": 12, "other": 3})

    def test_executed_per_phase(self):
        self.assertEqual(dict(self.a.executed), {"loads": 90, "3a": 45, "store": 8, "other": 3})

    def test_reasons_per_phase_exclude_not_issued(self):
        r = {p: dict(c) for p, c in self.a.by_reason.items()}
        self.assertEqual(r, {
            "loads": {"barrier": 0, "long_sb": 35, "math": 9},
            "3a": {"barrier": 50, "long_sb": 0, "math": 7},
            "store": {"barrier": 0, "long_sb": 12, "math": 0},
            "other": {"barrier": 0, "long_sb": 2, "math": 1},
        })
        # The reasons add up to the samples: no "(Not Issued)" column was counted.
        for p, c in self.a.by_reason.items():
            self.assertEqual(sum(c.values()), self.a.samples[p])

    def test_samples_per_innermost_line(self):
        self.assertEqual(dict(self.a.by_line), {
            ("grad.cu", 120): 2, ("grad.cu", 200): 6, ("mma.cuh", 55): 30, ("mma.cuh", 330): 8,
            ("grad.cu", 320): 4, ("grad.cu", 150): 3, ("mma.cuh", 60): 50, ("grad.cu", 360): 12,
            ("grad.cu", 500): 1,
        })

    def test_samples_per_body_line(self):
        self.assertEqual(dict(self.a.by_body), {None: 2, 200: 44, 320: 57, 360: 12, 500: 1})
        self.assertEqual(dict(self.a.body_executed), {None: 2, 200: 90, 320: 45, 360: 8, 500: 1})
        self.assertEqual(dict(self.a.body_reasons[320]), {"barrier": 50, "long_sb": 0, "math": 7})
        # Every body line's reasons add up to its samples, as the phases' do.
        for body, c in self.a.body_reasons.items():
            self.assertEqual(sum(c.values()), self.a.by_body[body])

    def test_instruction_without_line_info_is_other(self):
        a = ncu_phases.attribute([(None, None)], HEADER, DATA[3:4], PHASES)
        self.assertEqual(dict(a.samples), {"other": 30})
        self.assertEqual(dict(a.by_line), {None: 30})

    def test_row_count_must_match_disassembly(self):
        for data in (DATA[:-1], DATA + DATA[-1:]):
            with self.assertRaises(SystemExit) as cm:
                ncu_phases.attribute(EXPECTED_INSNS, HEADER, data, PHASES)
            self.assertIn("not the same build", str(cm.exception.code))
            self.assertIn(f"{len(data)} instructions in the profile, 11 in the disassembly", str(cm.exception.code))


class MainTest(unittest.TestCase):
    """main() end to end, with disassemble() answered from DISASM instead of the CUDA tools."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def run_main(self, csv_path, *extra):
        def fake_disassemble(lib, kernel, source, first_line):
            return ncu_phases.instructions_of(DISASM, kernel, source, first_line)

        argv = ["ncu_phases.py", "libkda.so", KERNEL, str(csv_path), SOURCE, str(FIRST_LINE), PHASES_SPEC, *extra]
        out = io.StringIO()
        with mock.patch.object(ncu_phases, "disassemble", fake_disassemble), \
                mock.patch.object(sys, "argv", argv), contextlib.redirect_stdout(out):
            rc = ncu_phases.main()
        return rc, out.getvalue().splitlines()

    def test_report(self):
        for name in ("p.csv", "p.csv.gz"):
            path = self.dir / name
            write_csv(path, DATA)
            rc, lines = self.run_main(path)
            self.assertEqual(rc, 0)
            self.assertEqual(lines[0], f"{KERNEL}: 11 instructions, 116 stall samples")
            self.assertEqual(lines[1], "loads          samples  37.9 %  instructions  61.6 %  "
                                       "| long_sb 30.2 math 7.8 barrier 0.0")
            self.assertEqual(lines[2], "3a             samples  49.1 %  instructions  30.8 %  "
                                       "| barrier 43.1 math 6.0 long_sb 0.0")
            self.assertEqual(lines[3], "store          samples  10.3 %  instructions   5.5 %  "
                                       "| long_sb 10.3 barrier 0.0 math 0.0")
            self.assertEqual(lines[4], "other          samples   2.6 %  instructions   2.1 %  "
                                       "| long_sb 1.7 math 0.9 barrier 0.0")
            self.assertEqual(lines[5], "reasons: barrier 43.1 long_sb 42.2 math 14.7")
            self.assertEqual(lines[6], "lines: mma.cuh:60 43.1, mma.cuh:55 25.9, grad.cu:360 10.3, "
                                       "mma.cuh:330 6.9, grad.cu:200 5.2, grad.cu:320 3.4, grad.cu:150 2.6, "
                                       "grad.cu:120 1.7, grad.cu:500 0.9")
            self.assertEqual(len(lines), 7)

    def test_body_lines(self):
        path = self.dir / "p.csv"
        write_csv(path, DATA)
        rc, lines = self.run_main(path, "--body-lines", "2")
        self.assertEqual(rc, 0)
        self.assertEqual(len(lines), 10)  # the default report, then a title and two lines
        self.assertEqual(lines[7], "body lines of grad.cu (code inlined from elsewhere counts for the line that called it):")
        self.assertEqual(lines[8], "   320  samples  49.1 %  instructions  30.8 %  | barrier 43.1 math 6.0 long_sb 0.0")
        self.assertEqual(lines[9], "   200  samples  37.9 %  instructions  61.6 %  | long_sb 30.2 math 7.8 barrier 0.0")

    def test_other_build_is_refused(self):
        path = self.dir / "p.csv"
        write_csv(path, DATA[:-1])
        with self.assertRaises(SystemExit) as cm:
            self.run_main(path)
        self.assertEqual(cm.exception.code,
                         "10 instructions in the profile, 11 in the disassembly: not the same build")


if __name__ == "__main__":
    unittest.main()
