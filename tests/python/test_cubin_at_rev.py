"""CPU tests of scripts/cubin_at_rev.py's command rewriting (no git, nvcc or GPU): a compile
command as CMake writes it into compile_commands.json, made a cubin command for a worktree.
Run: python3 -m unittest -v tests/python/test_cubin_at_rev.py"""
import unittest

from tests.python.script_loader import load_script

cubin_at_rev = load_script("cubin_at_rev")

REPO, TREE, BUILD = "/work/main", "/tmp/x/tree", "/work/main/build"
COMMAND = (
    "/usr/local/cuda/bin/nvcc -forward-unknown-to-host-compiler -DKDA_BUILDING_LIBRARY "
    '-DKDA_CUDA_ARCHS=\\"90a\\" -Dkda_EXPORTS -I/work/main/kernels/include -I/work/main/kernels '
    "-I/work/main/build/kernels/generated -isystem=/usr/local/cuda/include -O3 -DNDEBUG "
    "--generate-code=arch=compute_90a,code=[compute_90a,sm_90a] -Xcompiler=-fPIC "
    "-Xcompiler=-Wall,-Wextra,-ffp-contract=off --expt-relaxed-constexpr -lineinfo -std=c++17 "
    "-x cu -c /work/main/kernels/bwd/grad.cu -o kernels/CMakeFiles/kda.dir/bwd/grad.cu.o")


class CubinCommandTest(unittest.TestCase):
    def setUp(self):
        self.cmd = cubin_at_rev.cubin_command(COMMAND, REPO, TREE, BUILD, "kernels/bwd/grad.cu", "/o/g.cubin")

    def test_compiles_the_worktree_copy_to_the_cubin(self):
        self.assertEqual(self.cmd[-6:], ["-x", "cu", "-cubin", "/tmp/x/tree/kernels/bwd/grad.cu", "-o", "/o/g.cubin"])
        self.assertNotIn("-c", self.cmd)
        self.assertIn("/tmp/x/tree/kernels/bwd/grad.cu", self.cmd)
        self.assertNotIn("/work/main/kernels/bwd/grad.cu", self.cmd)
        self.assertNotIn("kernels/CMakeFiles/kda.dir/bwd/grad.cu.o", self.cmd)

    def test_one_real_architecture(self):
        self.assertIn("-arch=sm_90a", self.cmd)
        self.assertFalse(any(a.startswith("--generate-code") for a in self.cmd))

    def test_include_paths_follow_the_worktree_but_the_build_stays(self):
        self.assertIn("-I/tmp/x/tree/kernels/include", self.cmd)
        self.assertIn("-I/tmp/x/tree/kernels", self.cmd)
        self.assertIn("-I/work/main/build/kernels/generated", self.cmd)
        self.assertIn("-isystem=/usr/local/cuda/include", self.cmd)

    def test_flags_and_definitions_are_kept(self):
        for flag in ("-O3", "-DNDEBUG", '-DKDA_CUDA_ARCHS="90a"', "--expt-relaxed-constexpr", "-std=c++17",
                     "-Xcompiler=-Wall,-Wextra,-ffp-contract=off", "-lineinfo"):
            self.assertIn(flag, self.cmd)
        self.assertEqual(self.cmd.count("-lineinfo"), 1)
        self.assertEqual(self.cmd[0], "/usr/local/cuda/bin/nvcc")

    def test_lineinfo_added_when_the_build_has_none(self):
        cmd = cubin_at_rev.cubin_command(COMMAND.replace(" -lineinfo", ""), REPO, TREE, BUILD,
                                         "kernels/bwd/grad.cu", "/o/g.cubin")
        self.assertEqual(cmd.count("-lineinfo"), 1)

    def test_architecture_list_without_a_real_one_is_refused(self):
        with self.assertRaises(SystemExit) as cm:
            cubin_at_rev.cubin_command(COMMAND.replace("code=[compute_90a,sm_90a]", "code=[compute_90a]"),
                                       REPO, TREE, BUILD, "kernels/bwd/grad.cu", "/o/g.cubin")
        self.assertIn("no real architecture", str(cm.exception.code))


if __name__ == "__main__":
    unittest.main()
