#!/usr/bin/env python3
"""Checks what the presentation layer wrote: pictures, charts, cards, reports.

Usage: check-exhibits.py PATH... (files, or folders searched for them)

- every .svg, .html and .xhtml file parses as XML (the show layer writes
  well-formed markup, so an XML parser is the strictest reader there is);
- no .html or .svg file refers to anything outside itself: no http(s) URL
  other than the SVG and XLink namespaces, no <script src>, no <link href>;
- every .dot file is accepted by Graphviz's `dot` (when it is installed;
  otherwise the check says it skipped them, and fails under --require-dot).

Prints one line per kind of file and exits 1 naming each file that fails.
"""
import pathlib
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

NAMESPACES = ("http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink",
              "http://www.w3.org/1999/xhtml")
URL = re.compile(r"https?://[^\s\"'<>)]+")
MARKUP = {".svg", ".html", ".xhtml"}


def files_under(paths):
    for path in map(pathlib.Path, paths):
        if path.is_dir():
            yield from sorted(p for p in path.rglob("*") if p.suffix in MARKUP | {".dot"})
        else:
            yield path


def markup_problems(path):
    text = path.read_text(encoding="utf-8")
    try:
        ElementTree.fromstring(text.replace("<!DOCTYPE html>", "", 1))
    except ElementTree.ParseError as error:
        return [f"does not parse as XML: {error}"]
    problems = [f"refers to {url}" for url in URL.findall(text)
                if not url.startswith(NAMESPACES)]
    if re.search(r"<script[^>]*\bsrc=", text):
        problems.append("loads a script from a file")
    if re.search(r"<link[^>]*\bhref=", text):
        problems.append("links a style sheet or resource from a file")
    return problems


def dot_problems(path, dot):
    finished = subprocess.run([dot, "-Tsvg", str(path)], capture_output=True, text=True,
                              check=False)
    if finished.returncode != 0:
        return [f"Graphviz's dot refuses it: {finished.stderr.strip()}"]
    return markup_problems_of_text(finished.stdout)


def markup_problems_of_text(text):
    try:
        ElementTree.fromstring(text)
    except ElementTree.ParseError as error:
        return [f"dot's SVG does not parse: {error}"]
    return []


def main(arguments):
    require_dot = "--require-dot" in arguments
    paths = [argument for argument in arguments if argument != "--require-dot"]
    if not paths:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    dot = shutil.which("dot")
    failures = []
    counts = {"markup": 0, "dot": 0, "dot skipped": 0}
    for path in files_under(paths):
        if path.suffix == ".dot":
            if dot is None:
                counts["dot skipped"] += 1
                continue
            problems = dot_problems(path, dot)
            counts["dot"] += 1
        else:
            problems = markup_problems(path)
            counts["markup"] += 1
        failures += [f"{path}: {problem}" for problem in problems]
    print(f"check-exhibits: {counts['markup']} SVG/HTML files parsed, "
          f"{counts['dot']} DOT files laid out by dot"
          + (f", {counts['dot skipped']} DOT files skipped (no `dot` installed)"
             if counts["dot skipped"] else ""))
    if counts["markup"] + counts["dot"] + counts["dot skipped"] == 0:
        failures.append("no exhibit found under " + ", ".join(paths))
    if require_dot and counts["dot skipped"]:
        failures.append("Graphviz's dot is required (--require-dot) but not installed")
    for failure in failures:
        print(failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
