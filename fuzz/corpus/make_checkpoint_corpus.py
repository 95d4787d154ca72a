#!/usr/bin/env python3
"""Writes the seed corpus of fuzz/checkpoint_fuzz.cpp into the folder beside
this script, checkpoint/: valid checkpoints of the fuzzer's network (an Mlp
3 -> 4 -> 2: parameter.0 [3, 4], parameter.1 [4], parameter.2 [4, 2],
parameter.3 [2]) in F32 and F64, without an optimizer state, with Adam's and with Sgd's, laid out
as checkpoint::save lays them out. Python's standard library alone."""

import json
import os
import struct

SHAPES = {"parameter.0": [3, 4], "parameter.1": [4], "parameter.2": [4, 2], "parameter.3": [2]}
BUFFERS = {"sgd": ["momentum"], "adam": ["first_moment", "second_moment"]}


def elements(shape):
    count = 1
    for extent in shape:
        count *= extent
    return count


def checkpoint(dtype, optimizer, steps):
    code, size = {"F32": ("<f", 4), "F64": ("<d", 8)}[dtype]
    names = list(SHAPES)
    for buffer in BUFFERS.get(optimizer, []):
        names += ["optimizer.%s.%s" % (buffer, name) for name in SHAPES]
    header = {"__metadata__": {"format": "topos"}}
    if optimizer:
        header["__metadata__"].update({"optimizer": optimizer, "optimizer.steps": str(steps)})
    payload = b""
    for index, name in enumerate(names):
        shape = SHAPES[name.split(".", 2)[-1] if name.startswith("optimizer.") else name]
        values = [(index + 1) * 0.25 - e * 0.125 for e in range(elements(shape))]
        begin = len(payload)
        payload += b"".join(struct.pack(code, v) for v in values)
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [begin, begin + size * len(values)]}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + payload


def main():
    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "checkpoint")
    os.makedirs(folder, exist_ok=True)
    for dtype, optimizer, steps in (("F32", None, 0), ("F32", "adam", 3), ("F64", "sgd", 1)):
        name = "%s_%s.safetensors" % (dtype.lower(), optimizer or "parameters")
        with open(os.path.join(folder, name), "wb") as out:
            out.write(checkpoint(dtype, optimizer, steps))


if __name__ == "__main__":
    main()
