#!/usr/bin/env python3
"""An independent safetensors reader, standard library only (json, struct).

Prints one line per tensor, in the order of the header's offsets:
    NAME DTYPE [EXTENTS] VALUE VALUE ...
with each value as Python's repr of the float it decodes to, then one line per
metadata entry: `__metadata__ KEY=VALUE`. Exits 1 with a message on stderr when
the file is not a valid safetensors file. checkpoint_test.cpp compares the
output with what the C++ writer saved.
"""
import json
import struct
import sys

FORMATS = {"F32": ("<f", 4), "F64": ("<d", 8)}


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 8:
        raise ValueError("shorter than the 8-byte header length")
    (length,) = struct.unpack("<Q", data[:8])
    if 8 + length > len(data):
        raise ValueError(f"header length {length} runs past the end")
    header = json.loads(data[8:8 + length].decode("utf-8"))
    payload = data[8 + length:]
    metadata = header.pop("__metadata__", {})
    tensors = []
    for name, entry in header.items():
        fmt, size = FORMATS[entry["dtype"]]
        begin, end = entry["data_offsets"]
        count = 1
        for extent in entry["shape"]:
            count *= extent
        if end - begin != count * size or end > len(payload):
            raise ValueError(f"{name}: offsets [{begin}, {end}] do not fit")
        values = struct.unpack("<" + fmt[1] * count, payload[begin:end])
        tensors.append((begin, name, entry["dtype"], entry["shape"], values))
    return sorted(tensors), metadata


def main(path):
    try:
        tensors, metadata = read(path)
    except (OSError, ValueError, KeyError, TypeError, struct.error) as error:
        print(f"read_safetensors.py: {path}: {error}", file=sys.stderr)
        return 1
    for _, name, dtype, shape, values in tensors:
        extents = ",".join(str(e) for e in shape)
        print(name, dtype, f"[{extents}]", *(repr(v) for v in values))
    for key, value in sorted(metadata.items()):
        print(f"__metadata__ {key}={value}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
