"""W2-W8 side by side: bench/workloads_bench (topos, Exact and Fast) and
bench/libtorch_workloads_bench (LibTorch), interleaved: one run of every
configuration per round, for R rounds. Prints, per workload, the median
milliseconds per training step with min and max, and the ratio of topos's
median to the best LibTorch configuration's; then each configuration's
GFLOP/s over the step's products (bench/flops.hpp: the same count for every
program) and its fraction of the machine's two-thread float fma peak
(bench/peak_bench).

LibTorch runs in three configurations (docs/performance.md): glibc's default malloc
on one thread; the steadier malloc thresholds on one thread; the same on two
intra-op threads. OpenBLAS, which LibTorch calls for matrix products, is kept
to one thread in all three, so that two pools never oversubscribe two cores.

W6 runs 200 steps of W2 in a fresh process of each program and reads the
peak resident set (getrusage), median of the rounds; W7 and W8 the same for
3 steps of their own (besides their timed steps).
"""
import json
import os
import re
import statistics
import subprocess

import gemm_comparison

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

# By workload: the floating-point operations of one step's products (the
# counter product_flops of workloads_bench).
PRODUCT_FLOPS = {}

# The two-thread float peak print_gflops measured, for the verdicts.
PEAK_GFLOPS = {}

# The workloads whose peak resident set is measured, and the argument that
# makes each program run it.
PEAK_ARGUMENTS = {"W6": "--peak-memory", "W7": "--peak-memory=W7", "W8": "--peak-memory=W8"}

# The workloads that are only a peak: W6 is W2's memory.
PEAK_ONLY = {"W6"}


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
        if row.get("product_flops"):
            PRODUCT_FLOPS[row["name"].split("/")[0]] = row["product_flops"]
    return {row["name"].split("/")[0]: row["real_time"] for row in output["benchmarks"]}


def peak_memory(program, changes, argument):
    result = subprocess.run([program, argument], check=True, capture_output=True,
                            text=True, env=environment(changes))
    return float(re.search(r"peak ([0-9.]+) MiB", result.stdout).group(1))


def cell(samples, digits):
    return (f"{statistics.median(samples):.{digits}f} "
            f"({min(samples):.{digits}f}-{max(samples):.{digits}f})")


def available(build, configurations):
    return [c for c in configurations if os.path.exists(os.path.join(build, "bench", c[1]))]


def compare(build, rounds, workloads):
    """workloads: a list of "W2" .. "W8", "G1" .. "G3". Returns the samples:
    {(column, workload): [ms per step]} and {(column, "W6" | "W7" | "W8"): [peak MiB]}."""
    configurations = available(build, CONFIGURATIONS)
    times = {}  # (column, workload) -> [ms per step]
    peaks = {}  # (column, W6 | W7 | W8) -> [MiB]
    timed = "|".join(w for w in workloads if w not in PEAK_ONLY)
    peaked = [w for w in workloads if w in PEAK_ARGUMENTS]
    for _ in range(rounds):
        for column, program, suffix, arguments, changes in configurations:
            path = os.path.join(build, "bench", program)
            steps = run_once(path, suffix, arguments, changes, timed) if timed else {}
            for workload, ms in steps.items():
                times.setdefault((column, workload), []).append(ms)
            if arguments == ["--threads=2"] or column == "topos Fast":
                continue
            for workload in peaked:
                peaks.setdefault((column, workload), []).append(
                    peak_memory(path, changes, PEAK_ARGUMENTS[workload]))
    columns = [c[0] for c in configurations]
    if times:
        print_times(columns, times, rounds)
        print_gflops(columns, times, os.path.join(build, "bench", "gemm_bench"))
    if peaks:
        print(f"\nPeak resident memory, MiB, median (min-max) of {rounds} processes: W6 of "
              "200 steps of W2, W7 and W8 of 3 steps; ratio = topos Exact / lowest LibTorch")
        print_peaks(peaks)
    return times, peaks


def print_gflops(columns, times, gemm_program):
    """GFLOP/s of the steps' products (median step), with the fraction of the
    two-thread float peak where bench/peak_bench was built."""
    peaks, label = gemm_comparison.peaks_of(gemm_program)
    peak = peaks.get(("float", 2))
    workloads = sorted(w for w in {w for _, w in times} if PRODUCT_FLOPS.get(w))
    if not workloads:
        return
    print("\nGFLOP/s of each step's products (bench/flops.hpp), median step" +
          (f"; in brackets, the fraction of the two-thread float peak, {peak:.0f} GFLOP/s "
           f"({label})" if peak else ""))
    print("| workload | " + " | ".join(columns) + " |")
    print("|" + " --- |" * (len(columns) + 1))
    for workload in workloads:
        row = [workload]
        for column in columns:
            samples = times.get((column, workload))
            if not samples:
                row.append("-")
                continue
            gflops = PRODUCT_FLOPS[workload] / (statistics.median(samples) * 1e-3) * 1e-9
            row.append(f"{gflops:.1f}" + (f" ({gflops / peak:.0%})" if peak else ""))
        print("| " + " | ".join(row) + " |")
    if peak:
        PEAK_GFLOPS["float, 2 threads"] = peak



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
    columns = list(dict.fromkeys(c for c, _ in peaks))
    print("| workload | " + " | ".join(columns) + " | ratio |")
    print("|" + " --- |" * (len(columns) + 2))
    for workload in sorted({w for _, w in peaks}):
        torch = [statistics.median(v) for (c, w), v in peaks.items()
                 if w == workload and c.startswith("LibTorch")]
        exact = peaks.get(("topos Exact", workload))
        ratio = f"{statistics.median(exact) / min(torch):.2f}" if torch and exact else "-"
        cells = [cell(peaks[(c, workload)], 1) if (c, workload) in peaks else "-"
                 for c in columns]
        print(f"| {workload} | " + " | ".join(cells) + f" | {ratio} |")
