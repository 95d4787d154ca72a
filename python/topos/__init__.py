"""topos from Python: record a computation on a tape, seal it into a network,
run it, differentiate it, lower it into a plan, emit StableHLO, and train
models, over topos's C++ core (the same bits as a C++ program).

    import numpy as np
    import topos

    tape = topos.Tape("float64")
    w = tape.parameter(0.5)
    x = tape.input(2.0)
    loss = (w * x - 4.0).square()
    network = tape.into_network()
    run = network.forward(network.parameters(), {x: np.float64(3.0)})
    print(run.of(loss), run.backward(loss).of(w))

Every element-typed class exists once per element type (Tape_float32,
Tape_float64, ...); the functions below pick the one a dtype or a tape names.
Arrays come back as read-only NumPy views of topos's own storage.
"""
from . import _topos
from ._topos import (
    Activation,
    CheckpointError,
    CsvError,
    EmitError,
    EntryError,
    Error,
    FeedError,
    GradientError,
    IndexError,
    Numerics,
    ReadError,
    ShapeError,
    ShowError,
    Symbol,
    SymbolError,
    TapeError,
    average_pool,
    binary_cross_entropy_with_logits,
    checkpoint,
    concat,
    conv2d,
    cross_entropy,
    data,
    elements_per_channel,
    gather,
    init,
    isa,
    max_pool,
    mse,
    optim,
    show,
    stack,
    tensor,
    where,
)
from .live import LiveCurve

__version__ = _topos.__version__

DTYPES = ("float32", "float64")

show.LiveCurve = LiveCurve


def _typed(kind, dtype):
    if dtype not in DTYPES:
        raise ValueError(f'dtype is one of {", ".join(DTYPES)}; got {dtype!r}'
                         + (" (bfloat16 tapes are not reachable from Python yet)"
                            if dtype == "bfloat16" else ""))
    return getattr(_topos, f"{kind}_{dtype}")


def Tape(dtype="float32"):
    """A new tape recording values of `dtype` ("float32" or "float64")."""
    return _typed("Tape", dtype)()


def _module(kind):
    def make(tape, *args, **kwargs):
        return _typed(kind, tape.dtype)(tape, *args, **kwargs)

    make.__name__ = make.__qualname__ = kind
    make.__doc__ = getattr(_topos, f"{kind}_float32").__doc__
    return make


Linear = _module("Linear")
Mlp = _module("Mlp")
Conv2d = _module("Conv2d")
BatchNorm = _module("BatchNorm")
LayerNorm = _module("LayerNorm")
Embedding = _module("Embedding")
CausalSelfAttention = _module("CausalSelfAttention")
TransformerBlock = _module("TransformerBlock")


def Function(model, body, arguments=("real",), numerics="exact"):
    """`body` over the network `model`, compiled once per input shape."""
    return _typed("Function", model.dtype)(model, body, list(arguments), numerics)


def parameters_of(*modules):
    """Every parameter value of `modules`, in turn (topos::parameters_of)."""
    return [parameter for module in modules for parameter in module.parameters()]
