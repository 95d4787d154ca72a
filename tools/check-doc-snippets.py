#!/usr/bin/env python3
"""Checks that the code and output quoted in the docs are the project's own.

A fenced block preceded by `<!-- snippet: PATH -->` must appear, line for line
(leading indentation aside), as a contiguous run of lines in PATH; a block
preceded by `<!-- output: PATH -->` must appear the same way in PATH, which is
an example's golden output (itself checked against the example's real output by
CTest). So a doc quotes only code that compiles and output that was printed.
"""
import pathlib
import re
import sys

MARKER = re.compile(r"<!--\s*(snippet|output):\s*(\S+)\s*-->")


def blocks(markdown):
    lines = markdown.splitlines()
    i = 0
    while i < len(lines):
        match = MARKER.search(lines[i])
        if match and i + 1 < len(lines) and lines[i + 1].startswith("```"):
            body = []
            j = i + 2
            while j < len(lines) and not lines[j].startswith("```"):
                body.append(lines[j])
                j += 1
            yield match.group(1), match.group(2), body, i + 1
            i = j
        i += 1


def contains(haystack, needle, strip):
    norm = (lambda s: s.strip()) if strip else (lambda s: s.rstrip())
    hay = [norm(line) for line in haystack]
    ned = [norm(line) for line in needle]
    return any(hay[k:k + len(ned)] == ned for k in range(len(hay) - len(ned) + 1))


def main(root, docs):
    failures = 0
    checked = 0
    for doc in docs:
        text = pathlib.Path(doc).read_text()
        for kind, path, body, line in blocks(text):
            source = pathlib.Path(root, path)
            checked += 1
            if not source.exists():
                print(f"{doc}:{line}: {path} does not exist")
                failures += 1
            elif not contains(source.read_text().splitlines(), body, strip=(kind == "snippet")):
                print(f"{doc}:{line}: the quoted {kind} is not in {path}")
                failures += 1
    print(f"{checked} quoted blocks checked, {failures} differ")
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
