"""Recording from Python: the seeds' first tape, shapes checked as recorded,
axes as Python writes them, and the tape sealed once."""
import os
import pathlib

import numpy as np
import pytest

import topos


def golden(name):
    path = pathlib.Path(os.environ["TOPOS_SOURCE_DIR"]) / "examples" / "golden" / name
    return path.read_text()


def test_the_first_tape_describes_as_the_cpp_walk_through_prints_it():
    tape = topos.Tape("float64")
    w = tape.parameter(0.0)
    x = tape.input(0.0)
    y = tape.input(0.0)
    error = w * x - y
    error * error
    assert "== The first tape\n\n" + tape.describe() + "\n" in golden("getting_started.txt")
    assert len(tape) == 6


def test_a_shape_mismatch_raises_shape_error_a_value_error_and_records_nothing():
    tape = topos.Tape("float32")
    a = tape.input(np.zeros((2, 3), np.float32))
    b = tape.input(np.zeros((4, 5), np.float32))
    recorded = len(tape)
    with pytest.raises(topos.ShapeError) as raised:
        a @ b
    assert isinstance(raised.value, ValueError)
    assert "MatMul" in str(raised.value)
    assert len(tape) == recorded


def test_numbers_and_arrays_mix_with_values_as_constants():
    tape = topos.Tape("float64")
    x = tape.input(np.array([1.0, 2.0, 3.0]))
    y = 2.0 * x + 1.0
    z = 1.0 - x / 4.0
    w = x ** 2.0
    v = 2.0 ** x
    network = tape.into_network()
    run = network.forward(network.parameters())
    np.testing.assert_array_equal(run.of(y), [3.0, 5.0, 7.0])
    np.testing.assert_array_equal(run.of(z), [0.75, 0.5, 0.25])
    np.testing.assert_array_equal(run.of(w), [1.0, 4.0, 9.0])
    np.testing.assert_array_equal(run.of(v), [2.0, 4.0, 8.0])


def test_negative_axes_count_from_the_end():
    tape = topos.Tape("float64")
    x = tape.input(np.arange(6.0).reshape(2, 3))
    assert x.sum(-1).shape == (2,)
    assert x.sum(axis=(0, 1)).shape == ()
    assert x.mean(-2, keepdim=True).shape == (1, 3)
    assert x.unsqueeze(-1).shape == (2, 3, 1)
    assert x.reshape(3, -1).shape == (3, 2)
    assert x.permute(1, 0).shape == (3, 2)
    assert x.T.shape == (3, 2)
    with pytest.raises(topos.IndexError):
        x.sum(2)


def test_a_sealed_tape_raises_tape_error_instead_of_recording():
    tape = topos.Tape()
    x = tape.input(1.0)
    tape.into_network()
    assert tape.sealed
    with pytest.raises(topos.TapeError, match="sealed"):
        tape.parameter(1.0)
    with pytest.raises(topos.TapeError):
        x + 1.0


def test_a_value_outlives_its_tape_object():
    def record():
        tape = topos.Tape("float64")
        return tape.input(np.ones(3))

    value = record()
    assert (value * 2.0).shape == (3,)


def test_values_of_different_element_types_do_not_mix():
    x = topos.Tape("float32").input(1.0)
    y = topos.Tape("float64").input(1.0)
    with pytest.raises(TypeError):
        x + y


def test_an_unknown_dtype_is_refused_clearly():
    with pytest.raises(ValueError, match="float32"):
        topos.Tape("int8")
