#!/usr/bin/python3
"""The PyTorch prototype behind the gallery's digits recipes (docs/gallery.md).

Trains an ensemble of MLPs or CNNs as examples/gallery/digits_mlp.cpp and
digits_cnn.cpp do (BatchNorm, ReLU, AdamW with weight decay 0.01 on a cosine
schedule from 0.003, batches of 50, PyTorch's default initialisation) and
prints each member's accuracy and the ensemble's (the sum of the members'
softmax). `--split test` trains on rows 0..1499 and scores rows 1500..1796;
`--split foldK` (K = 0..4) leaves out training rows 300K..300K+299 and scores
them. Needs Debian's python3-torch:

    /usr/bin/python3 tools/digits_prototype.py --model cnn --channels 32,64 --jitter
    /usr/bin/python3 tools/digits_prototype.py --model mlp --epochs 40 --jitter \\
        --noise 0.2 --smoothing 0.1 --split fold2

Its random draws are PyTorch's, not topos's, so its figures differ from the
examples' by a seed's worth.
"""
import argparse
import math
import pathlib
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

DATA = pathlib.Path(__file__).resolve().parent.parent / "data" / "digits.csv"


def arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", choices=["mlp", "cnn"], default="cnn")
    parser.add_argument("--hidden", default="512,256", help="the MLP's hidden widths")
    parser.add_argument("--channels", default="8,16", help="the CNN's two filter counts")
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--members", type=int, default=3)
    parser.add_argument("--jitter", action="store_true",
                        help="rotate (sine up to 0.14), scale (+-8%%) and shift (+-0.5 pixel)")
    parser.add_argument("--noise", type=float, default=0.0, help="stddev of pixel noise")
    parser.add_argument("--smoothing", type=float, default=0.0, help="label smoothing")
    parser.add_argument("--split", default="test", help="test, or fold0 .. fold4")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2)
    return parser.parse_args()


def split(pixels, labels, name):
    if name == "test":
        train, score = torch.arange(0, 1500), torch.arange(1500, 1797)
    elif name.startswith("fold") and name[4:] in "01234":
        first = 300 * int(name[4:])
        score = torch.arange(first, first + 300)
        train = torch.tensor([i for i in range(1500) if not first <= i < first + 300])
    else:
        raise SystemExit(f"--split {name}: expected test or fold0 .. fold4")
    return pixels[train], labels[train], pixels[score], labels[score]


def jittered(images, generator):
    """Rotation, scaling and shift about the centre, bilinear, zeros outside."""
    count = images.shape[0]

    def symmetric(largest):
        return (torch.rand(count, generator=generator) * 2 - 1) * largest

    sine = symmetric(0.14)
    cosine = torch.sqrt(1 - sine * sine)
    shrink = 1 / (1 + symmetric(0.08))
    theta = torch.zeros(count, 2, 3)
    theta[:, 0, 0] = cosine * shrink
    theta[:, 0, 1] = -sine * shrink
    theta[:, 1, 0] = sine * shrink
    theta[:, 1, 1] = cosine * shrink
    theta[:, 0, 2] = symmetric(0.5) / 3.5  # pixels to affine_grid's [-1, 1]
    theta[:, 1, 2] = symmetric(0.5) / 3.5
    grid = F.affine_grid(theta, (count, 1, 8, 8), align_corners=True)
    return F.grid_sample(images.view(count, 1, 8, 8), grid, align_corners=True).view(count, 64)


def model(options):
    if options.model == "mlp":
        widths = [64] + [int(w) for w in options.hidden.split(",")]
        layers = []
        for inputs, outputs in zip(widths, widths[1:]):
            layers += [nn.Linear(inputs, outputs), nn.BatchNorm1d(outputs), nn.ReLU()]
        return nn.Sequential(*layers, nn.Linear(widths[-1], 10))
    first, second = (int(c) for c in options.channels.split(","))
    return nn.Sequential(
        nn.Unflatten(1, (1, 8, 8)),
        nn.Conv2d(1, first, 3, padding=1), nn.BatchNorm2d(first), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(first, second, 3, padding=1), nn.BatchNorm2d(second), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(second * 4, 10))


def trained_member(options, seed, train_pixels, train_labels, score_pixels):
    torch.manual_seed(seed)
    network = model(options)
    generator = torch.Generator().manual_seed(seed + 7)
    optimizer = torch.optim.AdamW(network.parameters(), lr=0.003, weight_decay=0.01)
    per_epoch = train_pixels.shape[0] // 50
    steps = options.epochs * per_epoch
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: 0.5 * (1 + math.cos(math.pi * step / steps)))
    for _ in range(options.epochs):
        network.train()
        order = torch.randperm(train_pixels.shape[0], generator=generator)
        for batch in range(per_epoch):
            rows = order[batch * 50:(batch + 1) * 50]
            pixels = train_pixels[rows]
            if options.jitter:
                pixels = jittered(pixels, generator)
            if options.noise:
                pixels = pixels + options.noise * torch.randn(pixels.shape, generator=generator)
            loss = F.cross_entropy(network(pixels), train_labels[rows],
                                   label_smoothing=options.smoothing)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
    network.eval()
    with torch.no_grad():
        return F.softmax(network(score_pixels), 1)


def main():
    options = arguments()
    torch.set_num_threads(options.threads)
    rows = np.loadtxt(DATA, delimiter=",")
    pixels = torch.tensor(rows[:, :64] / 16.0, dtype=torch.float32)
    labels = torch.tensor(rows[:, 64], dtype=torch.long)
    train_pixels, train_labels, score_pixels, score_labels = split(pixels, labels, options.split)
    start = time.time()
    ensemble = torch.zeros(score_pixels.shape[0], 10)
    for member in range(options.members):
        probabilities = trained_member(options, 10 * member + 1000 * options.seed,
                                       train_pixels, train_labels, score_pixels)
        accuracy = (probabilities.argmax(1) == score_labels).float().mean().item()
        print(f"member {member + 1} accuracy: {accuracy * 100:.2f}%", flush=True)
        ensemble += probabilities
    accuracy = (ensemble.argmax(1) == score_labels).float().mean().item()
    print(f"ensemble accuracy: {accuracy * 100:.2f}% of {score_pixels.shape[0]} digits "
          f"({time.time() - start:.0f} s)")


if __name__ == "__main__":
    main()
