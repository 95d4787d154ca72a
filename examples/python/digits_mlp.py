"""The digits MLP from Python: 64 pixels -> 128 -> 10 logits (ReLU), trained
with AdamW on shuffled batches of 50 for 20 epochs, then evaluated on the 297
held-out digits. Its PyTorch twin: docs/twins/digits_mlp_torch.py.

usage: digits_mlp.py DIGITS_CSV
"""
import sys

import numpy as np

import topos

table = np.loadtxt(sys.argv[1], delimiter=",", dtype=np.float32)
pixels, labels = table[:, :64] / np.float32(16), table[:, 64]

tape = topos.Tape("float32")
model = topos.Mlp(tape, [64, 128, 10], topos.Activation.Relu, init=topos.init.xavier(1))
network = tape.into_network()
loss = topos.Function(network, lambda x, y: topos.cross_entropy(model(x), y),
                      arguments=("real", "indices"))
predict = topos.Function(network, model)

adamw = topos.optim.AdamW(lr=0.003)
parameters = network.parameters()
state = adamw.start(parameters)
for epoch in range(20):
    order = np.array(topos.data.shuffled(1500, epoch))
    losses = []
    for rows in topos.data.batches(1500, 50):
        value, gradients = loss.value_and_gradients(parameters, pixels[order[rows]], labels[order[rows]])
        parameters, state = adamw.step(parameters, gradients, state)
        losses.append(value)
    print(f"epoch {epoch + 1}: mean loss {np.mean(losses):.4f}")

accuracy = (predict(parameters, pixels[1500:]).argmax(1) == labels[1500:]).mean()
print(f"test accuracy: {accuracy:.2%}")
