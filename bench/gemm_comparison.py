"""W1 side by side: runs bench/gemm_bench's topos and OpenBLAS benchmarks
interleaved (one repetition of each configuration per round, for R rounds) and
prints, per workload, the median GFLOP/s with min and max of each
configuration and the ratio of topos's medians to the faster OpenBLAS's; and
the bf16 products (exact, and Fast with AVX-512 BF16) beside the exact float
GEMM and LibTorch's bf16 matmul (bench/libtorch_gemm_bench, where LibTorch
was found) at n = 1024 and 2048.

OpenBLAS runs twice: under OPENBLAS_CORETYPE=Haswell (this machine's
environment setting, AVX2 kernels) and with OPENBLAS_CORETYPE and
OPENBLAS_L2_SIZE removed, so that it picks its own kernel for the processor.

Where bench/peak_bench was built, it also prints the machine's arithmetic peak
(a register-only fma loop) and each float and double row's fraction of it.

bench/compare runs it as part of W1-W6.
"""
import json
import os
import re
import statistics
import subprocess

CONFIGURATIONS = [
    # (column, benchmark family, environment changes, program: gemm_bench unless named)
    ("topos Exact", "topos_exact", {}, None),
    ("topos plan", "topos_plan", {}, None),
    ("OpenBLAS Haswell", "openblas", {"OPENBLAS_CORETYPE": "Haswell"}, None),
    ("OpenBLAS own kernel", "openblas", {"OPENBLAS_CORETYPE": None, "OPENBLAS_L2_SIZE": None},
     None),
    ("bf16 Exact", "topos_bf16_exact", {}, None),
    ("bf16 Fast", "topos_bf16_fast", {}, None),
    # built where libtorch-dev is found
    ("bf16 LibTorch", "libtorch_bf16", {}, "libtorch_gemm_bench"),
]

BF16_COLUMNS = ("bf16 Exact", "bf16 Fast", "bf16 LibTorch")


def environment(changes):
    env = dict(os.environ)
    for name, value in changes.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


def run_once(program, family, changes, workload_filter):
    pattern = f"^{family}[</].*({workload_filter})"
    result = subprocess.run(
        [program, f"--benchmark_filter={pattern}", "--benchmark_format=json",
         "--benchmark_min_time=0.2"],
        check=True, capture_output=True, text=True, env=environment(changes))
    rows = json.loads(result.stdout)["benchmarks"]
    return {workload_of(row["name"]): row for row in rows}


def workload_of(name):
    # topos_exact<float>/n:256/threads:1/real_time -> ("float", 256, 1);
    # topos_bf16_fast/n:1024/threads:2/real_time -> ("bf16", 1024, 2)
    match = re.match(r"\w+?(?:<(\w+)>)?/n:(\d+)/threads:(\d+)", name)
    element = match.group(1) or "bf16"
    return element, int(match.group(2)), int(match.group(3))


def peaks_of(program):
    """{(element, threads): GFLOP/s} of bench/peak_bench's register fma loop,
    and its label; empty where the program was not built."""
    peak_program = os.path.join(os.path.dirname(program), "peak_bench")
    if not os.path.exists(peak_program):
        return {}, ""
    result = subprocess.run([peak_program, "--benchmark_format=json"],
                            check=True, capture_output=True, text=True)
    peaks, label = {}, ""
    for row in json.loads(result.stdout)["benchmarks"]:
        match = re.match(r"BM_FmaPeak<(\w+)>/.*threads:(\d+)", row["name"])
        peaks[(match.group(1), int(match.group(2)))] = row["GFLOP/s"]
        label = row.get("label", label)
    return peaks, label


def cell(samples):
    return (f"{statistics.median(samples):.1f} "
            f"({min(samples):.1f}-{max(samples):.1f})")


def compare(program, rounds, workload_filter="."):
    """Prints the tables; returns {(column, (element, n, threads)): [GFLOP/s by wall clock]}."""
    by_wall = {}  # (column, workload) -> [GFLOP/s by wall-clock time]
    by_cpu = {}  # the same for one thread, by that thread's CPU time
    labels = {}
    for _ in range(rounds):
        for column, family, changes, other_program in CONFIGURATIONS:
            runs = os.path.join(os.path.dirname(program), other_program) if other_program \
                else program
            if not os.path.exists(runs):
                continue
            results = run_once(runs, family, changes, workload_filter)
            for workload, row in results.items():
                by_wall.setdefault((column, workload), []).append(row["GFLOP/s"])
                if workload[2] == 1:
                    cpu_gflops = row["GFLOP/s"] * row["real_time"] / row["cpu_time"]
                    by_cpu.setdefault((column, workload), []).append(cpu_gflops)
                if row.get("label"):
                    labels[column] = row["label"]
    columns = [c for c, _, _, _ in CONFIGURATIONS
               if any(k[0] == c for k in by_wall) and not c.startswith("bf16")]
    for column in columns + [c for c in BF16_COLUMNS if c in labels]:
        if column in labels:
            print(f"{column}: OpenBLAS core {labels[column]}")
    peaks, peak_label = peaks_of(program)
    if peaks:
        print(f"\npeak (bench/peak_bench, a register-only fma loop, {peak_label}): " +
              ", ".join(f"{element} {threads} thread{'s' if threads > 1 else ''} "
                        f"{gflops:.1f} GFLOP/s" for (element, threads), gflops
                        in sorted(peaks.items())))
    print(f"\nGFLOP/s by wall-clock time, median (min-max) of {rounds} interleaved "
          "rounds; ratio = topos median / faster OpenBLAS median; of peak = topos Exact "
          "median / the peak of its element and threads")
    print_table(columns, by_wall, peaks)
    print(f"\nOne thread, GFLOP/s by the computing thread's CPU time (time the thread was "
          "descheduled on a loaded machine does not count)")
    print_table(columns, by_cpu, peaks)
    print_bf16_table(by_wall)
    return by_wall


def print_bf16_table(by_wall):
    """The bf16 products beside the exact float GEMM of the same size and
    beside LibTorch's bf16 matmul."""
    rows = sorted({w for c, w in by_wall if c.startswith("bf16")})
    if not rows:
        return
    print("\nbf16 products, GFLOP/s by wall-clock time; ratio = bf16 median / float Exact "
          "median, and topos Fast / LibTorch bf16")
    print("| workload | bf16 Exact | bf16 Fast | bf16 LibTorch | float Exact "
          "| bf16 Exact / float | Fast / float | Fast / LibTorch |")
    print("|" + " --- |" * 8)
    for _, n, threads in rows:
        workload = ("bf16", n, threads)
        float_samples = by_wall.get(("topos Exact", ("float", n, threads)))
        row = [f"bf16 n={n} t={threads}"]
        for column in BF16_COLUMNS:
            row.append(cell(by_wall.get((column, workload), [float("nan")])))
        row.append(cell(float_samples) if float_samples else "-")
        for column, against in (("bf16 Exact", float_samples), ("bf16 Fast", float_samples),
                                ("bf16 Fast", by_wall.get(("bf16 LibTorch", workload)))):
            samples = by_wall.get((column, workload))
            if samples and against:
                row.append(f"{statistics.median(samples) / statistics.median(against):.2f}")
            else:
                row.append("-")
        print("| " + " | ".join(row) + " |")


def print_table(columns, samples, peaks):
    workloads = sorted({w for _, w in samples if w[0] != "bf16"},
                       key=lambda w: (w[0] != "float", w[1], w[2]))
    header = ["workload"] + columns + ["Exact / best OpenBLAS", "plan / best OpenBLAS",
                                       "Exact of peak"]
    print("| " + " | ".join(header) + " |")
    print("|" + " --- |" * len(header))
    for workload in workloads:
        element, n, threads = workload
        row = [f"{element} n={n} t={threads}"]
        for column in columns:
            row.append(cell(samples.get((column, workload), [float("nan")])))
        blas = [statistics.median(samples[(c, workload)]) for c in columns
                if c.startswith("OpenBLAS") and (c, workload) in samples]
        for column in ("topos Exact", "topos plan"):
            if blas and (column, workload) in samples:
                row.append(f"{statistics.median(samples[(column, workload)]) / max(blas):.2f}")
            else:
                row.append("-")
        peak = peaks.get((element, threads))
        if peak and ("topos Exact", workload) in samples:
            row.append(f"{statistics.median(samples[('topos Exact', workload)]) / peak:.0%}")
        else:
            row.append("-")
        print("| " + " | ".join(row) + " |")
