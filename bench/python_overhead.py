"""A training step driven from Python beside the same step in C++: for two
digits MLPs (the gallery's 64 -> 512 -> 256 -> 10, and the 64 -> 128 -> 10 of
examples/digits_mlp_steps), runs bench/digits_step_bench (C++) and
bench/digits_step_bench.py (Python) in turn for R rounds and prints each
one's median microseconds per step (with min and max) and the overhead of
Python's median over C++'s (and of its best round over C++'s best, which
other tenants of a shared machine disturb least), by wall clock and by the
process's CPU time; then the same with TOPOS_THREADS=1, where the CPU time
counts no spinning worker.

usage: python_overhead.py BUILD_DIR [ROUNDS] [EPOCHS]
(BUILD_DIR has bench/digits_step_bench and python/topos; run it with the
Python that has NumPy, e.g. /usr/bin/python3)
"""
import os
import pathlib
import re
import statistics
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def microseconds(command, env=None):
    """(wall, CPU) microseconds per step, as the program prints them."""
    printed = subprocess.run(command, check=True, capture_output=True, text=True, env=env).stdout
    wall = float(re.search(r"^microseconds per step: ([0-9.]+)", printed, re.M).group(1))
    cpu = float(re.search(r"^CPU microseconds per step: ([0-9.]+)", printed, re.M).group(1))
    return wall, cpu


MODELS = [("the gallery's digits MLP", ["64", "512", "256", "10"]),
          ("examples/digits_mlp_steps's MLP", ["64", "128", "10"])]


def report(label, cpp, python):
    print(f"  {label}:")
    for language, samples in (("C++", cpp), ("Python", python)):
        print(f"    {language:7} {statistics.median(samples):8.2f} us/step "
              f"({min(samples):.2f}-{max(samples):.2f})")
    overhead = statistics.median(python) / statistics.median(cpp) - 1
    best = min(python) / min(cpp) - 1
    verdict = "met" if overhead <= 0.05 else "MISSED"
    print(f"    Python over C++: {overhead:+.1%} by medians, {best:+.1%} by best rounds "
          f"(target <= +5% by medians: {verdict})")


def compare(build, rounds, epochs, name, widths, threads):
    digits = str(ROOT / "data" / "digits.csv")
    env = dict(os.environ)
    if threads:
        env["TOPOS_THREADS"] = threads
    python_env = dict(env, PYTHONPATH=str(pathlib.Path(build) / "python"))
    cpp, python = [], []
    for _ in range(rounds):
        cpp.append(microseconds([str(pathlib.Path(build) / "bench" / "digits_step_bench"), digits,
                                 str(epochs)] + widths, env))
        python.append(microseconds([sys.executable, str(ROOT / "bench" / "digits_step_bench.py"),
                                    digits, str(epochs)] + widths, python_env))
    threads_text = f"TOPOS_THREADS={threads}" if threads else "the library's default threads"
    print(f"{name} ({' -> '.join(widths)}), batches of 50, {threads_text}, "
          f"{rounds} rounds of {epochs * 30} steps:")
    report("wall clock", [wall for wall, _ in cpp], [wall for wall, _ in python])
    report("CPU time", [cpu for _, cpu in cpp], [cpu for _, cpu in python])


def main(build, rounds, epochs):
    for name, widths in MODELS:
        compare(build, rounds, epochs, name, widths, None)
    # One thread: every step's work on the calling thread, so the CPU time
    # counts no spinning worker.
    for name, widths in MODELS:
        compare(build, rounds, epochs, name, widths, "1")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 9,
         int(sys.argv[3]) if len(sys.argv) > 3 else 10)
