#!/usr/bin/python3
"""Writes the models of the ONNX import benchmarks (bench/onnx_bench.cpp and
bench/libtorch_onnx_bench.cpp) into a folder outside the repository.

- resnet18.onnx: a ResNet-18 (BasicBlock x [2, 2, 2, 2], 224 x 224 images,
  1000 classes) written out by hand, random seeded weights, exported with
  torch.onnx.export (opset 13, batch norms kept: TrainingMode.PRESERVE and no
  constant folding), for the import time; resnet18.pt beside it.
- lenet.pt, transformer.pt: TorchScript (torch.jit.trace) of the modules of
  data/onnx/lenet.onnx and data/onnx/transformer.onnx, their weights read
  back from those files, for LibTorch to run beside topos's import of them.
- transformer_large.onnx and .pt: a larger TransformerEncoderLayer (d_model
  256, 4 heads, feed-forward 1024, batch 8 x sequence 128).
- transformer_large_square.onnx: the same file with each Pow(x, 2) of the
  layer norms (torch.onnx.export's LayerNorm at opset 13) rewritten as
  Mul(x, x), which rounds to the same bits, to measure what the general Pow
  costs topos.
- NAME.input.npy and NAME.output.npy: each model's input and PyTorch's output.

Transformers are traced twice: NAME.pt under torch.no_grad(), which takes
PyTorch's fused inference path (torch._transformer_encoder_layer_fwd), and
NAME_composite.pt with gradients enabled, the composite path that
torch.onnx.export records. Needs Debian's python3-torch and python3-onnx:
    /usr/bin/python3 bench/export_onnx_bench_models.py /tmp/topos-onnx-bench
"""
import importlib.util
import io
import os
import sys

import numpy as np
import onnx
import onnx.numpy_helper
import torch
from torch import nn

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def fixture_module():
    """tools/export-onnx-fixtures.py as a module, for the models it exported."""
    path = os.path.join(ROOT, "tools", "export-onnx-fixtures.py")
    spec = importlib.util.spec_from_file_location("export_onnx_fixtures", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# The LeNet of data/onnx/lenet.onnx, as tools/export-onnx-fixtures.py defines it.
LeNet = fixture_module().LeNet


class BasicBlock(nn.Module):
    def __init__(self, inputs, outputs, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(inputs, outputs, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(outputs)
        self.conv2 = nn.Conv2d(outputs, outputs, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(outputs)
        self.downsample = None
        if stride != 1 or inputs != outputs:
            self.downsample = nn.Sequential(nn.Conv2d(inputs, outputs, 1, stride=stride, bias=False),
                                            nn.BatchNorm2d(outputs))

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        shortcut = x if self.downsample is None else self.downsample(x)
        return torch.relu(y + shortcut)


class ResNet18(nn.Module):
    def __init__(self, classes=1000):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.maxpool = nn.MaxPool2d(3, stride=2, padding=1)
        layers = []
        channels = 64
        for outputs, stride in [(64, 1), (128, 2), (256, 2), (512, 2)]:
            layers.append(nn.Sequential(BasicBlock(channels, outputs, stride), BasicBlock(outputs, outputs, 1)))
            channels = outputs
        self.layer1, self.layer2, self.layer3, self.layer4 = layers
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(512, classes)

    def forward(self, x):
        x = self.maxpool(torch.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


def settle_statistics(model, shape, rounds=2):
    """Gives batch norms running statistics of their own, then evaluation mode."""
    model.train()
    with torch.no_grad():
        for _ in range(rounds):
            model(torch.randn(*shape))
    return model.eval()


def load_weights(module, path):
    """Loads the initializers of an ONNX file into `module` by name: every
    parameter and buffer but batch norms' counters must be there."""
    model = onnx.load(path)
    weights = {tensor.name: torch.from_numpy(onnx.numpy_helper.to_array(tensor).copy())
               for tensor in model.graph.initializer}
    missing, unexpected = module.load_state_dict(weights, strict=False)
    missing = [name for name in missing if not name.endswith("num_batches_tracked")]
    if missing or unexpected:
        raise RuntimeError(f"{path}: missing {missing}, unexpected {unexpected}")
    return module.eval()


def export_onnx(model, example, path, dynamic_batch):
    buffer = io.BytesIO()
    torch.onnx.export(
        model, example, buffer, input_names=["input"], output_names=["output"],
        dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}} if dynamic_batch else None,
        opset_version=13, training=torch.onnx.TrainingMode.PRESERVE, do_constant_folding=False)
    with open(path, "wb") as file:
        file.write(buffer.getvalue())


def squares_as_products(source, target):
    """Rewrites every Pow whose exponent is the constant 2 as Mul(x, x)."""
    model = onnx.load(source)
    twos = set()
    for node in model.graph.node:
        if node.op_type == "Constant":
            value = onnx.numpy_helper.to_array(node.attribute[0].t)
            if value.size == 1 and float(value.reshape(-1)[0]) == 2.0:
                twos.add(node.output[0])
    for tensor in model.graph.initializer:
        value = onnx.numpy_helper.to_array(tensor)
        if value.size == 1 and float(value.reshape(-1)[0]) == 2.0:
            twos.add(tensor.name)
    rewritten = 0
    for node in model.graph.node:
        if node.op_type == "Pow" and node.input[1] in twos:
            node.op_type = "Mul"
            node.input[1] = node.input[0]
            rewritten += 1
    if rewritten == 0:
        raise RuntimeError(f"{source}: no Pow(x, 2) found")
    onnx.save(model, target)


def save_pair(model, example, name, folder):
    with torch.no_grad():
        output = model(example)
    np.save(os.path.join(folder, name + ".input.npy"), example.numpy())
    np.save(os.path.join(folder, name + ".output.npy"), output.numpy())


def trace(model, example, path, fused):
    """TorchScript of `model`: under no_grad where `fused` (PyTorch's inference
    fast path for transformer layers), else with gradients enabled."""
    if fused:
        with torch.no_grad():
            traced = torch.jit.trace(model, example)
    else:
        # The trace's check reruns the module without gradients, on the fast path.
        traced = torch.jit.trace(model, example, check_trace=False)
    traced.save(path)


def transformer(d_model, nhead, feedforward):
    return nn.TransformerEncoderLayer(d_model=d_model, nhead=nhead, dim_feedforward=feedforward,
                                      dropout=0.0, batch_first=True).eval()


def main(folder):
    os.makedirs(folder, exist_ok=True)
    torch.manual_seed(2024)

    resnet = settle_statistics(ResNet18(), (4, 3, 224, 224))
    image = torch.randn(1, 3, 224, 224)
    export_onnx(resnet, image, os.path.join(folder, "resnet18.onnx"), dynamic_batch=True)
    trace(resnet, image, os.path.join(folder, "resnet18.pt"), fused=True)
    save_pair(resnet, image, "resnet18", folder)

    lenet = load_weights(LeNet(), os.path.join(ROOT, "data", "onnx", "lenet.onnx"))
    images = torch.randn(64, 1, 28, 28)
    trace(lenet, images, os.path.join(folder, "lenet.pt"), fused=True)
    save_pair(lenet, images, "lenet", folder)

    small = load_weights(transformer(16, 2, 32), os.path.join(ROOT, "data", "onnx", "transformer.onnx"))
    tokens = torch.randn(2, 7, 16)
    trace(small, tokens, os.path.join(folder, "transformer.pt"), fused=True)
    trace(small, tokens, os.path.join(folder, "transformer_composite.pt"), fused=False)
    save_pair(small, tokens, "transformer", folder)

    large = transformer(256, 4, 1024)
    tokens = torch.randn(8, 128, 256)
    export_onnx(large, tokens, os.path.join(folder, "transformer_large.onnx"), dynamic_batch=False)
    squares_as_products(os.path.join(folder, "transformer_large.onnx"),
                        os.path.join(folder, "transformer_large_square.onnx"))
    trace(large, tokens, os.path.join(folder, "transformer_large.pt"), fused=True)
    trace(large, tokens, os.path.join(folder, "transformer_large_composite.pt"), fused=False)
    save_pair(large, tokens, "transformer_large", folder)

    for name in sorted(os.listdir(folder)):
        print(f"{os.path.getsize(os.path.join(folder, name)):>10}  {name}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/tmp/topos-onnx-bench")
