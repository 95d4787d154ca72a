"""The digits MLP in PyTorch: 64 pixels -> 128 -> 10 logits (ReLU), trained
with AdamW on shuffled batches of 50 for 20 epochs, then evaluated on the 297
held-out digits. Its topos twin: examples/python/digits_mlp.py.

usage: digits_mlp_torch.py DIGITS_CSV
"""
import sys

import numpy as np
import torch

table = np.loadtxt(sys.argv[1], delimiter=",", dtype=np.float32)
pixels, labels = torch.from_numpy(table[:, :64] / np.float32(16)), torch.from_numpy(table[:, 64]).long()

torch.manual_seed(1)
model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
loss = torch.nn.CrossEntropyLoss()

adamw = torch.optim.AdamW(model.parameters(), lr=0.003)
for epoch in range(20):
    order = torch.randperm(1500)
    losses = []
    for first in range(0, 1500, 50):
        rows = order[first:first + 50]
        adamw.zero_grad()
        value = loss(model(pixels[rows]), labels[rows])
        value.backward()
        adamw.step()
        losses.append(value.item())
    print(f"epoch {epoch + 1}: mean loss {np.mean(losses):.4f}")

with torch.no_grad():
    accuracy = (model(pixels[1500:]).argmax(1) == labels[1500:]).float().mean().item()
print(f"test accuracy: {accuracy:.2%}")
