#!/usr/bin/env python3
"""Evaluates topos's generic-form StableHLO in plain Python and compares it with the interpreter.

usage: tools/evaluate-stablehlo.py CORPUS_DIR

A small reference evaluator of the StableHLO operations topos emits, written
from the StableHLO specification, for machines without JAX (CI among them).
For every NAME.generic.mlir that `topos_emit_corpus DIR` wrote, it runs @main on
the arguments in NAME.safetensors and compares each result with the
interpreter's, with the tolerances of tools/validate-stablehlo.py. It checks
the arithmetic of the lowerings (the erf fits, log-sum-exp, unfold and fold,
gather and scatter dimension numbers) and of the named operations elected
patterns raise to (convolution, reduce_window, batch_norm_training,
batch_norm_inference); it is not a compiler, and XLA
(tools/validate-stablehlo.py) remains the check that a real StableHLO
implementation reads the text as meant. f32 results are rounded to f32 after
every operation, bf16 results (the converts a bf16 plan writes after each
operation) to bf16, to nearest even; transcendental functions are Python's
(double precision).
Exit status: 0 when every plan matches, 1 otherwise.
"""
import array
import itertools
import json
import math
import pathlib
import re
import struct
import sys

# A bf16 result may sit one bf16 unit (2^-8 relative) from the interpreter's
# where Python's transcendental, rounded to f32, lands across a bf16 rounding
# boundary from topos's correctly rounded one; later operations carry that.
TOLERANCES = {"F32": (2e-5, 1e-5), "F64": (1e-10, 1e-12), "BF16": (2 ** -6, 2 ** -8)}


def product(values):
    result = 1
    for value in values:
        result *= value
    return result


def row_major_strides(shape):
    strides = [1] * len(shape)
    for axis in range(len(shape) - 2, -1, -1):
        strides[axis] = strides[axis + 1] * shape[axis + 1]
    return strides


def positions(shape):
    return itertools.product(*[range(extent) for extent in shape])


class Tensor:
    def __init__(self, shape, data):
        self.shape, self.data = list(shape), list(data)
        assert len(self.data) == product(self.shape), (shape, len(self.data))

    def at(self, index):
        return self.data[sum(i * s for i, s in zip(index, row_major_strides(self.shape)))]


def to_f32(value):
    try:
        return struct.unpack("<f", struct.pack("<f", value))[0]
    except OverflowError:
        return math.copysign(math.inf, value)


def to_bf16(value):
    """The bf16 nearest `value` (ties to even), as a Python float."""
    if math.isnan(value) or math.isinf(value) or value == 0:
        return value
    _, exponent = math.frexp(value)  # value = m 2^exponent, 0.5 <= |m| < 1
    unit = 2.0 ** (max(exponent - 1, -126) - 7)
    rounded = round(value / unit) * unit  # round(): to nearest, ties to even
    return math.copysign(math.inf, value) if abs(rounded) >= 2.0 ** 128 else rounded


def rounding(element):
    return {"f32": to_f32, "bf16": to_bf16}.get(element, lambda value: value)


def guarded(function, overflow=math.inf):
    def apply(*args):
        try:
            return function(*args)
        except OverflowError:
            return overflow
        except (ValueError, ZeroDivisionError):
            return math.nan
    return apply


def log(x):
    if math.isnan(x) or x == math.inf:
        return x
    return -math.inf if x == 0 else (math.nan if x < 0 else math.log(x))


def log1p(x):
    if math.isnan(x) or x == math.inf:
        return x
    return -math.inf if x == -1 else (math.nan if x < -1 else math.log1p(x))


def divide(a, b):
    if b != 0:
        return a / b
    if a == 0 or math.isnan(a):
        return math.nan
    return math.copysign(math.inf, a) * math.copysign(1.0, b)


def maximum(a, b):
    if math.isnan(a) or math.isnan(b):
        return math.nan
    return a if a > b or (a == b and math.copysign(1.0, a) > 0) else b


def minimum(a, b):
    if math.isnan(a) or math.isnan(b):
        return math.nan
    return a if a < b or (a == b and math.copysign(1.0, a) < 0) else b


def logistic(x):
    if x >= 0:
        return 1 / (1 + guarded(math.exp)(-x))
    e = guarded(math.exp)(x)
    return e / (1 + e)


def periodic(function):
    return lambda x: function(x) if math.isfinite(x) else math.nan


UNARY = {
    "negate": lambda a: -a,
    "abs": abs,
    "sign": lambda a: a if math.isnan(a) or a == 0 else math.copysign(1.0, a),
    "exponential": guarded(math.exp),
    "exponential_minus_one": guarded(math.expm1),
    "log": log,
    "log_plus_one": log1p,
    "sqrt": lambda a: math.sqrt(a) if a >= 0 else math.nan,
    "rsqrt": lambda a: divide(1.0, math.sqrt(a)) if a >= 0 else math.nan,
    "sine": periodic(math.sin),
    "cosine": periodic(math.cos),
    "tanh": math.tanh,
    "logistic": logistic,
    "floor": lambda a: a if math.isinf(a) or math.isnan(a) or a == 0 else float(math.floor(a)),
}
BINARY = {
    "add": lambda a, b: a + b,
    "subtract": lambda a, b: a - b,
    "multiply": lambda a, b: a * b,
    "divide": divide,
    "maximum": maximum,
    "minimum": minimum,
    "power": guarded(math.pow),
}
COMPARISONS = {
    "EQ": lambda a, b: a == b,
    "NE": lambda a, b: a != b,
    "LT": lambda a, b: a < b,
    "LE": lambda a, b: a <= b,
    "GT": lambda a, b: a > b,
    "GE": lambda a, b: a >= b,
}


def tensor_type(text):
    match = re.fullmatch(r"tensor<((?:\d+x)*)(\w+)>", text.strip())
    return [int(extent) for extent in match.group(1).split("x") if extent], match.group(2)


def number(token, element):
    if token.startswith("0x"):
        bits = int(token, 16)
        if element == "f32":
            return struct.unpack("<f", struct.pack("<I", bits))[0]
        if element == "bf16":
            return struct.unpack("<f", struct.pack("<I", bits << 16))[0]
        return struct.unpack("<d", struct.pack("<Q", bits))[0]
    return rounding(element)(float(token))


def integer_array(attributes, name):
    """The values of `name = array<i64: ...>` or of a `name = [...]` field."""
    match = re.search(name + r" = array<i64:?([^>]*)>", attributes) or \
        re.search(name + r"\s*=\s*\[([^\]]*)\]", attributes)
    return [int(value) for value in re.findall(r"-?\d+", match.group(1))] if match else []


def integer(attributes, name):
    return int(re.search(name + r"\s*=\s*(\d+)", attributes).group(1))


def evaluate_named(name, operands, attributes, shapes, element, body, rounded):
    """The operations elected patterns raise to, as a list of results."""
    if name == "convolution":
        return [convolution(operands, attributes, shapes[0], rounded)]
    if name == "reduce_window":
        return [reduce_window(operands, attributes, shapes[0], BINARY[body], rounded)]
    if name == "batch_norm_training":
        x, scale, offset = operands
        mean, variance = batch_statistics(x, rounded)
        return [normalise(x, scale, offset, mean, variance, attributes, rounded), mean, variance]
    if name == "batch_norm_inference":
        return [normalise(*operands, attributes, rounded)]
    return None


def evaluate_operation(name, operands, attributes, shape, element, body):
    rounded = rounding(element)

    def each(function, *tensors):
        return Tensor(shape, [rounded(function(*values)) for values in zip(*(t.data for t in tensors))])

    def mapped(source, index_of):
        return Tensor(shape, [source.at(index_of(index)) for index in positions(shape)])

    if name in UNARY:
        return each(UNARY[name], operands[0])
    if name in BINARY:
        return each(BINARY[name], *operands)
    if name == "constant":
        literal = re.search(r"dense<(.*)> : tensor", attributes).group(1)
        values = [number(token, element) for token in re.split(r"[\[\],\s]+", literal) if token]
        return Tensor(shape, values * product(shape) if len(values) == 1 else values)
    if name == "compare":
        holds = COMPARISONS[re.search(r"comparison_direction (\w+)", attributes).group(1)]
        return Tensor(shape, [int(holds(a, b)) for a, b in zip(operands[0].data, operands[1].data)])
    if name == "convert":
        cast = int if element.startswith("i") else (lambda value: rounded(float(value)))
        return Tensor(shape, [cast(value) for value in operands[0].data])
    if name == "select":
        return Tensor(shape, [a if p else b for p, a, b in zip(*(t.data for t in operands))])
    if name == "is_finite":
        return Tensor(shape, [int(math.isfinite(value)) for value in operands[0].data])
    if name == "iota":
        axis = integer(attributes, "iota_dimension")
        return Tensor(shape, [float(index[axis]) for index in positions(shape)])
    if name == "reshape":
        return Tensor(shape, operands[0].data)
    if name == "transpose":
        order = integer_array(attributes, "permutation")
        return mapped(operands[0], lambda index: [index[order.index(axis)] for axis in range(len(order))])
    if name == "broadcast_in_dim":
        dims, source = integer_array(attributes, "broadcast_dimensions"), operands[0]
        return mapped(source, lambda index: [index[d] if source.shape[k] != 1 else 0 for k, d in enumerate(dims)])
    if name == "slice":
        starts, steps = integer_array(attributes, "start_indices"), integer_array(attributes, "strides")
        return mapped(operands[0], lambda index: [s + i * k for i, s, k in zip(index, starts, steps)])
    if name == "pad":
        low, interior = integer_array(attributes, "edge_padding_low"), integer_array(attributes, "interior_padding")
        result = Tensor(shape, operands[1].data * product(shape))
        strides = row_major_strides(shape)
        for index in positions(operands[0].shape):
            placed = [l + i * (n + 1) for i, l, n in zip(index, low, interior)]
            result.data[sum(p * s for p, s in zip(placed, strides))] = operands[0].at(index)
        return result
    if name == "concatenate":
        return concatenate(operands, integer(attributes, "dimension"), shape)
    if name == "dot_general":
        return dot_general(operands, attributes, shape, rounded)
    if name == "reduce":
        return reduce(operands, integer_array(attributes, "dimensions"), shape, BINARY[body], rounded)
    if name == "gather":
        table, picks = operands
        rank = len(picks.shape)
        clamp = lambda row: min(max(row, 0), table.shape[0] - 1)
        return mapped(table, lambda index: [clamp(picks.at(index[:rank]))] + list(index[rank:]))
    if name == "scatter":
        return scatter_add(operands, shape, rounded)
    raise NotImplementedError(f"stablehlo.{name}")


def conv_layouts(attributes):
    """The letters of `#stablehlo.conv<[b, f, 0, 1]x[i, 0, 1, o]->[b, 0, 1, f]>`."""
    match = re.search(r"#stablehlo\.conv<\[([^\]]*)\]x\[([^\]]*)\]->\[([^\]]*)\]>", attributes)
    return [[letter.strip() for letter in group.split(",")] for group in match.groups()]


def convolution(operands, attributes, shape, rounded):
    """The spec's convolution with lhs_dilation 1, one feature and batch group."""
    lhs, rhs = operands
    lhs_axes, rhs_axes, out_axes = conv_layouts(attributes)
    assert integer_array(attributes, "lhs_dilation") in ([], [1, 1])
    assert integer(attributes, "feature_group_count") == 1 and integer(attributes, "batch_group_count") == 1
    strides, dilations = integer_array(attributes, "window_strides"), integer_array(attributes, "rhs_dilation")
    padding = re.search(r"padding = dense<([^>]*)>", attributes).group(1)
    lows = [int(value) for value in re.findall(r"-?\d+", padding)][0::2]
    spatial = [str(d) for d in range(len(strides))]
    kernel_extents = [rhs.shape[rhs_axes.index(d)] for d in spatial]
    data = []
    for index in positions(shape):
        batch, feature = index[out_axes.index("b")], index[out_axes.index("f")]
        out = [index[out_axes.index(d)] for d in spatial]
        total = 0.0
        for i in range(rhs.shape[rhs_axes.index("i")]):
            for taps in positions(kernel_extents):
                at = [o * s + k * r - low for o, k, s, r, low in zip(out, taps, strides, dilations, lows)]
                if not all(0 <= p < lhs.shape[lhs_axes.index(d)] for p, d in zip(at, spatial)):
                    continue
                a, b = [0] * len(lhs.shape), [0] * len(rhs.shape)
                a[lhs_axes.index("b")], a[lhs_axes.index("f")] = batch, i
                b[rhs_axes.index("i")], b[rhs_axes.index("o")] = i, feature
                for d, p, k in zip(spatial, at, taps):
                    a[lhs_axes.index(d)], b[rhs_axes.index(d)] = p, k
                total += lhs.at(a) * rhs.at(b)
        data.append(rounded(total))
    return Tensor(shape, data)


def reduce_window(operands, attributes, shape, combine, rounded):
    """Each window folded from the init value over its taps in row-major order (no padding)."""
    source, init = operands
    assert "padding" not in attributes and "base_dilations" not in attributes
    size = integer_array(attributes, "window_dimensions")
    strides = integer_array(attributes, "window_strides") or [1] * len(size)
    dilations = integer_array(attributes, "window_dilations") or [1] * len(size)
    data = []
    for index in positions(shape):
        total = init.data[0]
        for taps in positions(size):
            total = rounded(combine(total, source.at([o * s + k * d for o, k, s, d in zip(index, taps, strides, dilations)])))
        data.append(total)
    return Tensor(shape, data)


def channel_planes(x):
    """Element positions of x grouped by channel (axis 1)."""
    planes = [[] for _ in range(x.shape[1])]
    for flat, index in enumerate(positions(x.shape)):
        planes[index[1]].append(flat)
    return planes


def batch_statistics(x, rounded):
    """The batch mean and the biased batch variance per channel."""
    means, variances = [], []
    for plane in channel_planes(x):
        mean = math.fsum(x.data[i] for i in plane) / len(plane)
        means.append(rounded(mean))
        variances.append(rounded(math.fsum((x.data[i] - mean) ** 2 for i in plane) / len(plane)))
    return Tensor([x.shape[1]], means), Tensor([x.shape[1]], variances)


def normalise(x, scale, offset, mean, variance, attributes, rounded):
    epsilon = number(re.search(r"epsilon = (\S+) : f32", attributes).group(1), "f32")
    data = list(x.data)
    for c, plane in enumerate(channel_planes(x)):
        factor = scale.data[c] / math.sqrt(variance.data[c] + epsilon)
        for i in plane:
            data[i] = rounded((x.data[i] - mean.data[c]) * factor + offset.data[c])
    return Tensor(x.shape, data)


def concatenate(parts, axis, shape):
    data = []
    for index in positions(shape):
        offset = index[axis]
        for part in parts:
            if offset < part.shape[axis]:
                data.append(part.at(index[:axis] + (offset,) + index[axis + 1:]))
                break
            offset -= part.shape[axis]
    return Tensor(shape, data)


def dot_general(operands, attributes, shape, rounded):
    lhs, rhs = operands
    lb, rb = integer_array(attributes, "lhs_batching_dimensions"), integer_array(attributes, "rhs_batching_dimensions")
    lc, rc = integer_array(attributes, "lhs_contracting_dimensions"), integer_array(attributes, "rhs_contracting_dimensions")
    lf = [d for d in range(len(lhs.shape)) if d not in lb + lc]
    rf = [d for d in range(len(rhs.shape)) if d not in rb + rc]
    data = []
    for index in positions(shape):
        batch, left, right = index[:len(lb)], index[len(lb):len(lb) + len(lf)], index[len(lb) + len(lf):]
        total = 0.0
        for inner in positions([lhs.shape[d] for d in lc]):
            a, b = [0] * len(lhs.shape), [0] * len(rhs.shape)
            for dims, values, target in ((lb, batch, a), (rb, batch, b), (lf, left, a), (rf, right, b),
                                         (lc, inner, a), (rc, inner, b)):
                for d, value in zip(dims, values):
                    target[d] = value
            total += lhs.at(a) * rhs.at(b)
        data.append(rounded(total))
    return Tensor(shape, data)


def reduce(operands, dims, shape, combine, rounded):
    source, init = operands
    kept = [d for d in range(len(source.shape)) if d not in dims]
    totals = {}
    for index in positions(source.shape):
        key = tuple(index[d] for d in kept)
        totals[key] = rounded(combine(totals.get(key, init.data[0]), source.at(index)))
    return Tensor(shape, [totals.get(tuple(index), init.data[0]) for index in positions(shape)])


def scatter_add(operands, shape, rounded):
    target, picks, updates = operands
    rank = len(picks.shape)
    result = Tensor(shape, target.data)
    strides = row_major_strides(shape)
    for index in positions(updates.shape):
        row = picks.at(index[:rank])
        if 0 <= row < shape[0]:
            at = sum(p * s for p, s in zip([row] + list(index[rank:]), strides))
            result.data[at] = rounded(result.data[at] + updates.at(index))
    return result


GENERIC_OPERATION = re.compile(r'(%[\w.]+)(?::(\d+))? = "stablehlo\.(\w+)"\(([^)]*)\)(.*)$')


def result_types(text):
    """`tensor<...>` or `(tensor<...>, tensor<...>)` as a list of (shape, element)."""
    text = text.strip()
    if text.startswith("("):
        return [tensor_type(part) for part in text[1:-1].split(", ")]
    return [tensor_type(text)]


def evaluate(text, arguments):
    """The results of @main in `text`, a generic module as topos prints it."""
    lines = text.splitlines()
    values = {}
    header = re.search(r"\^bb0\((.*)\):", lines[2])
    if header:
        for argument, name in zip(arguments, header.group(1).split(", ")):
            values[name.split(":")[0]] = argument
    i = 3 if header else 2
    while not lines[i].strip().startswith('"func.return"'):
        result, count, name, operand_names, rest = GENERIC_OPERATION.match(lines[i].strip()).groups()
        operands = [values[operand.strip()] for operand in operand_names.split(",") if operand.strip()]
        body = None
        if rest.startswith(" ({"):
            region = []
            i += 1
            while not lines[i].strip().startswith("})"):
                region.append(lines[i])
                i += 1
            rest = lines[i].strip()[2:]
            body = re.search(r'"stablehlo\.(\w+)"', "\n".join(region[1:])).group(1)
        types = result_types(rest[rest.rindex("-> ") + 3:])
        element = types[0][1]
        rounded = rounding(element)
        named = evaluate_named(name, operands, rest, [shape for shape, _ in types], element, body, rounded)
        if named is None:
            values[result] = evaluate_operation(name, operands, rest, types[0][0], element, body)
        elif count is None:
            values[result] = named[0]
        else:
            for k, value in enumerate(named):
                values[f"{result}#{k}"] = value
        i += 1
    returned = re.match(r'"func.return"\(([^)]*)\)', lines[i].strip()).group(1)
    return [values[name.strip()] for name in returned.split(",") if name.strip()]


def read_safetensors(path):
    data = path.read_bytes()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + length])
    body = data[8 + length:]
    tensors = {}
    for name, entry in header.items():
        begin, end = entry["data_offsets"]
        if entry["dtype"] == "BF16":
            halves = array.array("H")
            halves.frombytes(body[begin:end])
            values = array.array("f", struct.pack(f"<{len(halves)}I", *[h << 16 for h in halves]))
        else:
            values = array.array("f" if entry["dtype"] == "F32" else "d")
            values.frombytes(body[begin:end])
        tensors[name] = (Tensor(entry["shape"], values), entry["dtype"])
    return tensors


def numbered(tensors, prefix):
    count = sum(1 for name in tensors if name.startswith(prefix))
    return [tensors[f"{prefix}{i}"] for i in range(count)]


def differences(expected, dtype, actual):
    rtol, atol = TOLERANCES[dtype]
    finite = [abs(value) for value in expected.data if math.isfinite(value)]
    scale = max([1.0] + finite)
    if actual.shape != expected.shape:
        return [f"shape {actual.shape}, expected {expected.shape}"]
    wrong = []
    for i, (got, want) in enumerate(zip(actual.data, expected.data)):
        same = (math.isnan(got) and math.isnan(want)) or got == want or \
            (math.isfinite(want) and abs(got - want) <= atol * scale + rtol * abs(want))
        if not same:
            wrong.append(f"element {i}: {got!r}, the interpreter {want!r}")
    return wrong


def main(argv):
    if len(argv) != 1:
        print(__doc__)
        return 2
    modules = sorted(pathlib.Path(argv[0]).glob("*.generic.mlir"))
    failures = 0
    for path in modules:
        name = path.name[:-len(".generic.mlir")]
        tensors = read_safetensors(path.with_name(name + ".safetensors"))
        arguments = [tensor for tensor, _ in numbered(tensors, "arg")]
        results = evaluate(path.read_text(), arguments)
        problems = []
        for i, ((expected, dtype), actual) in enumerate(zip(numbered(tensors, "result"), results)):
            problems += [f"result {i}, {problem}" for problem in differences(expected, dtype, actual)[:3]]
        if problems:
            failures += 1
            print(f"FAILED  {name}")
            for problem in problems:
                print(f"    {problem}")
    print(f"{len(modules)} plans evaluated, {failures} differ from the interpreter")
    return 1 if failures or not modules else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
