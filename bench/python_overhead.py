"""A training step driven from Python beside the same step in C++.

First the gallery's digits MLP whole: examples/gallery/digits_mlp (C++) and
its twin examples/python/digits_mlp_gallery.py (the same bits), each run
whole in turn for R rounds; a step's time is the three members' training
loops ("1200 steps in X seconds") over their 3600 steps, so it holds every
call a training loop makes (the batch gathered, jittered and noised, the
plan's run, AdamW, BatchNorm's running statistics, the progress line).

Then one step alone (a batch of 50 gathered, Function.value_and_gradients,
an AdamW step) for two MLPs of the digits (the gallery's 64 -> 512 -> 256 ->
10, and the 64 -> 128 -> 10 of examples/digits_mlp_steps): runs
bench/digits_step_bench (C++) and bench/digits_step_bench.py (Python) in turn
for R rounds, by wall clock and by the process's CPU time.

Each prints the median microseconds per step (with min and max) and the
overhead of Python's median over C++'s (and of its best round over C++'s
best, which other tenants of a shared machine disturb least), with the
library's threads and with TOPOS_THREADS=1.

usage: python_overhead.py BUILD_DIR [ROUNDS] [EPOCHS]
(BUILD_DIR has examples/gallery/digits_mlp, bench/digits_step_bench and
python/topos; run it with the Python that has NumPy, e.g. /usr/bin/python3)
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


def gallery_microseconds(command, env):
    """Microseconds per step of a gallery run: its loops' seconds over their steps."""
    printed = subprocess.run(command, check=True, capture_output=True, text=True, env=env).stdout
    loops = re.findall(r"^([0-9]+) steps in ([0-9.]+) seconds", printed, re.M)
    steps = sum(int(count) for count, _ in loops)
    return sum(float(seconds) for _, seconds in loops) * 1e6 / steps


def compare_gallery(build, rounds, threads):
    env = dict(os.environ)
    if threads:
        env["TOPOS_THREADS"] = threads
    python_env = dict(env, PYTHONPATH=str(pathlib.Path(build) / "python"))
    cpp, python = [], []
    for _ in range(rounds):
        cpp.append(gallery_microseconds(
            [str(pathlib.Path(build) / "examples" / "gallery" / "digits_mlp")], env))
        python.append(gallery_microseconds(
            [sys.executable, str(ROOT / "examples" / "python" / "digits_mlp_gallery.py"),
             str(ROOT / "data" / "digits.csv")], python_env))
    threads_text = f"TOPOS_THREADS={threads}" if threads else "the library's default threads"
    print(f"the gallery's digits MLP, the whole program and its Python twin, {threads_text}, "
          f"{rounds} rounds of 3600 steps:")
    report("wall clock of the training loops", cpp, python)


def main(build, rounds, epochs):
    compare_gallery(build, rounds, None)
    compare_gallery(build, rounds, "1")
    for name, widths in MODELS:
        compare(build, rounds, epochs, name, widths, None)
    # One thread: every step's work on the calling thread, so the CPU time
    # counts no spinning worker.
    for name, widths in MODELS:
        compare(build, rounds, epochs, name, widths, "1")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 9,
         int(sys.argv[3]) if len(sys.argv) > 3 else 10)
