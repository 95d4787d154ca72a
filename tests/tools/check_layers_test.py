#!/usr/bin/env python3
"""tools/check-layers.py refuses what it must: an include that runs up the
layers (from a source or a public header), a cycle between folders of one
layer, a folder in no layer, a private header reached outside its seam, an
opcode or a pattern kind tested by name outside the rows, and an exception
that is no longer needed; and it passes a tree whose includes point down.
The last tests copy the project's own src/ and include/ and add one upward
include, or one test of an opcode, to a real file.

usage: tests/tools/check_layers_test.py ROOT
"""
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(sys.argv.pop(1) if len(sys.argv) > 1 else ".").resolve()
CHECK = ROOT / "tools" / "check-layers.py"


def check(tree):
    result = subprocess.run([sys.executable, str(CHECK), str(tree)],
                            capture_output=True, text=True)
    return result.returncode, result.stdout + result.stderr


class Tree:
    """A temporary library tree written from {relative path: text}."""

    def __init__(self, files):
        self.files = files

    def __enter__(self):
        self.folder = tempfile.TemporaryDirectory()
        root = pathlib.Path(self.folder.name)
        for relative, text in self.files.items():
            path = root / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        return root

    def __exit__(self, *exception):
        self.folder.cleanup()


class CheckLayers(unittest.TestCase):
    def test_passes_includes_that_point_down(self):
        with Tree({"src/core/shape.cpp": '#include <topos/core/shape.hpp>\n',
                   "src/graph/tape.cpp": '#include "ops/op_info.hpp"\n#include <vector>\n',
                   "src/ops/op_info.hpp": '#include "kernels/gemm.hpp"\n',
                   "include/topos/graph/tape.hpp": '#include <topos/core/tensor.hpp>\n',
                   "include/topos/topos.hpp": '#include <topos/model/mlp.hpp>\n'}) as tree:
            status, output = check(tree)
        self.assertEqual(status, 0, output)
        self.assertIn("all pointing down; no cycle", output)

    def test_refuses_a_source_including_a_higher_layer_naming_file_and_line(self):
        with Tree({"src/core/thread_pool.cpp":
                   '#include <vector>\n\n#include "plan/plan_state.hpp"\n'}) as tree:
            status, output = check(tree)
        self.assertEqual(status, 1, output)
        self.assertIn('src/core/thread_pool.cpp:3: includes "plan/plan_state.hpp": core '
                      '(payload) may not include plan (compiler), a higher layer', output)

    def test_refuses_a_public_header_including_a_higher_layer(self):
        with Tree({"include/topos/graph/network.hpp": '#include <topos/run/run.hpp>\n'}) as tree:
            status, output = check(tree)
        self.assertEqual(status, 1, output)
        self.assertIn('include/topos/graph/network.hpp:1: includes "topos/run/run.hpp"', output)

    def test_refuses_a_cycle_between_folders_of_one_layer(self):
        with Tree({"src/run/run.cpp": '#include "autodiff/builders.hpp"\n',
                   "src/autodiff/builders.cpp": '#include "run/interpreter.hpp"\n'}) as tree:
            status, output = check(tree)
        self.assertEqual(status, 1, output)
        self.assertIn("folders include one another in a cycle: autodiff, run", output)
        self.assertIn('src/autodiff/builders.cpp:1: includes "run/interpreter.hpp"', output)
        self.assertIn('src/run/run.cpp:1: includes "autodiff/builders.hpp"', output)

    def test_refuses_a_folder_in_no_layer(self):
        with Tree({"src/extras/thing.cpp": '#include "core/thread_pool.hpp"\n'}) as tree:
            status, output = check(tree)
        self.assertEqual(status, 1, output)
        self.assertIn("folder 'extras' is in no layer", output)

    def test_refuses_an_upward_include_added_to_the_project(self):
        with tempfile.TemporaryDirectory() as folder:
            tree = pathlib.Path(folder)
            shutil.copytree(ROOT / "src", tree / "src")
            shutil.copytree(ROOT / "include", tree / "include")
            status, output = check(tree)
            self.assertEqual(status, 0, output)
            shape = tree / "src" / "core" / "shape.cpp"
            lines = shape.read_text().splitlines()
            shape.write_text("\n".join(lines + ['#include "plan/plan_state.hpp"']) + "\n")
            status, output = check(tree)
        self.assertEqual(status, 1, output)
        self.assertIn(f'src/core/shape.cpp:{len(lines) + 1}: includes "plan/plan_state.hpp"',
                      output)
        # Core now reaches plan, which reaches core: a cycle as well; and
        # plan_state.hpp is plan's seam for emit, not for core.
        self.assertIn("folders include one another in a cycle", output)
        self.assertIn("a private header of plan/ that serves emit", output)
        self.assertIn("check-layers: 3 problems", output)

    def test_refuses_a_private_header_outside_its_seam(self):
        with Tree({"src/ops/movement.hpp": "// a private header of ops\n",
                   "src/ops/op_info.hpp": "// the op table's seam\n",
                   "src/plan/arena.cpp": '#include "ops/op_info.hpp"\n#include "ops/movement.hpp"\n'
                   }) as tree:
            status, output = check(tree)
        self.assertEqual(status, 1, output)
        self.assertIn('src/plan/arena.cpp:2: includes "ops/movement.hpp", a private header of '
                      'ops/ that serves model, pattern', output)
        self.assertNotIn("op_info.hpp", output)
        self.assertIn("check-layers: 1 problem", output)

    def test_refuses_an_opcode_tested_outside_the_rows(self):
        with Tree({"src/plan/simplify.cpp":
                   "if (node.opcode() == Opcode::Leaf) {}\n"
                   "switch (node.opcode()) {\n    case Opcode::Mul:\n}\n",
                   "src/plan/election.cpp": "return match.kind != PatternKind::Map;\n",
                   "src/backend/cuda/elementwise.cu": "struct Formula<Opcode::Tanh> {};\n",
                   "src/ops/mul.cpp": "if (inner.opcode() != Opcode::Mul) {}\n",
                   "src/pattern/map.cpp": "spec.as(index, Opcode::Mul);\n"}) as tree:
            status, output = check(tree)
        self.assertEqual(status, 1, output)
        self.assertIn("src/plan/simplify.cpp:3: tests Opcode::Mul by name", output)
        self.assertIn("src/plan/election.cpp:1: tests PatternKind::Map by name", output)
        self.assertNotIn("Opcode::Leaf", output)
        self.assertNotIn("src/ops/mul.cpp", output)
        self.assertNotIn("src/pattern/map.cpp", output)
        self.assertNotIn("elementwise.cu", output)  # an exception, and it still needs to be
        self.assertIn("check-layers: 2 problems", output)

    def test_refuses_an_exception_no_longer_needed(self):
        with Tree({"src/backend/cuda/device_serve.cpp": "// nothing tested by name here\n"}) as tree:
            status, output = check(tree)
        self.assertEqual(status, 1, output)
        self.assertIn("src/backend/cuda/device_serve.cpp: listed in SWITCH_EXCEPTIONS but tests "
                      "no opcode", output)

    def test_refuses_an_opcode_tested_in_the_plan_of_the_project(self):
        with tempfile.TemporaryDirectory() as folder:
            tree = pathlib.Path(folder)
            shutil.copytree(ROOT / "src", tree / "src")
            shutil.copytree(ROOT / "include", tree / "include")
            plan = tree / "src" / "plan" / "plan.cpp"
            lines = plan.read_text().splitlines()
            plan.write_text("\n".join(lines + ["// case Opcode::Tanh:"]) + "\n")
            status, output = check(tree)
        self.assertEqual(status, 1, output)
        self.assertIn(f"src/plan/plan.cpp:{len(lines) + 1}: tests Opcode::Tanh by name", output)


if __name__ == "__main__":
    unittest.main(verbosity=2)
