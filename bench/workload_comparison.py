"""W2-W6 side by side: bench/workloads_bench (topos, Exact and Fast) and
bench/libtorch_workloads_bench (LibTorch), interleaved: one run of every
configuration per round, for R rounds. Prints, per workload, the median
milliseconds per training step with min and max, and the ratio of topos's
median to the best LibTorch configuration's.

LibTorch runs in three configurations (docs/performance.md): glibc's default malloc
on one thread; the steadier malloc thresholds on one thread; the same on two
intra-op threads. OpenBLAS, which LibTorch calls for matrix products, is kept
to one thread in all three, so that two pools never oversubscribe two cores.

W6 runs 200 steps of W2 in a fresh process of each program and reads the
peak resident set (getrusage), median of the rounds.
"""
import json
import os
import re
import statistics
import subprocess

STEADY_MALLOC = ("glibc.malloc.mmap_threshold=268435456:"
                 "glibc.malloc.trim_threshold=536870912")

# (column, program, benchmark name suffix, extra arguments, environment changes)
CONFIGURATIONS = [
    ("topos Exact", "workloads_bench", "topos_exact", [], {}),
    ("topos Fast", "workloads_bench", "topos_fast", [], {}),
    ("LibTorch 1t default malloc", "libtorch_workloads_bench", "libtorch", ["--threads=1"],
     {"OPENBLAS_NUM_THREADS": "1"}),
    ("LibTorch 1t steady malloc", "libtorch_workloads_bench", "libtorch", ["--threads=1"],
     {"OPENBLAS_NUM_THREADS": "1", "GLIBC_TUNABLES": STEADY_MALLOC}),
    ("LibTorch 2t steady malloc", "libtorch_workloads_bench", "libtorch", ["--threads=2"],
     {"OPENBLAS_NUM_THREADS": "1", "GLIBC_TUNABLES": STEADY_MALLOC}),
]


def environment(changes):
    env = dict(os.environ)
    env.update(changes)
    return env


# What the benchmark programs said of themselves (Google Benchmark's context:
# topos_kernels, the kernels topos's dispatcher picked).
CONTEXT = {}

# By workload: how many services of one topos Fast step were not exact (the
# counter inexact_services); none means the Fast plan ran the Exact kernels.
INEXACT_SERVICES = {}


def run_once(program, suffix, arguments, changes, workload_filter):
    result = subprocess.run(
        [program, *arguments, f"--benchmark_filter=({workload_filter}).*/{suffix}/",
         "--benchmark_format=json", "--benchmark_min_time=0.3"],
        check=True, capture_output=True, text=True, env=environment(changes))
    output = json.loads(result.stdout)
    CONTEXT.update(output.get("context", {}))
    for row in output["benchmarks"]:
        if suffix == "topos_fast" and "inexact_services" in row:
            INEXACT_SERVICES[row["name"].split("/")[0]] = row["inexact_services"]
    return {row["name"].split("/")[0]: row["real_time"] for row in output["benchmarks"]}


def peak_memory(program, changes):
    result = subprocess.run([program, "--peak-memory"], check=True, capture_output=True,
                            text=True, env=environment(changes))
    return float(re.search(r"peak ([0-9.]+) MiB", result.stdout).group(1))


def cell(samples, digits):
    return (f"{statistics.median(samples):.{digits}f} "
            f"({min(samples):.{digits}f}-{max(samples):.{digits}f})")


def available(build, configurations):
    return [c for c in configurations if os.path.exists(os.path.join(build, "bench", c[1]))]


def compare(build, rounds, workloads):
    """workloads: a list of "W2" .. "W6", "G1" .. "G3". Returns the samples:
    {(column, workload): [ms per step]} and {column: [peak MiB]}."""
    configurations = available(build, CONFIGURATIONS)
    times = {}  # (column, workload) -> [ms per step]
    peaks = {}  # column -> [MiB]
    timed = "|".join(w for w in workloads if w != "W6")
    run_w6 = "W6" in workloads
    for _ in range(rounds):
        for column, program, suffix, arguments, changes in configurations:
            path = os.path.join(build, "bench", program)
            steps = run_once(path, suffix, arguments, changes, timed) if timed else {}
            for workload, ms in steps.items():
                times.setdefault((column, workload), []).append(ms)
            if run_w6 and arguments != ["--threads=2"] and column != "topos Fast":
                peaks.setdefault(column, []).append(peak_memory(path, changes))
    columns = [c[0] for c in configurations]
    if times:
        print_times(columns, times, rounds)
    if peaks:
        print(f"\nW6: peak resident memory of 200 steps of W2, MiB, median (min-max) of "
              f"{rounds} processes; ratio = topos Exact / lowest LibTorch")
        print_peaks(peaks)
    return times, peaks


def print_times(columns, times, rounds):
    print(f"ms per training step, median (min-max) of {rounds} interleaved rounds; "
          "ratio = topos median / best LibTorch median")
    workloads = sorted({w for _, w in times})
    header = ["workload"] + columns + ["Exact / LibTorch", "Fast / LibTorch"]
    print("| " + " | ".join(header) + " |")
    print("|" + " --- |" * len(header))
    for workload in workloads:
        digits = 4 if workload.startswith("W3") else 2
        row = [workload]
        for column in columns:
            samples = times.get((column, workload))
            row.append(cell(samples, digits) if samples else "-")
        torch = [statistics.median(times[(c, workload)]) for c in columns
                 if c.startswith("LibTorch") and (c, workload) in times]
        for column in ("topos Exact", "topos Fast"):
            if torch and (column, workload) in times:
                row.append(f"{statistics.median(times[(column, workload)]) / min(torch):.3g}")
            else:
                row.append("-")
        print("| " + " | ".join(row) + " |")


def print_peaks(peaks):
    print("| " + " | ".join(peaks) + " | ratio |")
    print("|" + " --- |" * (len(peaks) + 1))
    torch = [statistics.median(v) for c, v in peaks.items() if c.startswith("LibTorch")]
    ratio = (f"{statistics.median(peaks['topos Exact']) / min(torch):.2f}"
             if torch and "topos Exact" in peaks else "-")
    print("| " + " | ".join(cell(v, 1) for v in peaks.values()) + f" | {ratio} |")
