#!/usr/bin/env python3
"""Compares the length of each program in examples/ (or a folder below it, such
as examples/gallery/) that has a LibTorch twin in docs/twins/ with its twin's:
lines that are neither blank nor only a comment (the opening comment included,
so only code counts). Prints a Markdown table; with --check F, fails unless F
holds that table and every program is at most a quarter longer than its twin.

usage: tools/twin-lengths.py ROOT            print the table
       tools/twin-lengths.py ROOT --check F  check the table in F and the ratios
"""
import pathlib
import sys

# Each program's path below examples/, without ".cpp"; its twin is
# docs/twins/<its file name>.
PROGRAMS = ["logistic_regression", "cnn_checkpoint", "hessian_vector_product",
            "gallery/breast_cancer"]
LIMIT = 1.25


def code_lines(path):
    count = 0
    in_block = False
    for line in path.read_text().splitlines():
        text = line.strip()
        if in_block:
            in_block = "*/" not in text
            continue
        if text.startswith("/*"):
            in_block = "*/" not in text
            continue
        if text and not text.startswith("//"):
            count += 1
    return count


def rows(root):
    out = []
    for program in PROGRAMS:
        name = pathlib.PurePosixPath(program).name
        topos = code_lines(root / "examples" / f"{program}.cpp")
        torch = code_lines(root / "docs" / "twins" / f"{name}.cpp")
        out.append((program, topos, torch, topos / torch))
    return out


def table(root):
    lines = ["| program | topos lines | LibTorch lines | topos / LibTorch |",
             "| --- | ---: | ---: | ---: |"]
    for program, topos, torch, ratio in rows(root):
        name = pathlib.PurePosixPath(program).name
        lines.append(f"| [`{name}`](../../examples/{program}.cpp) "
                     f"([twin](../twins/{name}.cpp)) | {topos} | {torch} | {ratio:.2f} |")
    return "\n".join(lines) + "\n"


def main():
    root = pathlib.Path(sys.argv[1])
    text = table(root)
    if len(sys.argv) == 2:
        sys.stdout.write(text)
        return 0
    if len(sys.argv) != 4 or sys.argv[2] != "--check":
        print(__doc__, file=sys.stderr)
        return 2
    status = 0
    document = (root / sys.argv[3]).read_text()
    if text not in document:
        print(f"{sys.argv[3]} does not hold the table of program lengths; regenerate it with "
              f"tools/twin-lengths.py . and paste it:\n{text}", file=sys.stderr)
        status = 1
    for program, topos, torch, ratio in rows(root):
        if ratio > LIMIT:
            print(f"examples/{program}.cpp has {topos} lines of code, {ratio:.2f} times the "
                  f"{torch} of its LibTorch twin (at most {LIMIT})", file=sys.stderr)
            status = 1
    if status == 0:
        print(f"{len(PROGRAMS)} programs, each at most {LIMIT} times its LibTorch twin")
    return status


if __name__ == "__main__":
    sys.exit(main())
