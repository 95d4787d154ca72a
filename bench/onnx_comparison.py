#!/usr/bin/python3
"""Importing from ONNX, side by side: bench/onnx_bench (topos: import times,
and inference of imported models by Exact and Fast plans on 1 and 2 threads)
and bench/libtorch_onnx_bench (LibTorch running the same PyTorch modules as
TorchScript, 1 and 2 intra-op threads), interleaved: one run of every
program per round, for R rounds. Prints the median milliseconds (min-max) and
the ratio of each topos plan's median to LibTorch's on as many threads, and to
the faster of LibTorch's two traces (fused inference path, composite path).

Both programs run with OPENBLAS_NUM_THREADS=1 (no second pool beside
LibTorch's) and, for inference, glibc's steadier malloc thresholds; the import
times are taken under glibc's default malloc and under the steadier one.

    /usr/bin/python3 bench/export_onnx_bench_models.py /tmp/topos-onnx-bench
    bench/onnx_comparison.py build-bench 7
"""
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Workloads LibTorch does not run itself, and the LibTorch rows they compare with.
PEERS = {"transformer_large_square_8x128x256": "transformer_large_8x128x256"}
STEADY_MALLOC = ("glibc.malloc.mmap_threshold=268435456:"
                 "glibc.malloc.trim_threshold=536870912")


def run(program, arguments, steady_malloc=True):
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    env.pop("GLIBC_TUNABLES", None)
    if steady_malloc:
        env["GLIBC_TUNABLES"] = STEADY_MALLOC
    result = subprocess.run([program, *arguments, "--benchmark_format=json"],
                            check=True, capture_output=True, text=True, env=env)
    return json.loads(result.stdout)


def rows(output, times, context, notes):
    context.update(output.get("context", {}))
    for row in output["benchmarks"]:
        if row.get("error_occurred"):
            notes[row["name"].removesuffix("/real_time")] = "failed: " + row.get("error_message", "")
            continue
        if row.get("run_type") == "aggregate":
            continue
        name = row.get("run_name", row["name"]).removesuffix("/real_time")
        times.setdefault(name, []).append(row["real_time"])
        if "max_abs_diff_to_pytorch" in row:
            notes[name] = f"max |diff| to PyTorch {row['max_abs_diff_to_pytorch']:.2g}"
        if row.get("inexact_services"):
            notes[name] = notes.get(name, "") + f", {int(row['inexact_services'])} inexact services"


def cold_imports(topos, models, rounds, steady_malloc):
    """Model::read + import<float> once in a fresh process, `rounds` processes
    per model: [read, import, total] lists of ms by model."""
    env = dict(os.environ)
    env.pop("GLIBC_TUNABLES", None)
    if steady_malloc:
        env["GLIBC_TUNABLES"] = STEADY_MALLOC
    times = {}
    for _ in range(rounds):
        for name, (path, batch) in models.items():
            result = subprocess.run([topos, "--import-once", path, str(batch)], check=True,
                                    capture_output=True, text=True, env=env)
            for index, value in enumerate(result.stdout.split()):
                times.setdefault(name, [[], [], []])[index].append(float(value))
    return times


def summary(values):
    return f"{statistics.median(values):.3g} ({min(values):.3g}-{max(values):.3g})"


def main(build, rounds):
    bench = os.path.join(build, "bench")
    topos = os.path.join(bench, "onnx_bench")
    libtorch = os.path.join(bench, "libtorch_onnx_bench")
    context, notes, inference = {}, {}, {}
    imports = {"default": {}, "steady": {}}
    for malloc, table in imports.items():
        rows(run(topos, ["--benchmark_filter=^import/", f"--benchmark_repetitions={rounds}",
                         "--benchmark_min_time=0.2"], steady_malloc=malloc == "steady"),
             table, context, notes)
    for _ in range(rounds):
        rows(run(topos, ["--benchmark_filter=/topos_", "--benchmark_min_time=0.3"]),
             inference, context, notes)
        for threads in (1, 2):
            rows(run(libtorch, [f"--threads={threads}", "--benchmark_min_time=0.3"]),
                 inference, context, notes)

    with open("/proc/cpuinfo") as cpuinfo:
        model = next((line.split(":", 1)[1].strip() for line in cpuinfo
                      if line.startswith("model name")), "unknown")
    print(f"processor: {model}; {os.cpu_count()} logical CPUs")
    print(f"topos kernels: {context.get('topos_kernels', '?')}")
    print(f"largest accepted conformance model: {context.get('onnx_conformance_largest', '?')}")
    print(f"larger conformance models refused: {context.get('onnx_conformance_refused', '?')}")
    folder = os.environ.get("TOPOS_ONNX_BENCH_MODELS", "/tmp/topos-onnx-bench")
    models = {"conformance_largest": (context.get("onnx_conformance_largest", ""), 1),
              "resnet18": (os.path.join(folder, "resnet18.onnx"), 1),
              "transformer_large": (os.path.join(folder, "transformer_large.onnx"), 8),
              "lenet": (os.path.join(ROOT, "data", "onnx", "lenet.onnx"), 64)}
    for steady in (False, True):
        cold = cold_imports(topos, models, rounds, steady)
        print(f"\nImport once in a fresh process, {'steady' if steady else 'default'} malloc, "
              f"ms, median (min-max) of {rounds} processes:\n")
        print("| model | read | import | read + import |")
        print("| --- | --- | --- | --- |")
        for name, columns in cold.items():
            print(f"| {name} | " + " | ".join(summary(column) for column in columns) + " |")
    for malloc, table in imports.items():
        print(f"\nImport repeated in one process (warm), {malloc} malloc, ms, median (min-max) of {rounds} repetitions:\n")
        print("| model | read | import | read + import | lower (Exact) |")
        print("| --- | --- | --- | --- | --- |")
        for model in dict.fromkeys(name.split("/")[1] for name in table):
            cells = [summary(table[key]) if key in table else notes.get(key, "-")
                     for key in (f"import/{model}/{phase}"
                                 for phase in ("read", "import", "read+import", "lower_exact"))]
            print(f"| {model} | " + " | ".join(cells) + " |")

    print(f"\nInference, ms per forward, median (min-max) of {rounds} interleaved rounds:\n")
    print("| workload | threads | topos Exact | topos Fast | LibTorch fused | LibTorch composite "
          "| Exact / LibTorch | Fast / LibTorch |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    workloads = list(dict.fromkeys(name.split("/")[0] for name in inference))
    order = list(workloads)
    workloads.sort(key=lambda name: (order.index(PEERS.get(name, name)), name in PEERS))
    for workload in workloads:
        for threads in (1, 2):
            def median(column):
                name = PEERS.get(workload, workload) if column.startswith("libtorch") else workload
                values = inference.get(f"{name}/{column}/threads:{threads}")
                return statistics.median(values) if values else None

            def cell(column):
                name = PEERS.get(workload, workload) if column.startswith("libtorch") else workload
                key = f"{name}/{column}/threads:{threads}"
                return summary(inference[key]) if key in inference else notes.get(key, "-")

            peers = [value for value in (median("libtorch"), median("libtorch_composite")) if value]
            best = min(peers) if peers else None
            ratios = [f"{median(column) / best:.2f}" if best and median(column) else "-"
                      for column in ("topos_exact", "topos_fast")]
            print(f"| {workload} | {threads} | {cell('topos_exact')} | {cell('topos_fast')} | "
                  f"{cell('libtorch')} | {cell('libtorch_composite')} | " + " | ".join(ratios) + " |")
    if notes:
        print("\nNotes:")
        for name, note in sorted(notes.items()):
            print(f"  {name}: {note}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "build-bench",
         int(sys.argv[2]) if len(sys.argv) > 2 else 7)
