"""A digits MLP (64 -> 128 -> 10, ReLU) trained for two epochs with AdamW on a
warm-up cosine schedule, each step's loss printed with its bits, then the
test accuracy and a hash of every trained parameter's bits. Its C++ twin,
examples/digits_mlp_steps.cpp, prints the same lines: the same bits from
Python (python/tests/test_digits_mlp_twin.py checks it).

usage: digits_mlp_steps.py DIGITS_CSV
"""
import sys

import numpy as np

import topos


def fingerprint(parameters):
    """FNV-1a over the bytes of every parameter, slot after slot."""
    hash_ = 0xCBF29CE484222325
    for value in parameters.values():
        for byte in value.astype("<f4").tobytes():
            hash_ = ((hash_ ^ byte) * 0x100000001B3) % 2**64
    return hash_


def main(path):
    table = np.loadtxt(path, delimiter=",", dtype=np.float32)
    pixels, labels = table[:, :64] / np.float32(16), table[:, 64]

    tape = topos.Tape("float32")
    hidden = topos.Linear(tape, 64, 128, init=topos.init.uniform(1, -0.125, 0.125))
    classify = topos.Linear(tape, 128, 10, init=topos.init.uniform(2, -128**-0.5, 128**-0.5))
    model = tape.into_network()

    def logits(x):
        return classify(hidden(x).relu())

    loss = topos.Function(model, lambda x, y: topos.cross_entropy(logits(x), y, label_smoothing=0.1),
                          arguments=("real", "indices"))
    predict = topos.Function(model, logits)

    epochs, batch = 2, 50
    steps = epochs * 1500 // batch
    adamw = topos.optim.AdamW(lr=0.003, weight_decay=0.01)
    schedule = topos.optim.WarmupCosine(0.003, 10, steps)
    parameters = model.parameters()
    state = adamw.start(parameters)
    print(f"digits MLP 64 -> 128 -> 10 (ReLU), {steps} steps of {batch}")
    step = 0
    for epoch in range(epochs):
        order = np.array(topos.data.shuffled(1500, 7 + epoch))
        for rows in topos.data.batches(1500, batch):
            value, gradients = loss.value_and_gradients(parameters, pixels[order[rows]], labels[order[rows]])
            parameters, state = adamw.step(parameters, gradients, state, learning_rate=schedule(step))
            print(f"step {step:2}: loss {float(value):.6f} (bits {value.view(np.uint32):08x})")
            step += 1
    predicted = predict(parameters, pixels[1500:]).argmax(1)
    correct = int((predicted == labels[1500:]).sum())
    print(f"test accuracy: {correct} of 297 ({100 * correct / 297:.2f}%)")
    print(f"parameters: FNV-1a {fingerprint(parameters):016x}")


if __name__ == "__main__":
    main(sys.argv[1])
