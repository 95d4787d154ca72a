#!/usr/bin/env python3
"""Runs the documentation's notebooks headless and checks what they print.

Usage: check-notebooks.py NOTEBOOK_DIR WORK_DIR [--update]

Executes each notebook of NOTEBOOK_DIR (*.ipynb, in that folder, as Jupyter
runs it, with this interpreter's kernel: run it with the Python that imports
topos) and writes it, executed, to WORK_DIR/<name>.ipynb, and as a web page
to WORK_DIR/<name>.html (nbconvert's basic template in a page of its own,
which loads nothing from elsewhere: tools/check-pages.py renders it). Then
builds each notebook's reading: for every
code cell, "## cell N" and then each output in turn: printed text as it is,
a result's text/plain, "[html]" for an HTML card (which must parse and hold an
element), "[svg]" for a picture (which must parse as XML with an <svg> root).
An error output fails the notebook. A cell tagged `depends-on-pytorch` runs
both with and without PyTorch, so its outputs are printed here and left out
of the reading, which says so. The reading must equal
NOTEBOOK_DIR/golden/<name>.txt; with --update (or TOPOS_UPDATE_GOLDEN=1) it is
written there instead. Exits 1 when any notebook fails.
"""
import html
import html.parser
import json
import os
import pathlib
import sys
import xml.dom.minidom

UNCOMPARED_TAG = "depends-on-pytorch"


class Elements(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.count = 0

    def handle_starttag(self, tag, attributes):
        self.count += 1


def html_reading(markup):
    parser = Elements()
    parser.feed(markup)
    parser.close()
    if parser.count == 0:
        raise ValueError("an HTML output holds no element")
    return "[html]"


def svg_reading(markup):
    document = xml.dom.minidom.parseString(markup)
    if document.documentElement.tagName != "svg":
        raise ValueError(f"an SVG output's root is <{document.documentElement.tagName}>")
    return "[svg]"


def text_of(value):
    return value if isinstance(value, str) else "".join(value)


def output_reading(output):
    kind = output["output_type"]
    if kind == "stream":
        return text_of(output["text"]).rstrip("\n")
    if kind == "error":
        raise ValueError(f"{output['ename']}: {output['evalue']}")
    data = output["data"]
    if "text/html" in data:
        return html_reading(text_of(data["text/html"]))
    if "image/svg+xml" in data:
        return svg_reading(text_of(data["image/svg+xml"]))
    return text_of(data.get("text/plain", "")).rstrip("\n")


def coalesced(outputs):
    """Joins neighbouring chunks of one stream: the kernel may flush a print in several."""
    joined = []
    for output in outputs:
        previous = joined[-1] if joined else None
        if (
            previous is not None
            and output["output_type"] == "stream"
            and previous["output_type"] == "stream"
            and previous["name"] == output["name"]
        ):
            joined[-1] = {**previous, "text": text_of(previous["text"]) + text_of(output["text"])}
        else:
            joined.append(output)
    return joined


def reading(notebook):
    lines = []
    for number, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] != "code":
            continue
        lines.append(f"## cell {number}")
        if UNCOMPARED_TAG in cell.get("metadata", {}).get("tags", []):
            lines.append(f"[outputs not compared: the cell is tagged {UNCOMPARED_TAG}]")
            for output in coalesced(cell["outputs"]):
                print(f"    (cell {number}, not compared) {output_reading(output)}")
            continue
        lines.extend(output_reading(output) for output in coalesced(cell["outputs"]))
    return "\n".join(lines) + "\n"


def execute(source, work):
    """The notebook at `source` run top to bottom in its own folder; written to
    WORK/<name>.ipynb and WORK/<name>.html."""
    import nbformat
    from nbconvert import HTMLExporter
    from nbconvert.preprocessors import ExecutePreprocessor

    notebook = nbformat.read(str(source), as_version=4)
    ExecutePreprocessor(timeout=600, kernel_name="python3", allow_errors=True).preprocess(
        notebook, {"metadata": {"path": str(source.parent)}})
    nbformat.write(notebook, str(work / source.name))
    body, _ = HTMLExporter(template_name="basic").from_notebook_node(notebook)
    title = next((cell.source.splitlines()[0].lstrip("# ") for cell in notebook.cells
                  if cell.cell_type == "markdown"), source.stem)
    (work / (source.stem + ".html")).write_text(
        f"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f"<title>{html.escape(title)}</title>\n</head>\n<body>\n{body}\n</body>\n</html>\n",
        encoding="utf-8")
    return json.loads((work / source.name).read_text(encoding="utf-8"))


def main(notebooks, work, update):
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")  # the kernel's debugger note
    # The kernels run in the notebooks' folder: a relative PYTHONPATH would miss.
    if os.environ.get("PYTHONPATH"):
        os.environ["PYTHONPATH"] = os.pathsep.join(
            os.path.abspath(entry) for entry in os.environ["PYTHONPATH"].split(os.pathsep))
    sources = sorted(pathlib.Path(notebooks).glob("*.ipynb"))
    if not sources:
        print(f"check-notebooks: no notebook in {notebooks}", file=sys.stderr)
        return 1
    work = pathlib.Path(work)
    work.mkdir(parents=True, exist_ok=True)
    failed = 0
    for source in sources:
        expected_path = source.parent / "golden" / (source.stem + ".txt")
        try:
            text = reading(execute(source, work))
        except ValueError as error:
            print(f"{source.name}: FAILED: {error}")
            failed += 1
            continue
        if update:
            expected_path.write_text(text, encoding="utf-8")
            print(f"{source.name}: golden reading written to {expected_path}")
        elif expected_path.exists() and expected_path.read_text(encoding="utf-8") == text:
            print(f"{source.name}: ran; its reading matches golden/{expected_path.name}")
        else:
            print(f"{source.name}: FAILED: its reading differs from {expected_path}:")
            print(text)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    arguments = [a for a in sys.argv[1:] if a != "--update"]
    if len(arguments) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    update = "--update" in sys.argv or os.environ.get("TOPOS_UPDATE_GOLDEN") == "1"
    sys.exit(main(arguments[0], arguments[1], update))
