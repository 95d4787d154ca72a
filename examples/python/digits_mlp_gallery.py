"""The gallery's digits MLP from Python: the twin of examples/gallery/digits_mlp.cpp,
line for line and bit for bit. An ensemble of three MLPs (64 pixels -> 512 ->
256 -> 10 logits, each hidden Linear layer followed by BatchNorm and ReLU),
each trained with AdamW on a cosine schedule on mini-batches of 50 jittered,
noisy digits against labels smoothed by 0.1, through a compiled plan, then
evaluated on the 297 held-out digits through a second export of the same
network that reads the BatchNorm running statistics as inputs. It prints what
the C++ program prints; with --losses PATH it writes every step's loss bits as
the C++ program's --losses does (python/tests/test_digits_mlp_gallery_twin.py
compares both).

usage: digits_mlp_gallery.py DIGITS_CSV [--losses PATH]
"""
import argparse
import math
import struct

import numpy as np

import topos

REQUIRED_ACCURACY = 0.96
MEMBERS = 3
BATCH, EPOCHS, LEARNING_RATE = 50, 40, 0.003
JITTER = topos.data.AffineJitter(largest_sine=0.14, largest_scale=0.08, largest_shift=0.5)


def torch_default(seed, fan_in):
    """PyTorch's default initialisation of Linear weights: uniform in +-1/sqrt(fan_in)."""
    bound = 1 / math.sqrt(fan_in)
    return topos.init.uniform(seed, -bound, bound)


def record_classifier(seed, test_pixels):
    """The training graph over a batch and the evaluation graph over the test set."""
    tape = topos.Tape("float32")
    hidden1 = topos.Linear(tape, 64, 512, init=torch_default(seed + 1, 64))
    norm1 = topos.BatchNorm(tape, 512)
    hidden2 = topos.Linear(tape, 512, 256, init=torch_default(seed + 2, 512))
    norm2 = topos.BatchNorm(tape, 256)
    classify = topos.Linear(tape, 256, 10, init=torch_default(seed + 3, 256))
    modules = [hidden1, norm1, hidden2, norm2, classify]

    def model(pixels, normalise):
        first = normalise(norm1, hidden1(pixels)).relu()
        second = normalise(norm2, hidden2(first)).relu()
        return classify(second)

    batch_statistics = []

    def by_batch(layer, x):
        recorded = layer.training(x)
        batch_statistics.append((layer, recorded.mean, recorded.variance,
                                 topos.elements_per_channel(x.shape)))
        return recorded.output

    running_inputs = []

    def by_running_statistics(layer, x):
        running_inputs.append(layer.statistics_inputs(tape))
        return layer.inference(x, running_inputs[-1])

    images = tape.input(np.zeros((BATCH, 64), np.float32))
    labels = tape.indices(np.zeros(BATCH, np.float32))
    loss = topos.cross_entropy(model(images, by_batch), labels, label_smoothing=0.1)
    adjoints = tape.differentiate(loss, topos.parameters_of(*modules))
    test_logits = model(tape.input(test_pixels), by_running_statistics)
    return dict(network=tape.into_network(), modules=modules, adjoints=adjoints, images=images,
                labels=labels, batch_statistics=batch_statistics, test_logits=test_logits,
                running_inputs=running_inputs)


def train(classifier, pixels, labels, seed):
    """Trained parameters, running statistics and each step's loss."""
    roots = classifier["adjoints"].roots()
    for _, mean, variance, _ in classifier["batch_statistics"]:
        roots += [mean, variance]
    plan = classifier["network"].entry(roots).numerics("exact").lower()
    adamw = topos.optim.AdamW(lr=LEARNING_RATE, weight_decay=0.01)
    per_epoch = len(labels) // BATCH
    steps = EPOCHS * per_epoch
    schedule = topos.optim.WarmupCosine(LEARNING_RATE, 0, steps)
    parameters = classifier["network"].parameters()
    running = [layer.start() for layer, *_ in classifier["batch_statistics"]]
    state = adamw.start(parameters)
    generator = topos.data.Generator(seed)
    progress = topos.data.Progress(steps, every=steps // 5)
    for epoch in range(EPOCHS):
        order = np.array(topos.data.shuffled(len(labels), generator))
        for b in range(per_epoch):
            rows = order[b * BATCH:(b + 1) * BATCH]
            images = pixels[rows]
            topos.data.jitter_images(images, 8, 8, JITTER, generator)
            topos.data.add_gaussian_noise(images, 0.2, generator)
            run = plan.forward(parameters, {classifier["images"]: images,
                                            classifier["labels"]: labels[rows]})
            gradients = run.recorded_gradients(classifier["adjoints"])
            parameters, state = adamw.step(parameters, gradients, state,
                                           learning_rate=schedule(state.steps))
            running = [layer.update(statistics, run.of(mean), run.of(variance), count)
                       for (layer, mean, variance, count), statistics
                       in zip(classifier["batch_statistics"], running)]
            progress.update(epoch * per_epoch + b, float(run.of(classifier["adjoints"].target)),
                            BATCH)
    progress.finish()
    return parameters, running, progress.losses()


def test_logits(classifier, parameters, running):
    plan = classifier["network"].entry([classifier["test_logits"]]).numerics("exact").lower()
    feeds = {}
    for inputs, (mean, variance) in zip(classifier["running_inputs"], running):
        feeds[inputs.mean], feeds[inputs.variance] = mean, variance
    return plan.forward(parameters, feeds).of(classifier["test_logits"])


def accuracy(logits, labels):
    return float(np.mean(np.argmax(logits, axis=1) == labels))


def add_softmax(sums, logits):
    """The ensemble's scores: each row's softmax, in double, added in float."""
    for row, scores in enumerate(logits):
        largest = scores.max()
        exps = [math.exp(float(score - largest)) for score in scores]
        total = 0.0
        for value in exps:
            total += value
        for c, value in enumerate(exps):
            sums[row, c] += np.float32(value / total)


def bits_of(loss):
    """The bits of a double, as an integer."""
    return struct.unpack("<Q", struct.pack("<d", loss))[0]


def smoothed(losses, points=100):
    """A loss curve of at most `points` points: means of consecutive runs of steps."""
    run = max(1, (len(losses) + points - 1) // points)
    steps, means = [], []
    for start in range(0, len(losses), run):
        end = min(len(losses), start + run)
        total = 0.0
        for loss in losses[start:end]:
            total += loss
        steps.append((start + end - 1) / 2.0 + 1.0)
        means.append(total / (end - start))
    return steps, means


def main(path, losses_path):
    table = topos.data.read_csv(path)
    pixels, labels = table[:, :64] / np.float32(16), table[:, 64]
    training, test = (pixels[:1500], labels[:1500]), (pixels[1500:], labels[1500:])
    chart = topos.show.Plot().title("training loss").x_label("step").y_label("loss")
    losses_file = open(losses_path, "w") if losses_path else None
    positive = True
    sums = np.zeros((len(test[1]), 10), np.float32)
    for member in range(MEMBERS):
        seed = 10 * member
        classifier = record_classifier(seed, test[0])
        if member == 0:
            print("\n".join(module.describe() for module in classifier["modules"]) + "\n\n", end="")
        parameters, running, losses = train(classifier, *training, seed + 7)
        label = f"member {member + 1}"
        steps, means = smoothed(losses)
        positive = positive and all(mean > 0 for mean in means)
        chart.line(label, means, steps)
        if losses_file:
            losses_file.writelines(f"{label}\t{step}\t{bits_of(loss):016x}\n"
                                   for step, loss in enumerate(losses, 1))
        logits = test_logits(classifier, parameters, running)
        print(f"member {member + 1} test accuracy: {accuracy(logits, test[1]) * 100:.2f}%")
        add_softmax(sums, logits)
    measured = accuracy(sums, test[1])
    print(f"test accuracy: {measured * 100:.2f}% of 297 digits "
          f"(required: at least {REQUIRED_ACCURACY * 100:.2f}%)")
    if measured < REQUIRED_ACCURACY:
        print("BELOW THE REQUIRED ACCURACY")
    chart.y_axis(topos.show.Axis.Log if positive else topos.show.Axis.Linear)
    print("\n" + chart.text(72, 14), end="")
    return measured >= REQUIRED_ACCURACY


if __name__ == "__main__":
    arguments = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    arguments.add_argument("digits_csv")
    arguments.add_argument("--losses", help="write every step's loss bits here")
    options = arguments.parse_args()
    raise SystemExit(0 if main(options.digits_csv, options.losses) else 1)
