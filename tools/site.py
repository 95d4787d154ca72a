#!/usr/bin/python3
"""Builds topos's documentation site from the guides, running the examples.

Usage: site.py BUILD OUT

BUILD is a build folder whose examples are built; OUT receives the site. Every
page is a Markdown file of the repository (the README as index.html, docs/ as
docs/*.html, tools/README.md as tools/README.html), turned into HTML with the
same navigation and style sheet. What the guides quote is produced here, by
running code, not read from a file typed by hand:

- a fenced block after `<!-- output: examples/.../golden/NAME.txt -->` is the
  output of BUILD's example NAME, run now: the quoted lines must appear in
  what it prints (timings masked as the golden comparison masks them), and the
  page shows the lines it printed; a quote it did not print fails the build;
- a fenced block after `<!-- snippet: PATH -->` must appear in PATH;
- `<!-- figure: NAME -->` inlines the figure NAME that `reading --figures`
  (examples/reading.cpp) writes now: an SVG chart or picture;
- "The stack read six ways" (six-ways.html) is the report `reading --report`
  writes now.

Links between Markdown files become links between pages; a link to another
file of the repository copies that file into the site. tools/check renders
every page in headless Chromium (tools/check-pages.py).
"""
import html
import pathlib
import re
import shutil
import subprocess
import sys

import markdown

ROOT = pathlib.Path(__file__).resolve().parent.parent
MARKER = re.compile(r"<!--\s*(snippet|output|figure):\s*(\S+)\s*-->")
# The golden comparison's mask (examples/CMakeLists.txt, examples/gallery/CMakeLists.txt).
TIMINGS = re.compile(r"[0-9]+[.]?[0-9hms]*( examples/s| steps/s| seconds| left)")
LINK = re.compile(r'(href|src)="([^"#:]*\.[A-Za-z0-9]+)?(#[^"]*)?"')


class SiteError(Exception):
    pass


def pages():
    """(source, page) pairs: the README, then the docs in the order the README
    links them, then any other, then the list of tools."""
    readme = ROOT / "README.md"
    linked = re.findall(r"\]\((docs/[^)#]+\.md)", readme.read_text(encoding="utf-8"))
    order = list(dict.fromkeys(ROOT / path for path in linked))
    order += [path for path in sorted((ROOT / "docs").rglob("*.md")) if path not in order]
    order.append(ROOT / "tools" / "README.md")
    yield readme, pathlib.Path("index.html")
    for source in order:
        yield source, source.relative_to(ROOT).with_suffix(".html")


def title_of(source):
    if source == ROOT / "README.md":
        return "Overview"
    for line in source.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return source.stem


class Outputs:
    """What each example prints, run once per build of the site."""

    def __init__(self, build):
        self.build = build
        self.printed = {}

    def of(self, golden):
        golden = pathlib.Path(golden)
        program = self.build / golden.parent.parent.relative_to(ROOT) / golden.stem
        if program not in self.printed:
            if not program.exists():
                raise SiteError(f"{program} is not built: build the examples first")
            finished = subprocess.run([str(program)], capture_output=True, text=True,
                                      cwd=self.build, timeout=900, check=False)
            if finished.returncode != 0:
                raise SiteError(f"{program} failed:\n{finished.stderr}")
            self.printed[program] = finished.stdout.splitlines()
        return self.printed[program]


def github_anchor(text, separator):
    """A heading's anchor as GitHub writes it, so that links work in both places:
    lower case, punctuation other than - and _ dropped, spaces as `separator`."""
    text = re.sub(r"<[^>]*>", "", html.unescape(text)).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", separator)


def masked(line):
    return TIMINGS.sub(r"~\1", line).rstrip()


def locate(haystack, needle, normalise):
    hay = [normalise(line) for line in haystack]
    wanted = [normalise(line) for line in needle]
    for start in range(len(hay) - len(wanted) + 1):
        if hay[start:start + len(wanted)] == wanted:
            return start
    return None


class Page:
    def __init__(self, source, outputs, figures):
        self.source = source
        self.outputs = outputs
        self.figures = figures
        self.inserts = []

    def prepared(self):
        """The Markdown with live outputs in place and figures as placeholders."""
        lines = self.source.read_text(encoding="utf-8").splitlines()
        result = []
        i = 0
        while i < len(lines):
            match = MARKER.search(lines[i])
            result.append(lines[i])
            if not match:
                i += 1
                continue
            kind, path = match.groups()
            if kind == "figure":
                result[-1] = self.placeholder(self.figure(path))
                i += 1
                continue
            if i + 1 >= len(lines) or not lines[i + 1].startswith("```"):
                i += 1
                continue
            end = i + 2
            while end < len(lines) and not lines[end].startswith("```"):
                end += 1
            body = lines[i + 2:end]
            result.append(lines[i + 1])
            result += self.quoted(kind, path, body, i + 1)
            result.append("```")
            i = end + 1
        return "\n".join(result) + "\n"

    def quoted(self, kind, path, body, line):
        where = f"{self.source.relative_to(ROOT)}:{line}"
        if kind == "snippet":
            text = (ROOT / path).read_text(encoding="utf-8").splitlines()
            if locate(text, body, str.strip) is None:
                raise SiteError(f"{where}: the quoted code is not in {path}")
            return body
        printed = self.outputs.of(ROOT / path)
        start = locate(printed, body, masked)
        if start is None:
            raise SiteError(f"{where}: the quoted output is not what "
                            f"{pathlib.Path(path).stem} prints now")
        return printed[start:start + len(body)]

    def figure(self, name):
        figure = self.figures / name
        if not figure.exists():
            raise SiteError(f"{self.source.relative_to(ROOT)}: no figure {name} "
                            f"(examples/reading.cpp --figures writes them)")
        svg = figure.read_text(encoding="utf-8")
        svg = re.sub(r"^<\?xml[^>]*\?>\s*", "", svg)
        svg = re.sub(r"<!DOCTYPE[^>]*>\s*", "", svg)
        return f'<figure class="generated">{svg}<figcaption>{html.escape(name)}, drawn by ' \
               f'examples/reading.cpp when this site was built</figcaption></figure>'

    def placeholder(self, markup):
        self.inserts.append(markup)
        return f"\n\nTOPOSINSERT{len(self.inserts) - 1}\n\n"

    def body(self):
        converted = markdown.markdown(
            self.prepared(), extensions=["tables", "fenced_code", "toc", "sane_lists"],
            extension_configs={"toc": {"slugify": github_anchor}}, output_format="xhtml")
        for index, markup in enumerate(self.inserts):
            converted = converted.replace(f"<p>TOPOSINSERT{index}</p>", markup)
        return converted


def relink(body, page, out, copied):
    """Links to Markdown files point at their pages; other repository files are copied."""
    source_folder = (ROOT / page).parent if page.name != "index.html" else ROOT

    def rewrite(match):
        attribute, target, fragment = match.group(1), match.group(2), match.group(3) or ""
        if not target:
            return match.group(0)
        resolved = (source_folder / target).resolve()
        if resolved.suffix == ".md":
            linked = pathlib.Path("index.html") if resolved == ROOT / "README.md" else \
                resolved.relative_to(ROOT).with_suffix(".html")
            return f'{attribute}="{relative(page, linked)}{fragment.lower()}"'
        if resolved.is_file() and ROOT in resolved.parents:
            copied.add(resolved.relative_to(ROOT))
        return match.group(0)

    return LINK.sub(rewrite, body)


def relative(page, target):
    up = "../" * (len(page.parts) - 1)
    return up + target.as_posix()


STYLE = """
body { margin: 0; font: 16px/1.55 system-ui, sans-serif; color: #1d232b; display: flex; }
nav { width: 250px; flex: none; background: #f3f5f8; padding: 16px; min-height: 100vh;
      box-sizing: border-box; font-size: 14px; }
nav a { display: block; color: #24415f; text-decoration: none; padding: 3px 0; }
nav a.here { font-weight: 600; }
main { max-width: 900px; padding: 8px 32px 64px; overflow-x: auto; }
pre { background: #f6f8fa; padding: 10px 12px; overflow-x: auto; font-size: 13px;
      line-height: 1.35; border-radius: 4px; }
code { font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
table { border-collapse: collapse; margin: 12px 0; font-size: 14px; }
th, td { border: 1px solid #d5dbe3; padding: 4px 8px; vertical-align: top; }
figure.generated { margin: 16px 0; }
figure.generated svg { max-width: 100%; height: auto; }
figcaption { font-size: 13px; color: #5b6675; }
"""


def document(title, nav, body):
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/>"
            f"<title>{html.escape(title)} - topos</title><style>{STYLE}</style></head>"
            f"<body><nav>{nav}</nav><main>{body}</main></body></html>\n")


def navigation(entries, page):
    links = []
    for title, target in entries:
        here = ' class="here"' if target == page else ""
        links.append(f'<a{here} href="{relative(page, target)}">{html.escape(title)}</a>')
    return "<strong>topos</strong>" + "".join(links)


def run_reading(build, out):
    program = build / "examples" / "reading"
    if not program.exists():
        raise SiteError(f"{program} is not built: build the examples first")
    figures = out / "figures"
    subprocess.run([str(program), "--report", str(out / "six-ways.html"), "--figures",
                    str(figures)], check=True, capture_output=True, timeout=300)
    return figures


def build_site(build, out):
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    figures = run_reading(build, out)
    outputs = Outputs(build)
    listed = list(pages())
    entries = [(title_of(source), page) for source, page in listed]
    entries.insert(1, ("The stack read six ways", pathlib.Path("six-ways.html")))
    copied = set()
    for source, page in listed:
        body = relink(Page(source, outputs, figures).body(), page, out, copied)
        target = out / page
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(document(title_of(source), navigation(entries, page), body),
                          encoding="utf-8")
    for path in sorted(copied):
        (out / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / path, out / path)
    print(f"site: {len(listed) + 1} pages and {len(copied)} linked files in {out}")
    print(f"open {out / 'index.html'}")


def main(arguments):
    if len(arguments) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    try:
        build_site(pathlib.Path(arguments[0]).resolve(), pathlib.Path(arguments[1]).resolve())
    except SiteError as error:
        print(f"site: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
