#!/usr/bin/env python3
"""Writes a small PyTorch model's state_dict in the safetensors format, with
its logits on a fixed batch, for tests/model/named_checkpoint_test.cpp:

    /usr/bin/python3 tools/torch-state-dict.py OUT_FOLDER

OUT_FOLDER/torch_cnn.safetensors holds conv1.weight, conv1.bias, norm.weight,
norm.bias, fc.weight and fc.bias in float32 (written here byte by byte, as the
safetensors library writes them: an 8-byte little-endian header length, the
JSON header, the raw little-endian payloads); OUT_FOLDER/torch_cnn_logits.json
holds the input batch and the logits the model gives it. The test loads the
file by name into the same architecture recorded with topos and compares
logits. tests/golden/checkpoints/ keeps one such pair, so the test runs without
torch too."""
import json
import pathlib
import struct
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    """Conv2d(1 -> 4, 3x3, padding 1), ReLU, MaxPool 2, flatten, LayerNorm(64), Linear(64 -> 3)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, padding=1)
        self.norm = nn.LayerNorm(64)
        self.fc = nn.Linear(64, 3)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        return self.fc(self.norm(torch.flatten(x, 1)))


def write_safetensors(path, tensors):
    header = {}
    payload = b""
    for name, tensor in tensors.items():
        data = tensor.detach().contiguous().numpy().astype("<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(tensor.shape),
                        "data_offsets": [len(payload), len(payload) + len(data)]}
        payload += data
    header["__metadata__"] = {"format": "pt"}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    path.write_bytes(struct.pack("<Q", len(text)) + text + payload)


def main():
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(2026)
    net = Net()
    with torch.no_grad():  # a LayerNorm that is not the identity at start
        net.norm.weight.uniform_(0.5, 1.5)
        net.norm.bias.uniform_(-0.5, 0.5)
    batch = torch.randn(5, 1, 8, 8)
    logits = net(batch)
    write_safetensors(out / "torch_cnn.safetensors", net.state_dict())
    (out / "torch_cnn_logits.json").write_text(json.dumps({
        "torch": torch.__version__,
        "input_shape": list(batch.shape),
        "input": batch.flatten().tolist(),
        "logits_shape": list(logits.shape),
        "logits": logits.detach().flatten().tolist(),
    }) + "\n")
    print(f"wrote {out / 'torch_cnn.safetensors'} and {out / 'torch_cnn_logits.json'}")


if __name__ == "__main__":
    main()
