#!/usr/bin/env python3
"""Checks what each folder of the library may touch.

The library's folders form layers (docs/architecture.md). A source under
src/<folder>/ or a public header under include/topos/<folder>/ may include the
headers of its own folder and of folders in lower layers, never of a higher
one. Folders that share a layer may include one another, but never both ways
round, directly or through others: the check also fails on any cycle in the
graph of folders. The umbrella headers (include/topos/*.hpp) sit above every
layer; the generated include/topos/config.hpp belongs to core.

Two more rules:
- a private header of src/<folder>/ is its folder's own: another folder
  reaches that folder through its public headers (include/topos/<folder>/),
  or through one of the seams SEAMS lists, each with the folders it serves;
- knowledge of particular opcodes and pattern kinds lives in the rows: only
  the op rows (src/ops/), the pattern rows and their walks (src/pattern/), the
  generated tables and the emitter (OPCODE_READERS) may test a node's opcode
  or a match's kind against a named one (`case Opcode::Add`, `== Opcode::Add`,
  `spec.as(i, Opcode::Add)`, `Formula<Opcode::Add>`). The sources' opcodes
  (Parameter, Input, Leaf) are the graph's own vocabulary and may be named
  anywhere. SWITCH_EXCEPTIONS lists the files that still do, each with why.

usage: tools/check-layers.py [ROOT]                 check; print each violation
       tools/check-layers.py [ROOT] --table         print the layers as Markdown
       tools/check-layers.py [ROOT] --check-doc F   fail unless F holds that table
ROOT defaults to the repository that holds this script.
"""
import pathlib
import re
import sys

# Lowest first. Each entry is a layer: its name and its folders.
LAYERS = [
    ("payload", ["core"]),
    ("kernels", ["kernels"]),
    ("hlo text", ["hlo"]),
    ("op table", ["ops"]),
    ("spec", ["graph"]),
    ("engine", ["run", "autodiff"]),
    ("patterns", ["pattern"]),
    ("compiler", ["plan"]),
    ("backends", ["backend"]),
    ("emission", ["emit"]),
    ("model", ["model"]),
    ("data", ["data"]),
    ("text", ["text"]),
    ("import", ["onnx"]),
    ("distributed", ["distributed"]),
    ("presentation", ["show"]),
    ("language", ["lang"]),
]

# Includes that may run upward, each with its reason. Empty, and it should stay
# so: declare a name where users look and define it where it belongs instead.
ALLOWED = {
    # ("src/folder/file.cpp", "included/path.hpp"): "why",
}

# The private headers of src/ that another folder may include, and which
# folders may: each folder's seam. Any other header under src/<folder>/ is the
# folder's own.
SEAMS = {
    # core: bf16's arithmetic type, bits, the broadcast rule, rounded-up
    # division, number text, the exact math, regular files, the pool, the shape bound,
    # the shared buffer of zeros that relu's operands view
    "core/arithmetic.hpp": {"graph", "ops", "plan", "show"},
    "core/bit_cast.hpp": {"hlo", "kernels", "model", "plan"},
    "core/broadcast_shape.hpp": {"graph"},
    "core/divide_rounding_up.hpp": {"hlo", "onnx", "pattern"},
    "core/exact_math.hpp": {"kernels", "model", "ops"},
    "core/float_text.hpp": {"data", "hlo", "model", "ops", "show"},
    "core/regular_file.hpp": {"data", "lang", "model", "onnx", "text"},
    "core/shape_too_large.hpp": {"graph", "ops"},
    "core/shared_zeros.hpp": {"graph"},
    "core/tensor_access.hpp": {"model", "plan"},
    "core/thread_pool.hpp": {"backend", "data", "kernels", "pattern", "plan"},
    # kernels: what the rows, the fused kernels and the plan's loops call
    "kernels/bf16_rows.hpp": {"ops", "pattern", "plan"},
    "kernels/bf16_table.hpp": {"ops"},
    "kernels/direct_convolution.hpp": {"pattern"},
    "kernels/elementwise.hpp": {"model", "ops", "pattern", "plan"},
    "kernels/fast_transcendental.hpp": {"backend"},
    "kernels/fold_row.hpp": {"pattern"},
    "kernels/gemm.hpp": {"ops", "pattern", "plan"},
    "kernels/gemm_bf16.hpp": {"backend", "ops"},
    "kernels/striped_sum.hpp": {"ops", "pattern"},
    "kernels/striped_sum_avx2.hpp": {"ops"},
    "kernels/transcendental.hpp": {"ops"},
    "kernels/transpose_avx2.hpp": {"ops"},
    # hlo: the builder the rows lower with; the module and literals emission prints
    "hlo/builder.hpp": {"emit", "ops", "pattern"},
    "hlo/literals.hpp": {"emit"},
    "hlo/module.hpp": {"emit"},
    # ops: the table and what kernels of other layers share with the rows
    "ops/common.hpp": {"backend", "pattern"},
    "ops/index.hpp": {"graph"},
    "ops/log_sum_exp.hpp": {"backend"},
    "ops/movement.hpp": {"model", "pattern"},  # model: the folder loader's transposes
    "ops/op_info.hpp": {"autodiff", "backend", "graph", "pattern", "plan", "run"},
    "ops/reduce.hpp": {"pattern"},
    # graph: the frozen spec and the views of it the later stages walk
    "graph/closure.hpp": {"plan", "run"},
    "graph/describe.hpp": {"plan"},
    "graph/node_view.hpp": {"autodiff", "backend", "emit", "pattern", "plan", "run"},
    "graph/parameter_layout.hpp": {"run"},
    "graph/record.hpp": {"autodiff", "model"},
    "graph/spec.hpp": {"autodiff", "plan", "run"},
    # run and autodiff: the interpreter and the runs it fills
    "run/access.hpp": {"autodiff", "model", "plan"},
    "run/interpreter.hpp": {"autodiff", "plan"},
    "run/run_layout.hpp": {"autodiff", "plan"},
    "run/tally_scope.hpp": {"backend", "plan"},
    "autodiff/scan_reads.hpp": {"plan"},
    # pattern: the catalog the plan elects from and emission raises; the
    # convolution geometries a backend serves
    "pattern/catalog.hpp": {"emit", "plan"},
    "pattern/map.hpp": {"plan"},
    "pattern/match.hpp": {"plan"},
    "pattern/row.hpp": {"plan"},
    "pattern/structure.hpp": {"backend"},
    "pattern/window_fold.hpp": {"backend"},
    "pattern/window_product.hpp": {"backend"},
    # plan: the backend seam, and the plan's state emission reads
    "plan/backend_seam.hpp": {"backend"},
    "plan/host_steps.hpp": {"backend"},
    "plan/plan_state.hpp": {"emit"},
}

# Files beside the rows that may test opcodes and pattern kinds by name.
OPCODE_READERS = {
    "include/topos/ops/opcode.hpp",  # the generated enumeration
    "src/emit/emit_plan.cpp",  # the emitter
}
SOURCE_OPCODES = {"Parameter", "Input", "Leaf"}

# Files that still test particular opcodes or pattern kinds, each with why.
SWITCH_EXCEPTIONS = {
    "src/backend/cuda/device_serve.cpp": "the CUDA server's formulas and movements, by opcode",
    "src/backend/cuda/elementwise.cu": "the CUDA formulas, one per elementwise opcode",
}
SWITCH = re.compile(
    r"case\s+(Opcode|PatternKind)::(\w+)"
    r"|[!=]=\s*(Opcode|PatternKind)::(\w+)"
    r"|(Opcode|PatternKind)::(\w+)\s*[!=]="
    r"|\.as\([^;]*?,\s*(Opcode)::(\w+)"
    r"|<\s*(Opcode)::(\w+)\s*>")

UMBRELLA = "umbrella"
SOURCE_SUFFIXES = {".hpp", ".cpp", ".h", ".cu", ".cuh"}
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def rank_of_folder():
    ranks = {}
    for rank, (_, folders) in enumerate(LAYERS):
        for folder in folders:
            ranks[folder] = rank
    ranks[UMBRELLA] = len(LAYERS)
    return ranks


def folder_of_file(relative):
    """The folder a library file belongs to, or None outside the library."""
    parts = relative.parts
    if parts[0] == "src" and len(parts) > 2:
        return parts[1]
    if parts[:2] == ("include", "topos"):
        if len(parts) > 3:
            return parts[2]
        return "core" if parts[2] == "config.hpp" else UMBRELLA
    return None


def folder_of_include(bracket, path):
    """The folder an #include names, or None for a header outside the library."""
    parts = path.split("/")
    if parts[0] == "topos":
        if len(parts) > 2:
            return parts[1]
        return "core" if parts[1] == "config.hpp" else UMBRELLA
    if bracket == '"' and len(parts) > 1:
        return parts[0]
    return None


def library_files(root):
    for base in ("src", "include/topos"):
        for path in sorted((root / base).rglob("*")):
            if path.suffix in SOURCE_SUFFIXES and path.is_file():
                yield path


def read_includes(root):
    """(file, line number, included path, from folder, to folder) per include."""
    edges = []
    for path in library_files(root):
        relative = path.relative_to(root)
        source = folder_of_file(relative)
        if source is None:
            continue
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            match = INCLUDE.match(line)
            if not match:
                continue
            target = folder_of_include(match.group(1), match.group(2))
            if target is not None and target != source:
                edges.append((str(relative), number, match.group(2), source, target))
    return edges


def unknown_folders(edges, ranks):
    problems = []
    for file, number, included, source, target in edges:
        for folder in (source, target):
            if folder not in ranks:
                problems.append(f"{file}:{number}: folder '{folder}' is in no layer: "
                                f"add it to LAYERS in tools/check-layers.py")
    return problems


def upward_includes(edges, ranks):
    problems = []
    for file, number, included, source, target in edges:
        if source not in ranks or target not in ranks:
            continue
        if ranks[target] > ranks[source] and (file, included) not in ALLOWED:
            problems.append(
                f"{file}:{number}: includes \"{included}\": {source} "
                f"({LAYERS[ranks[source]][0]}) may not include {target} "
                f"({LAYERS[ranks[target]][0]}), a higher layer")
    return problems


def folder_cycles(edges):
    """Strongly connected components of two or more folders (Tarjan)."""
    graph = {}
    for _, _, _, source, target in edges:
        graph.setdefault(source, set()).add(target)
        graph.setdefault(target, set())
    index, low, stack, on_stack, components = {}, {}, [], set(), []

    def visit(folder):
        index[folder] = low[folder] = len(index)
        stack.append(folder)
        on_stack.add(folder)
        for successor in sorted(graph[folder]):
            if successor not in index:
                visit(successor)
                low[folder] = min(low[folder], low[successor])
            elif successor in on_stack:
                low[folder] = min(low[folder], index[successor])
        if low[folder] == index[folder]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == folder:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for folder in sorted(graph):
        if folder not in index:
            visit(folder)
    return components


def shortest_cycle(component, edges):
    """One shortest cycle through the component's first folder, as hops."""
    members = set(component)
    successors = {}
    for _, _, _, source, target in edges:
        if source in members and target in members:
            successors.setdefault(source, set()).add(target)
    start = component[0]
    previous, frontier = {}, [start]
    while frontier:
        following = []
        for folder in frontier:
            for successor in sorted(successors.get(folder, ())):
                if successor == start:
                    hops, at = [(folder, start)], folder
                    while at != start:
                        hops.insert(0, (previous[at], at))
                        at = previous[at]
                    return hops
                if successor not in previous:
                    previous[successor] = folder
                    following.append(successor)
        frontier = following
    return []


def cycle_problems(edges):
    problems = []
    for component in folder_cycles(edges):
        lines = []
        for source, target in shortest_cycle(component, edges):
            first = next(e for e in edges if e[3] == source and e[4] == target)
            count = sum(1 for e in edges if e[3] == source and e[4] == target)
            lines.append(f"{first[0]}:{first[1]}: includes \"{first[2]}\" ({source} -> "
                         f"{target}; {count} such includes)")
        problems.append("folders include one another in a cycle: " + ", ".join(component) +
                        "\n  " + "\n  ".join(lines))
    return problems


def private_includes(root, edges):
    """Problems: a private header of another folder that is not its seam for this one."""
    problems = []
    for file, number, included, source, target in edges:
        if included.startswith("topos/") or not (root / "src" / included).is_file():
            continue
        if source not in SEAMS.get(included, set()):
            served = ", ".join(sorted(SEAMS.get(included, set()))) or "no other folder"
            problems.append(
                f"{file}:{number}: includes \"{included}\", a private header of {target}/ "
                f"that serves {served}: reach {target}/ through its public headers, or add "
                f"{source} to the seam in SEAMS (tools/check-layers.py) with the reason")
    return problems


def opcode_switches(root):
    """Problems: a named opcode or pattern kind tested outside the rows."""
    problems = []
    for path in library_files(root):
        relative = str(path.relative_to(root))
        if (relative.startswith(("src/ops/", "src/pattern/", "include/topos/pattern/"))
                or relative in OPCODE_READERS or relative in SWITCH_EXCEPTIONS):
            continue
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            for match in SWITCH.finditer(line):
                names = [g for g in match.groups() if g]
                if names[-1] in SOURCE_OPCODES:
                    continue
                problems.append(
                    f"{relative}:{number}: tests {names[-2]}::{names[-1]} by name: what an "
                    f"opcode or a pattern means to this pass belongs in its row "
                    f"(src/ops/ or src/pattern/), which the pass reads through the table")
    return problems


def stale_exceptions(root):
    """Problems: an exception for a file that no longer needs it."""
    problems = []
    for relative in sorted(SWITCH_EXCEPTIONS):
        path = root / relative
        if not path.is_file():
            continue
        text = path.read_text(errors="replace")
        if not any(SWITCH.search(line) for line in text.splitlines()):
            problems.append(f"{relative}: listed in SWITCH_EXCEPTIONS but tests no opcode "
                            f"or pattern kind by name: remove it from the list")
    return problems


def table(edges, ranks):
    """The layers as Markdown: each folder and the other folders it includes."""
    reads = {}
    for _, _, _, source, target in edges:
        reads.setdefault(source, {}).setdefault(target, 0)
        reads[source][target] += 1
    rows = ["| layer | folder | includes headers of |",
            "| --- | --- | --- |"]
    for rank, (layer, folders) in enumerate(LAYERS):
        for folder in folders:
            targets = reads.get(folder, {})
            ordered = sorted(targets, key=lambda t: (ranks.get(t, -1), t))
            listed = ", ".join(f"`{t}/`" for t in ordered) or "nothing but its own"
            rows.append(f"| {rank + 1}. {layer} | `{folder}/` | {listed} |")
    return "\n".join(rows) + "\n"


def main(argv):
    if len(argv) > 1 and argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0
    if len(argv) < 2 or argv[1].startswith("--"):
        # No ROOT: the repository this script belongs to.
        argv = [argv[0], str(pathlib.Path(__file__).resolve().parent.parent)] + argv[1:]
    root = pathlib.Path(argv[1])
    ranks = rank_of_folder()
    edges = read_includes(root)
    if len(argv) > 2 and argv[2] == "--table":
        sys.stdout.write(table(edges, ranks))
        return 0
    if len(argv) > 3 and argv[2] == "--check-doc":
        expected = table(edges, ranks)
        text = pathlib.Path(argv[3]).read_text()
        if expected not in text:
            print(f"{argv[3]} does not hold the layer table the includes give; "
                  f"regenerate it with tools/check-layers.py . --table:\n{expected}")
            return 1
        return 0
    problems = (unknown_folders(edges, ranks) + upward_includes(edges, ranks) +
                cycle_problems(edges) + private_includes(root, edges) + opcode_switches(root) +
                stale_exceptions(root))
    for problem in problems:
        print(problem)
    if problems:
        noun = "problem" if len(problems) == 1 else "problems"
        print(f"check-layers: {len(problems)} {noun} in {root}")
        return 1
    print(f"check-layers: {len(edges)} includes between folders, all pointing down; no cycle; "
          f"private headers reached only through their seams; opcodes named only in the rows "
          f"({len(SWITCH_EXCEPTIONS)} files excepted)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
