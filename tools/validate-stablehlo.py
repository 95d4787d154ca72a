#!/usr/bin/env python3
"""Compiles topos's StableHLO with XLA and checks it computes what the interpreter computes.

usage: tools/validate-stablehlo.py CORPUS_DIR [--only TEXT]

CORPUS_DIR is what `topos_emit_corpus DIR` writes (CTest writes it to
build/tests/emission_corpus): for every plan NAME, the pretty module NAME.mlir
and NAME.safetensors holding the arguments of @main (arg0, arg1, ...) and the
interpreter's values of its results (result0, result1, ...). For each plan the
script
  1. parses NAME.mlir with JAX's bundled MLIR bindings, which register the
     StableHLO dialect and verify the module (operand order, attributes, types);
  2. compiles it with XLA for the first JAX device (CPU, GPU or TPU);
  3. runs it on the arguments and compares every result with the interpreter's:
     |xla - topos| <= atol * scale + rtol * |topos| elementwise, where scale is
     the largest finite |topos| of that result (at least 1), NaN matching NaN.
     Tolerances: f32 rtol 2e-5, atol 1e-5; f64 rtol 1e-10, atol 1e-12 (XLA sums
     in its own order and uses its own exp, log, tanh).

Exit status: 0 when every plan matches, 1 when one does not or XLA rejects one,
77 when JAX is not installed (CTest reports the test as skipped).

It needs only `jax` (and numpy, which jax brings): `pip install jax` on any
machine, `pip install "jax[cuda12]"` for an NVIDIA GPU. It uses jaxlib's client
interface (Client.compile_and_load in current jaxlib, Client.compile before
it), which is not a stable public API: the fallbacks below cover both.
"""
import argparse
import json
import pathlib
import struct
import sys

SKIPPED = 77
TOLERANCES = {"float32": (2e-5, 1e-5), "float64": (1e-10, 1e-12), "bfloat16": (2 ** -6, 2 ** -8)}


def read_safetensors(path, np):
    data = path.read_bytes()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + length])
    body = data[8 + length:]
    dtypes = {"F32": np.float32, "F64": np.float64}
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        begin, end = entry["data_offsets"]
        if entry["dtype"] == "BF16":
            import ml_dtypes  # JAX's own bfloat16 type
            halves = np.frombuffer(body[begin:end], dtype=np.uint16)
            values = (halves.astype(np.uint32) << 16).view(np.float32).astype(ml_dtypes.bfloat16)
        else:
            values = np.frombuffer(body[begin:end], dtype=dtypes[entry["dtype"]])
        tensors[name] = values.reshape(entry["shape"])
    return tensors


def numbered(tensors, prefix):
    """The tensors named PREFIX0, PREFIX1, ... in numeric order."""
    found = {}
    for name, value in tensors.items():
        suffix = name[len(prefix):]
        if name.startswith(prefix) and suffix.isdigit():
            found[int(suffix)] = value
    return [found[i] for i in sorted(found)]


class Xla:
    """Parses, compiles and runs a StableHLO module on the first JAX device."""

    def __init__(self, jax):
        from jax._src.interpreters import mlir
        from jax._src.lib import xla_client
        from jax._src.lib.mlir import ir

        self.jax, self.mlir, self.ir, self.xla_client = jax, mlir, ir, xla_client
        self.device = jax.devices()[0]
        self.client = self.device.client

    def parse(self, text):
        """The module as XLA's compile input; raises if it does not parse or verify."""
        with self.mlir.make_ir_context():
            module = self.ir.Module.parse(text)
            if not module.operation.verify():
                raise ValueError("the module does not verify")
            to_bytecode = getattr(self.mlir, "module_to_bytecode", None)
            return to_bytecode(module) if to_bytecode else str(module)

    def compile(self, payload):
        options = self.xla_client.CompileOptions()
        if hasattr(self.client, "compile_and_load"):
            devices = self.xla_client.DeviceList((self.device,))
            return self.client.compile_and_load(payload, devices, compile_options=options)
        return self.client.compile(payload, compile_options=options)

    def run(self, executable, arguments):
        buffers = [self.jax.device_put(argument, self.device) for argument in arguments]
        if hasattr(executable, "execute_sharded"):
            results = executable.execute_sharded(buffers)
            outputs = [per_device[0] for per_device in results.disassemble_into_single_device_arrays()]
        else:
            outputs = executable.execute(buffers)
        return outputs


def mismatch(expected, actual, np):
    """None when `actual` matches `expected` within the tolerances, else why not."""
    actual = np.asarray(actual)
    if actual.shape != expected.shape or actual.dtype != expected.dtype:
        return f"got {actual.dtype}{list(actual.shape)}, expected {expected.dtype}{list(expected.shape)}"
    rtol, atol = TOLERANCES[expected.dtype.name]
    actual, expected = actual.astype(np.float64), expected.astype(np.float64)
    finite = np.abs(expected[np.isfinite(expected)])
    scale = max(1.0, float(finite.max())) if finite.size else 1.0
    close = np.isclose(actual, expected, rtol=rtol, atol=atol * scale, equal_nan=True)
    if close.all():
        return None
    worst = np.unravel_index(np.argmax(np.where(close, 0.0, np.abs(actual - expected))), expected.shape)
    return (f"{int((~close).sum())} of {expected.size} elements differ; at {tuple(int(i) for i in worst)} "
            f"XLA gives {actual[worst]!r}, the interpreter {expected[worst]!r}")


def validate(xla, module_path, np):
    tensors = read_safetensors(module_path.with_name(module_path.name[:-len(".mlir")] + ".safetensors"), np)
    executable = xla.compile(xla.parse(module_path.read_text()))
    outputs = xla.run(executable, numbered(tensors, "arg"))
    expected = numbered(tensors, "result")
    if len(outputs) != len(expected):
        return [f"{len(outputs)} results, expected {len(expected)}"]
    problems = []
    for i, (want, got) in enumerate(zip(expected, outputs)):
        problem = mismatch(want, got, np)
        if problem:
            problems.append(f"result {i}: {problem}")
    return problems


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=pathlib.Path)
    parser.add_argument("--only", default="", help="check only plans whose name contains this")
    args = parser.parse_args(argv)
    try:
        import jax
        import numpy as np
    except ImportError:
        print("JAX is not installed: the XLA validation of the emitted StableHLO is skipped "
              "(pip install jax, then rerun; see docs/guide/emission.md)")
        return SKIPPED
    jax.config.update("jax_enable_x64", True)
    xla = Xla(jax)
    modules = sorted(path for path in args.corpus.glob("*.mlir")
                     if not path.name.endswith(".generic.mlir") and args.only in path.name)
    if not modules:
        print(f"no modules in {args.corpus}: run topos_emit_corpus {args.corpus} first")
        return 1
    failures = 0
    for path in modules:
        name = path.name[:-len(".mlir")]
        try:
            problems = validate(xla, path, np)
        except Exception as error:  # a module XLA rejects is a failure to report, not a crash
            problems = [f"{type(error).__name__}: {error}"]
        failures += bool(problems)
        print(f"{'ok' if not problems else 'FAILED'}  {name}")
        for problem in problems:
            print(f"    {problem}")
    print(f"{len(modules)} plans compiled by XLA on {xla.device.platform}, {failures} differ from the interpreter")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
