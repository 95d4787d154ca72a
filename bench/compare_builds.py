#!/usr/bin/env python3
"""topos against topos: the same benchmarks from two builds (say, before and
after a change), interleaved round by round so that both see the same machine,
with each benchmark's median (min-max) and the ratio after / before.

usage: bench/compare_builds.py [--rounds R] [--workloads REGEX] [--gemm REGEX]
                               BEFORE AFTER
       (both configured with -DCMAKE_BUILD_TYPE=Release -DTOPOS_BUILD_BENCHMARKS=ON)

Times are milliseconds per step (lower is better) for bench/workloads_bench and
GFLOP/s (higher is better) for bench/gemm_bench.
"""
import argparse
import json
import os
import statistics
import subprocess


def run(build, program, pattern):
    """{benchmark name: (value, unit)} of one run of a benchmark program."""
    command = [os.path.join(build, "bench", program), f"--benchmark_filter={pattern}",
               "--benchmark_format=json", "--benchmark_min_time=1"]
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    values = {}
    for benchmark in json.loads(output)["benchmarks"]:
        if "GFLOP/s" in benchmark:
            values[benchmark["name"]] = (benchmark["GFLOP/s"], "GFLOP/s")
        else:
            scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[benchmark["time_unit"]]
            values[benchmark["name"]] = (benchmark["real_time"] * scale, "ms")
    return values


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--workloads", default="topos_exact",
                        help="filter for workloads_bench ('' to skip)")
    parser.add_argument("--gemm", default="^topos_exact<float>/n:(512|1024)/threads:1",
                        help="filter for gemm_bench ('' to skip)")
    arguments = parser.parse_args()
    programs = [(p, f) for p, f in (("workloads_bench", arguments.workloads),
                                    ("gemm_bench", arguments.gemm)) if f]
    samples = {}
    units = {}
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for round_number in range(arguments.rounds):
        order = ("before", "after") if round_number % 2 == 0 else ("after", "before")
        for side in order:
            build = getattr(arguments, side)
            for program, pattern in programs:
                for name, (value, unit) in run(build, program, pattern).items():
                    samples.setdefault(name, {"before": [], "after": []})[side].append(value)
                    units[name] = unit
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}\n")
    print("| benchmark | unit | before | after | after / before |")
    print("| --- | --- | --- | --- | --- |")
    for name, sides in samples.items():
        cells = []
        for side in ("before", "after"):
            values = sides[side]
            cells.append(f"{statistics.median(values):.4g} "
                         f"({min(values):.4g}-{max(values):.4g})")
        ratio = statistics.median(sides["after"]) / statistics.median(sides["before"])
        print(f"| {name} | {units[name]} | {cells[0]} | {cells[1]} | {ratio:.3f} |")


if __name__ == "__main__":
    main()
