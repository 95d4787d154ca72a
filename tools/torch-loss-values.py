#!/usr/bin/env python3
"""Writes tests/golden/losses/torch_values.json: PyTorch's values and gradients
of the losses topos records, in float64, for tests/run/losses_test.cpp.

Run with Debian's Python and python3-torch:  /usr/bin/python3 tools/torch-loss-values.py
Each case holds its operands, the loss's value (flattened) and the gradient of
the sum of that value with respect to the first operand."""
import json
import pathlib

import torch
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)

LOGITS = [[0.3, -1.2, 2.5], [-0.4, 0.9, 0.1], [3.1, 2.9, -0.5], [0.0, 0.0, 0.0]]
LABELS = [2, 0, 1, 1]
BINARY_LOGITS = [[-30.0, -2.5, 0.0], [0.75, 4.0, 35.0]]
TARGETS = [[0.0, 0.25, 1.0], [0.5, 1.0, 0.0]]
A = [[0.5, -1.5, 2.0], [3.25, 0.0, -0.2]]
B = [[0.25, 1.0, 2.0], [-0.5, 0.1, 0.3]]


def operand(values):
    tensor = torch.tensor(values)
    return {"shape": list(tensor.shape), "values": tensor.flatten().tolist()}


def case(loss, options, a, b, compute, b_is_labels=False):
    first = torch.tensor(a, requires_grad=True)
    second = torch.tensor(b, dtype=torch.long) if b_is_labels else torch.tensor(b)
    value = compute(first, second)
    value.sum().backward()
    return {
        "loss": loss,
        "options": options,
        "a": operand(a),
        "b": {"shape": [len(b)], "values": [float(v) for v in b]} if b_is_labels else operand(b),
        "value": value.detach().flatten().tolist(),
        "value_shape": list(value.shape),
        "gradient": first.grad.flatten().tolist(),
    }


def cases():
    out = []
    for reduction in ("mean", "sum", "none"):
        out.append(case("cross_entropy", {"reduction": reduction}, LOGITS, LABELS,
                        lambda x, y, r=reduction: F.cross_entropy(x, y, reduction=r), True))
        out.append(case("nll", {"reduction": reduction}, LOGITS, LABELS,
                        lambda x, y, r=reduction: F.nll_loss(F.log_softmax(x, 1), y, reduction=r),
                        True))
        out.append(case("binary_cross_entropy_with_logits", {"reduction": reduction},
                        BINARY_LOGITS, TARGETS,
                        lambda x, y, r=reduction: F.binary_cross_entropy_with_logits(
                            x, y, reduction=r)))
        out.append(case("mse", {"reduction": reduction}, A, B,
                        lambda x, y, r=reduction: F.mse_loss(x, y, reduction=r)))
        for delta in (1.0, 0.5):
            out.append(case("huber", {"reduction": reduction, "delta": delta}, A, B,
                            lambda x, y, r=reduction, d=delta: F.huber_loss(
                                x, y, reduction=r, delta=d)))
    out.append(case("cross_entropy", {"reduction": "mean", "label_smoothing": 0.1}, LOGITS,
                    LABELS, lambda x, y: F.cross_entropy(x, y, label_smoothing=0.1), True))
    return out


def main():
    path = pathlib.Path(__file__).resolve().parent.parent / "tests/golden/losses/torch_values.json"
    document = {"torch": torch.__version__, "cases": cases()}
    lines = ",\n".join(json.dumps(one) for one in document["cases"])
    path.write_text('{"torch": ' + json.dumps(document["torch"]) + ', "cases": [\n' + lines + "\n]}\n")
    print(f"wrote {len(document['cases'])} cases to {path}")


if __name__ == "__main__":
    main()
