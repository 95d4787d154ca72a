"""The gallery's digits MLP from Python gives the C++ program's bits, step for
step: examples/python/digits_mlp_gallery.py prints the C++ program's golden
file (timings masked as the C++ example test masks them), and every step's
loss of its three members has the bits the C++ program
(examples/gallery/digits_mlp.cpp, built; TOPOS_GALLERY_DIGITS_MLP names it)
writes with --losses."""
import os
import pathlib
import re
import subprocess
import sys

source = pathlib.Path(os.environ["TOPOS_SOURCE_DIR"])
# Golden files hold what the reference kernels print; a build's Fast backends
# would change the last bits of Fast plans.
REFERENCE_KERNELS_ONLY = {**os.environ, "TOPOS_BACKENDS": "none"}
TIMINGS = re.compile(r"[0-9]+[.]?[0-9hms]*( examples/s| steps/s| seconds| left)")


def test_the_python_gallery_mlp_trains_with_the_cpp_program_s_bits(tmp_path):
    cpp_program = os.environ.get("TOPOS_GALLERY_DIGITS_MLP")
    assert cpp_program, ("TOPOS_GALLERY_DIGITS_MLP is not set: configure with "
                         "TOPOS_BUILD_EXAMPLES=ON so that the C++ gallery program is built")
    python_losses, cpp_losses = tmp_path / "python.losses", tmp_path / "cpp.losses"
    printed = subprocess.run(
        [sys.executable, str(source / "examples/python/digits_mlp_gallery.py"),
         str(source / "data/digits.csv"), "--losses", str(python_losses)],
        check=True, capture_output=True, env=REFERENCE_KERNELS_ONLY, text=True).stdout
    golden = (source / "examples/gallery/golden/digits_mlp.txt").read_text()
    assert TIMINGS.sub(r"~\1", printed).splitlines() == golden.splitlines()

    subprocess.run([cpp_program, "--losses", str(cpp_losses)], check=True, capture_output=True, env=REFERENCE_KERNELS_ONLY)
    python_lines = python_losses.read_text().splitlines()
    cpp_lines = cpp_losses.read_text().splitlines()
    assert len(cpp_lines) == 3 * 1200
    assert python_lines == cpp_lines
