"""The Python examples print their golden files (topos is exact, so a
program's output is the same on every machine)."""
import os
import pathlib
import subprocess
import sys

source = pathlib.Path(os.environ["TOPOS_SOURCE_DIR"])
# Golden files hold what the reference kernels print; a build's Fast backends
# would change the last bits of Fast plans.
REFERENCE_KERNELS_ONLY = {**os.environ, "TOPOS_BACKENDS": "none"}


def test_the_digits_mlp_example_prints_its_golden_file():
    printed = subprocess.run(
        [sys.executable, str(source / "examples/python/digits_mlp.py"), str(source / "data/digits.csv")],
        check=True, capture_output=True, env=REFERENCE_KERNELS_ONLY, text=True).stdout
    assert printed == (source / "examples/golden/python_digits_mlp.txt").read_text()


def test_the_digits_mlp_is_at_most_a_fifth_longer_than_its_pytorch_twin():
    import importlib.util

    spec = importlib.util.spec_from_file_location("python_twins", source / "bench/python_twins.py")
    twins = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(twins)
    topos_lines = twins.code_lines(source / "examples/python/digits_mlp.py")
    torch_lines = twins.code_lines(source / "docs/twins/digits_mlp_torch.py")
    assert topos_lines <= 1.2 * torch_lines
    guide = (source / "docs/guide/from-pytorch.md").read_text()
    assert f"| {topos_lines} | {torch_lines} |" in guide
