#!/usr/bin/env python3
"""Renders HTML pages in headless Chromium and checks what a reader would meet.

Usage: check-pages.py SCREENSHOTS PAGE_OR_FOLDER...

For every page (.html files under each folder):
- every internal link (href or src that is not http(s), mailto or data)
  names a file that exists, and its #fragment an id or name in that file;
- Chromium (Debian's `chromium`, headless) renders it to
  SCREENSHOTS/<folder>-<path in it, / as ->.png; the page fails when Chromium
  fails, prints any console message (the pages run no script, so any message
  is an error: a refused resource, a parse error), or draws a blank page
  (a screenshot of at most 2 distinct byte values in its image rows).

Prints one line per page and exits 1 when any page fails.
"""
import html.parser
import pathlib
import shutil
import struct
import subprocess
import sys
import tempfile
import urllib.parse
import zlib

EXTERNAL = ("http:", "https:", "mailto:", "data:")


class Anchors(html.parser.HTMLParser):
    """The ids and names a page defines, and the links it makes."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids = set()
        self.links = []

    def handle_starttag(self, tag, attributes):
        values = dict(attributes)
        for key in ("id", "name"):
            if values.get(key):
                self.ids.add(values[key])
        for key in ("href", "src"):
            if values.get(key) is not None and not (tag == "a" and key == "src"):
                self.links.append(values[key])


def parsed(path, cache):
    if path not in cache:
        reader = Anchors()
        reader.feed(path.read_text(encoding="utf-8", errors="replace"))
        cache[path] = reader
    return cache[path]


def broken_links(page, cache):
    problems = []
    for link in parsed(page, cache).links:
        if link.startswith(EXTERNAL) or link.startswith("xlink"):
            continue
        target, _, fragment = link.partition("#")
        path = (page.parent / urllib.parse.unquote(target)).resolve() if target else page
        if not path.is_file():
            problems.append(f"link to {link}: no file {path}")
            continue
        if fragment and path.suffix == ".html" and \
                urllib.parse.unquote(fragment) not in parsed(path, cache).ids:
            problems.append(f"link to {link}: {path.name} has no id {fragment!r}")
    return problems


def distinct_bytes(png):
    """The number of distinct byte values in a PNG's image rows, filter bytes
    left out: a one-colour page has at most two (the colour, and the zero
    differences of filtered rows)."""
    data = png.read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return 0
    position, chunks, row = 8, [], 0
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        if kind == b"IHDR":
            width, _, depth, colour = struct.unpack(">IIBB", data[position + 8:position + 18])
            channels = {0: 1, 2: 3, 4: 2, 6: 4}.get(colour, 4)
            row = 1 + width * channels * depth // 8
        if kind == b"IDAT":
            chunks.append(data[position + 8:position + 8 + length])
        position += 12 + length
    pixels = zlib.decompress(b"".join(chunks))
    values = set()
    for start in range(0, len(pixels), row):
        values.update(pixels[start + 1:start + row])
    return len(values)


def render(chromium, page, screenshot):
    with tempfile.TemporaryDirectory() as profile:
        finished = subprocess.run(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             f"--user-data-dir={profile}", "--window-size=1280,1600", "--enable-logging=stderr",
             "--v=0", f"--screenshot={screenshot}", page.resolve().as_uri()],
            capture_output=True, text=True, timeout=120, check=False)
    problems = []
    if finished.returncode != 0 or not screenshot.exists():
        problems.append(f"Chromium failed (exit status {finished.returncode})")
        return problems
    for line in finished.stderr.splitlines():
        if ":CONSOLE" in line:
            problems.append("console: " + line.split("] ", 1)[-1])
    if distinct_bytes(screenshot) <= 2:
        problems.append("the page renders blank")
    return problems


def pages_under(paths):
    """(page, screenshot name) pairs: a folder's pages named by their path in it."""
    for path in map(pathlib.Path, paths):
        if path.is_dir():
            for page in sorted(path.rglob("*.html")):
                yield page, "-".join((path.name,) + page.relative_to(path).with_suffix("").parts)
        else:
            yield path, path.stem


def main(arguments):
    if len(arguments) < 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("check-pages: no chromium (Debian: apt-get install chromium)", file=sys.stderr)
        return 1
    screenshots = pathlib.Path(arguments[0])
    screenshots.mkdir(parents=True, exist_ok=True)
    cache, failed, count = {}, 0, 0
    for page, name in pages_under(arguments[1:]):
        count += 1
        screenshot = screenshots / (name + ".png")
        problems = broken_links(page, cache) + render(chromium, page, screenshot)
        status = "FAILED" if problems else "ok"
        print(f"check-pages: {status} {page} -> {screenshot}")
        for problem in problems:
            print(f"    {problem}")
        failed += bool(problems)
    print(f"check-pages: {count} pages rendered, {failed} failed")
    return 1 if failed or count == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
