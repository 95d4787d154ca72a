"""The cost model of a data-parallel step (docs/guide/distributed.md, "What a
step costs"), its parameters measured on this machine, its predictions
beside runs under a simulated network, and its predictions for 1 to 512
machines.

Each machine trains on its own batch of B rows (the global batch grows with
the machines). One rank alone measures, per model: T1, the step at B rows
(plan, sum, SGD step); P, the parameters; w, how long the backward pass runs
on after the last parameter's gradient is final (what a sum can hide
behind); the bytes of its K buckets, S = 4 (P + 1) in all, as
DataParallel::bucket_sizes reports them. A bucket of S_b bytes is two phases, each
N - 1 messages in turn on this machine's link, of (N - 1) / N S_b bytes in
all. With a link of a seconds a message and b seconds a byte:

    t_comm = 2 (N - 1) K a + 2 (N - 1) / N S b
    without overlap: T(N) = T1 + t_comm
    with overlap:    T(N) = max(T1 + t_last, T1 - w + t_comm)

t_last being the last bucket's share (the first layers' gradients, final at
the end of the backward pass): a step waits for it whatever else hides.

The check runs each model on 2 ranks (one core each, 2 B rows in all)
without a network (T2, which stands for T1 there: the two ranks share this
machine's memory and wait for each other), then under
DataParallelOptions::simulated_link (30 us a message at 10 Gbit/s, and 50 us
at 1 Gbit/s), with and without overlap, and prints the model's prediction
beside the median of the runs, the model taking T2 for T1. The predictions
for 1 to 512 machines take T1.

usage: distributed_cost_model.py BUILD [--steps 40] [--rounds 3]
       (BUILD: a Release build with -DTOPOS_BUILD_BENCHMARKS=ON and MPI)
"""
import argparse
import os
import re
import subprocess
import sys

# (bench name, what the guide calls it, rows per machine, the bench's batch flag)
MODELS = [
    ("digits", "digits MLP 64-128-10", 128, "--batch"),
    ("w2", "W2 MLP 784-512-512-10", 128, "--batch"),
    ("g-mlp", "gallery digits MLP", 50, "--gallery-batch"),
    ("g-cnn", "gallery digits CNN", 50, "--gallery-batch"),
    ("g-chars", "gallery character transformer", 32, "--gallery-batch"),
    ("w8", "W8 GPT-2-small block", 4, "--w8-batch"),
]
# (name, seconds a message, bytes a second): simulated on 2 ranks, and predicted
SIMULATED = [
    ("30 us + 10 Gbit/s", 30e-6, 1.25e9),
    ("50 us + 1 Gbit/s", 50e-6, 0.125e9),
]
NETWORKS = [
    ("10 Gbit/s Ethernet, 30 us", 30e-6, 1.25e9),
    ("100 Gbit/s InfiniBand, 2 us", 2e-6, 12.5e9),
]
MACHINES = [1, 2, 8, 64, 512]
LINE = re.compile(
    r"^(\S+)\s+ranks (\d+) .*?([\d.]+) ms/step .*? (\d+) parameters\s+([\d.]+) ms backward window"
    r"\s+buckets ([\d,]+)$",
    re.MULTILINE,
)


def run(build, ranks, model, rows, batch_flag, steps, *extra):
    environment = dict(os.environ)
    environment.update(
        OMPI_MCA_rmaps_base_oversubscribe="1",
        OMPI_ALLOW_RUN_AS_ROOT="1",
        OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
        TOPOS_THREADS="1",
        GLIBC_TUNABLES="glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=67108864",
    )
    command = ["mpirun", "-np", str(ranks), f"{build}/bench/distributed_bench",
               "--models", model, batch_flag, str(rows * ranks), "--steps", str(steps), *extra]
    output = subprocess.run(command, env=environment, capture_output=True, text=True, check=True)
    found = LINE.search(output.stdout)
    if not found:
        sys.exit(f"no result line in the output of {' '.join(command)}:\n{output.stdout}")
    sizes = [int(size) for size in found.group(6).split(",")]
    return float(found.group(3)) * 1e-3, sizes, float(found.group(5)) * 1e-3, int(found.group(4))


def predicted(alone, sizes, window, machines, message, per_byte, overlap):
    """T(N) from T1 (`alone`), the buckets' bytes in the order they go out, and w."""
    size, count, last = sum(sizes), len(sizes), sizes[-1]
    if machines == 1:
        return alone
    spread = (machines - 1) / machines
    if not overlap:
        return alone + 2 * (machines - 1) * message + 2 * spread * size * per_byte
    total = 2 * (machines - 1) * count * message + 2 * spread * size * per_byte
    last_share = 2 * (machines - 1) * message + 2 * spread * last * per_byte
    return max(alone + last_share, alone - window + total)


def median(values):
    return sorted(values)[len(values) // 2]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build")
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    arguments = parser.parse_args()
    measured = {}
    print("| model | rows a machine | parameters | T1 | backward window w | bucket sizes (KiB) |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    for model, title, rows, flag in MODELS:
        steps = arguments.steps if model != "w8" else 64
        alone, sizes, window, parameters = run(arguments.build, 1, model, rows, flag, steps)
        measured[model] = (alone, sizes, window)
        print(f"| {title} | {rows} | {parameters:,} | {alone * 1e3:.2f} ms | {window * 1e3:.2f} ms "
              f"| {', '.join(f'{size / 1024:.0f}' for size in sizes)} |")
    # Two ranks of this machine without a network: what they cost each other
    # here (shared memory, the copies, the wait for the slower) and a
    # machine of its own would not.
    local = {}
    for model, title, rows, flag in MODELS:
        steps = arguments.steps if model != "w8" else 64
        local[model] = median([run(arguments.build, 2, model, rows, flag, steps,
                                   "--overlap", "off")[0] for _ in range(arguments.rounds)])
    print(f"\n2 machines (2 ranks, one core each), medians of {arguments.rounds} runs each; "
          "T2: 2 ranks without a simulated network")
    print("| model | simulated link | T2 | no overlap: model | measured | with overlap: model "
          "| measured | overlap saves (measured) |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for network, message, bandwidth in SIMULATED:
        link = ["--message-us", f"{message * 1e6:g}", "--gbits", f"{bandwidth * 8e-9:g}"]
        for model, title, rows, flag in MODELS:
            steps = arguments.steps if model != "w8" else 64
            alone, sizes, window = measured[model]
            apart, hidden = [], []
            for _ in range(arguments.rounds):
                apart.append(run(arguments.build, 2, model, rows, flag, steps,
                                 "--overlap", "off", *link)[0])
                hidden.append(run(arguments.build, 2, model, rows, flag, steps,
                                  "--overlap", "on", *link)[0])
            apart, hidden = median(apart), median(hidden)
            without = predicted(local[model], sizes, window, 2, message, 1 / bandwidth, False)
            with_overlap = predicted(local[model], sizes, window, 2, message, 1 / bandwidth, True)
            print(f"| {title} | {network} | {local[model] * 1e3:.2f} ms "
                  f"| {without * 1e3:.2f} ms | {apart * 1e3:.2f} ms "
                  f"| {with_overlap * 1e3:.2f} ms | {hidden * 1e3:.2f} ms "
                  f"| {(apart - hidden) * 1e3:.2f} ms ({(1 - hidden / apart) * 100:.0f}%) |")
    for network, network_message, bandwidth in NETWORKS:
        print(f"\npredicted step with overlap on {network} (efficiency T1 / T(N) in brackets)")
        print("| model | " + " | ".join(f"N = {n}" for n in MACHINES) + " |")
        print("| --- |" + " ---: |" * len(MACHINES))
        for model, title, rows, flag in MODELS:
            alone, sizes, window = measured[model]
            cells = []
            for machines in MACHINES:
                step = predicted(alone, sizes, window, machines, network_message,
                                 1 / bandwidth, True)
                cells.append(f"{step * 1e3:.3g} ms ({alone / step:.0%})")
            print(f"| {title} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
