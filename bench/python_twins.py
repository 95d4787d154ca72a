"""The digits MLP in Python, topos beside PyTorch: the lines of each program
(examples/python/digits_mlp.py and docs/twins/digits_mlp_torch.py; code lines
only: no blank line, comment or docstring) and, where PyTorch is installed,
each program's wall time over R runs (median, min-max; interpreter start and
imports included) and the test accuracy it prints.

usage: python_twins.py BUILD_DIR [ROUNDS]   (run with the Python that has NumPy)
"""
import ast
import io
import os
import pathlib
import re
import statistics
import subprocess
import sys
import time
import tokenize

ROOT = pathlib.Path(__file__).resolve().parent.parent
PROGRAMS = [("topos", ROOT / "examples/python/digits_mlp.py"),
            ("PyTorch", ROOT / "docs/twins/digits_mlp_torch.py")]


def code_lines(path):
    """Lines holding code: not blank, not only a comment, not the docstring."""
    source = path.read_text()
    docstring = ast.get_docstring(ast.parse(source), clean=False)
    skipped = set()
    if docstring is not None:
        first = ast.parse(source).body[0]
        skipped = set(range(first.lineno, first.end_lineno + 1))
    lines = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
                          tokenize.DEDENT, tokenize.ENDMARKER):
            continue
        lines.update(range(token.start[0], token.end[0] + 1))
    return len(lines - skipped)


def torch_installed():
    return subprocess.run([sys.executable, "-c", "import torch"], capture_output=True).returncode == 0


def main(build, rounds):
    counts = {name: code_lines(path) for name, path in PROGRAMS}
    for name, path in PROGRAMS:
        print(f"{name:8} {counts[name]:3} code lines  {path.relative_to(ROOT)}")
    ratio = counts["topos"] / counts["PyTorch"]
    print(f"topos / PyTorch lines: {ratio:.2f} (target <= 1.2: {'met' if ratio <= 1.2 else 'MISSED'})")
    if not torch_installed():
        print("PyTorch is not installed here (Debian: python3-torch): the programs were not run")
        return
    env = dict(os.environ, PYTHONPATH=str(pathlib.Path(build) / "python"))
    digits = str(ROOT / "data" / "digits.csv")
    times = {name: [] for name, _ in PROGRAMS}
    accuracy = {}
    for _ in range(rounds):
        for name, path in PROGRAMS:
            start = time.perf_counter()
            printed = subprocess.run([sys.executable, str(path), digits], check=True,
                                     capture_output=True, text=True, env=env).stdout
            times[name].append(time.perf_counter() - start)
            accuracy[name] = re.search(r"test accuracy: (\S+)", printed).group(1)
    for name, samples in times.items():
        print(f"{name:8} {statistics.median(samples):6.2f} s a run ({min(samples):.2f}-"
              f"{max(samples):.2f}, {rounds} runs), test accuracy {accuracy[name]}")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 5)
