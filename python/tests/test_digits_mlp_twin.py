"""The same bits from Python: examples/python/digits_mlp_steps.py trains the
digits MLP and prints each step's loss bits, the test accuracy and a hash of
the trained parameters' bits; its C++ twin's golden file holds what the C++
program prints (the example test checks that), and the Python program must
print it too, line for line."""
import os
import pathlib
import subprocess
import sys

source = pathlib.Path(os.environ["TOPOS_SOURCE_DIR"])
# Golden files hold what the reference kernels print; a build's Fast backends
# would change the last bits of Fast plans.
REFERENCE_KERNELS_ONLY = {**os.environ, "TOPOS_BACKENDS": "none"}


def test_the_python_program_prints_the_cpp_program_s_golden_file():
    printed = subprocess.run(
        [sys.executable, str(source / "examples/python/digits_mlp_steps.py"),
         str(source / "data/digits.csv")],
        check=True, capture_output=True, env=REFERENCE_KERNELS_ONLY, text=True).stdout
    golden = (source / "examples/golden/digits_mlp_steps.txt").read_text()
    assert printed.splitlines() == golden.splitlines()
