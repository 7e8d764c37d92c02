"""CPU tests of scripts/kernel_static.py's pure parts (no cuobjdump): the resource-usage and SASS
parsers, kernel names, the rows and the table with and without --before, on synthetic listings in
cuobjdump's format. Run: python3 -m unittest -v tests/python/test_kernel_static.py"""
import contextlib
import io
import sys
import unittest
from unittest import mock

from tests.python.script_loader import load_script

ks = load_script("kernel_static")

GRAD = "_ZN3kda3dev12_GLOBAL__N_115bwd_grad_kernelILb1ELb0EEEvNS0_15bwd_grad_paramsE"
INTRA = "_ZN3kda3dev12_GLOBAL__N_116fwd_intra_kernelILb0ELb0EEEvNS0_16fwd_intra_paramsE"

RESOURCES = f"""
Fatbin elf code:
================
arch = sm_90a
Resource usage:
 Common:
  GLOBAL:0
 Function {GRAD}:
  REG:128 STACK:56 SHARED:1024 LOCAL:0 CONSTANT[0]:688 TEXTURE:0 SURFACE:0 SAMPLER:0
 Function {INTRA}:
  REG:115 STACK:8 SHARED:1024 LOCAL:0 CONSTANT[0]:688 TEXTURE:0 SURFACE:0 SAMPLER:0
"""


def insn(addr, text):
    return f"        /*{addr:04x}*/                   {text} ;          /* 0x000000000000000000 */\n" \
           "                                                       /* 0x000fe20000000000 */"


SASS = "\n".join([
    f"\t\tFunction : {GRAD}",
    '\t.headerflags\t@"EF_CUDA_SM90"',
    insn(0x00, "LDC R1, c[0x0][0x28]"),
    insn(0x10, "HMMA.1688.F32.TF32 R4, R8, R12, R4"),
    insn(0x20, "@!P0 STL [R1+0x8], R3"),
    insn(0x30, "@P1 LDL.64 R2, [R1+0x8]"),
    insn(0x40, "MUFU.EX2 R5, R5"),
    insn(0x50, "BAR.SYNC.DEFER_BLOCKING 0x0"),
    insn(0x60, "@UPT HMMA.16816.F32.BF16 R4, R8, R12, R4"),
    insn(0x70, "EXIT"),
    insn(0x80, "BRA 0x80"),
    insn(0x90, "NOP"),
    insn(0xa0, "NOP"),
    "\t\t..........",
    f"\t\tFunction : {INTRA}",
    insn(0x00, "HGMMA.64x64x16.F32.BF16 R24, gdesc[UR4], R24"),
    insn(0x10, "EXIT"),
])

NAMES = {GRAD: "void kda::dev::(anonymous namespace)::bwd_grad_kernel<true, false>(kda::dev::bwd_grad_params)",
         INTRA: "void kda::dev::(anonymous namespace)::fwd_intra_kernel<false, false>(kda::dev::fwd_intra_params)"}


class KernelStaticTest(unittest.TestCase):
    def test_resources_per_function(self):
        res = ks.parse_resources(RESOURCES)
        self.assertEqual(set(res), {GRAD, INTRA})
        self.assertEqual(res[GRAD], {"REG": 128, "STACK": 56, "SHARED": 1024, "LOCAL": 0})
        self.assertEqual(res[INTRA]["REG"], 115)

    def test_sass_counts_base_opcodes_through_predicates(self):
        sass = ks.parse_sass(SASS)
        g = sass[GRAD]
        self.assertEqual(g["HMMA"], 2)  # one predicated with @UPT
        self.assertEqual((g["STL"], g["LDL"], g["MUFU"], g["BAR"], g["NOP"]), (1, 1, 1, 1, 2))
        self.assertEqual(sum(g.values()), 11)
        self.assertEqual(sass[INTRA]["HGMMA"], 1)

    def test_short_names(self):
        self.assertEqual(ks.short_name(NAMES[GRAD]), "bwd_grad_kernel<true, false>")
        self.assertEqual(ks.short_name("kda::dev::(anonymous namespace)::bwd_reduce_kernel(kda::dev::p)"),
                         "bwd_reduce_kernel")
        self.assertEqual(ks.short_name("void ns::k<(int)2>(f<int>(*)())"), "k<(int)2>")
        self.assertEqual(ks.short_name(GRAD), GRAD)  # no c++filt: the mangled name as is

    def test_rows_leave_nop_padding_out(self):
        rows = ks.kernel_rows(ks.parse_resources(RESOURCES), ks.parse_sass(SASS), NAMES)
        self.assertEqual(rows["bwd_grad_kernel<true, false>"],
                         {"REG": 128, "STACK": 56, "insns": 9, "STL": 1, "LDL": 1, "HMMA": 2, "HGMMA": 0,
                          "MUFU": 1, "BAR": 1})
        self.assertEqual(rows["fwd_intra_kernel<false, false>"]["insns"], 2)

    def test_table_alone_and_against_before(self):
        after = ks.kernel_rows(ks.parse_resources(RESOURCES), ks.parse_sass(SASS), NAMES)
        alone = ks.render(after, None, None).splitlines()
        self.assertEqual(alone[0].split(), ["kernel", *ks.COLUMNS])
        self.assertEqual(alone[1].split()[:4], ["bwd_grad_kernel<true,", "false>", "128", "56"])
        before = {k: dict(v) for k, v in after.items()}
        before["bwd_grad_kernel<true, false>"]["insns"] = 12
        before["gone_kernel"] = dict(before["fwd_intra_kernel<false, false>"])
        del before["fwd_intra_kernel<false, false>"]
        text = ks.render(after, before, None)
        self.assertIn("9 (-3)", text)
        self.assertRegex(text, r"gone_kernel +\(only in --before\)")
        self.assertIn("115 (new)", text)
        only_grad = ks.render(after, before, "grad").splitlines()
        self.assertEqual(len(only_grad), 2)

    def test_missing_cuobjdump_is_a_clear_error(self):
        with mock.patch.object(ks.shutil, "which", return_value=None), self.assertRaises(SystemExit) as cm:
            ks.dump("libkda.so")
        self.assertIn("cuobjdump not on PATH", str(cm.exception.code))

    def test_bad_filter_is_refused_before_any_tool_runs(self):
        with mock.patch.object(sys, "argv", ["kernel_static.py", "lib.so", "--filter", "("]), \
                mock.patch.object(ks, "dump") as dump, contextlib.redirect_stderr(io.StringIO()), \
                self.assertRaises(SystemExit) as cm:
            ks.main()
        self.assertIn("bad --filter regex", str(cm.exception.code))
        dump.assert_not_called()


if __name__ == "__main__":
    unittest.main()
