"""The training step of examples/python/digits_mlp_steps.py (a batch of 50
gathered, value_and_gradients, an AdamW step), timed over whole epochs: the
Python side of bench/python_overhead.py, whose C++ side is
bench/digits_step_bench.cpp.

usage: digits_step_bench.py DIGITS_CSV EPOCHS WIDTH...: an Mlp of these widths
(64 first, 10 last; ReLU between), trained for EPOCHS timed epochs after one
untimed; prints "microseconds per step: X" (wall clock) and "CPU microseconds
per step: Y" (the process's CPU time, every thread's).
"""
import sys
import time

import numpy as np

import topos


def main(path, epochs, widths):
    table = np.loadtxt(path, delimiter=",", dtype=np.float32)
    pixels, labels = table[:, :64] / np.float32(16), table[:, 64]
    tape = topos.Tape("float32")
    mlp = topos.Mlp(tape, widths, topos.Activation.Relu, init=topos.init.xavier(1))
    model = tape.into_network()
    loss = topos.Function(model, lambda x, y: topos.cross_entropy(mlp(x), y),
                          arguments=("real", "indices"))
    adamw = topos.optim.AdamW(lr=0.003)
    parameters = model.parameters()
    state = adamw.start(parameters)

    def epoch(seed):
        nonlocal parameters, state
        order = np.array(topos.data.shuffled(1500, seed))
        for rows in topos.data.batches(1500, 50):
            _, gradients = loss.value_and_gradients(parameters, pixels[order[rows]], labels[order[rows]])
            parameters, state = adamw.step(parameters, gradients, state)

    epoch(0)  # compiles the plan
    start, cpu_start = time.perf_counter(), time.process_time()
    for seed in range(1, epochs + 1):
        epoch(seed)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    print(f"microseconds per step: {elapsed * 1e6 / (epochs * 30):.2f}")
    print(f"CPU microseconds per step: {cpu * 1e6 / (epochs * 30):.2f}")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), [int(width) for width in sys.argv[3:]])
