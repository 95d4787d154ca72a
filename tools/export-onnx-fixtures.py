#!/usr/bin/python3
"""Exports the PyTorch models topos::onnx's round-trip tests import.

Each model is a seeded torch.nn.Module exported with torch.onnx.export into
data/onnx/NAME.onnx, beside its input (NAME.input.npy) and PyTorch's
output for it (NAME.output.npy). For the LeNet, the gradients of the mean
cross entropy against fixed labels (NAME.labels.npy) are written too, one
NAME.grad.PARAMETER.npy per parameter, named as the ONNX initializers are.

Needs python3-torch (Debian); run it again only to change the fixtures:
    /usr/bin/python3 tools/export-onnx-fixtures.py data/onnx
"""
import io
import os
import sys

import numpy as np
import torch
from torch import nn


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(12, 32)
        self.fc2 = nn.Linear(32, 16)
        self.head = nn.Linear(16, 5)

    def forward(self, x):
        return self.head(torch.tanh(self.fc2(torch.relu(self.fc1(x)))))


class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, padding=2)
        self.bn1 = nn.BatchNorm2d(6)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.bn2 = nn.BatchNorm2d(16)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = torch.max_pool2d(torch.relu(self.bn1(self.conv1(x))), 2)
        x = torch.max_pool2d(torch.relu(self.bn2(self.conv2(x))), 2)
        x = torch.flatten(x, 1)
        return self.fc3(torch.relu(self.fc2(torch.relu(self.fc1(x)))))


class Residual(nn.Module):
    def __init__(self, channels=8):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.head = nn.Linear(channels, 4)

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        y = torch.relu(x + y)
        return self.head(torch.flatten(self.pool(y), 1))


def distinct(model):
    """Moves every parameter off its initial value, so that no two are equal
    (the exporter merges equal constants, fresh norms' ones and zeros)."""
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.add_(0.1 * torch.randn_like(parameter))
    return model


def settle_statistics(model, shape):
    """Gives batch norms running statistics of their own (not the fresh 0 and 1,
    which the exporter would merge with other constants)."""
    model.train()
    with torch.no_grad():
        for _ in range(3):
            model(torch.randn(*shape))
    return model.eval()


def export(model, example, name, folder, dynamic_batch=True):
    buffer = io.BytesIO()
    torch.onnx.export(
        model, example, buffer, input_names=["input"], output_names=["output"],
        dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}} if dynamic_batch else None,
        opset_version=13, training=torch.onnx.TrainingMode.PRESERVE, do_constant_folding=False)
    with open(os.path.join(folder, name + ".onnx"), "wb") as file:
        file.write(buffer.getvalue())
    with torch.no_grad():
        output = model(example)
    np.save(os.path.join(folder, name + ".input.npy"), example.numpy())
    np.save(os.path.join(folder, name + ".output.npy"), output.numpy())


def export_gradients(model, example, name, folder):
    labels = torch.arange(example.shape[0]) % 10
    model.zero_grad()
    loss = nn.functional.cross_entropy(model(example), labels)
    loss.backward()
    np.save(os.path.join(folder, name + ".labels.npy"), labels.numpy().astype(np.int64))
    for parameter_name, parameter in model.named_parameters():
        np.save(os.path.join(folder, f"{name}.grad.{parameter_name}.npy"), parameter.grad.numpy())


def main(folder):
    os.makedirs(folder, exist_ok=True)
    torch.manual_seed(7)
    export(Mlp().eval(), torch.randn(6, 12), "mlp", folder)
    lenet = settle_statistics(distinct(LeNet()), (8, 1, 28, 28))
    example = torch.randn(4, 1, 28, 28)
    export(lenet, example, "lenet", folder)
    export_gradients(lenet, example, "lenet", folder)
    export(settle_statistics(distinct(Residual()), (8, 8, 10, 10)), torch.randn(2, 8, 10, 10), "residual", folder)
    layer = distinct(nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32,
                                                dropout=0.0, batch_first=True)).eval()
    export(layer, torch.randn(2, 7, 16), "transformer", folder, dynamic_batch=False)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "data/onnx")
