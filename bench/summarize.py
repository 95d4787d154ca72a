#!/usr/bin/env python3
"""Runs Google Benchmark programs with repetitions and prints, per benchmark,
the median real time with its min and max (the form docs/performance.md uses).

usage: bench/summarize.py [--repetitions N] PROGRAM [PROGRAM ...]
"""
import json
import statistics
import subprocess
import sys


def run(program, repetitions):
    output = subprocess.run(
        [program, f"--benchmark_repetitions={repetitions}", "--benchmark_min_time=0.1",
         "--benchmark_format=json"],
        check=True, capture_output=True, text=True).stdout
    times = {}
    units = {}
    for row in json.loads(output)["benchmarks"]:
        if row.get("run_type") != "iteration":
            continue
        name = row["run_name"]
        times.setdefault(name, []).append(row["real_time"])
        units[name] = row["time_unit"]
    return times, units


def main(arguments):
    repetitions = 7
    if arguments[:1] == ["--repetitions"]:
        repetitions = int(arguments[1])
        arguments = arguments[2:]
    print("| benchmark | median | min | max |")
    print("| --- | --- | --- | --- |")
    for program in arguments:
        times, units = run(program, repetitions)
        for name, samples in times.items():
            unit = units[name]
            print(f"| {name} | {statistics.median(samples):.4g} {unit} | "
                  f"{min(samples):.4g} {unit} | {max(samples):.4g} {unit} |")


if __name__ == "__main__":
    main(sys.argv[1:])
