"""NumPy in and out: results are read-only views of topos's storage (no
copy) that keep it alive; topos's own arrays come back without a copy; only
exact conversions happen implicitly."""
import gc

import numpy as np
import pytest

import topos


def forward(values, dtype="float32"):
    tape = topos.Tape(dtype)
    x = tape.input(values)
    y = x * 2.0
    network = tape.into_network()
    return network.forward(network.parameters()), x, y


def test_a_result_is_a_read_only_view_that_outlives_its_run():
    run, _, y = forward(np.arange(6, dtype=np.float32).reshape(2, 3))
    result = run.of(y)
    again = run.of(y)
    assert result.dtype == np.float32 and result.shape == (2, 3)
    assert not result.flags.writeable
    assert np.shares_memory(result, again)  # both view the run's own storage
    with pytest.raises(ValueError):
        result[0, 0] = 1.0
    del run
    gc.collect()
    np.testing.assert_array_equal(result, [[0, 2, 4], [6, 8, 10]])


def test_a_topos_array_fed_back_is_not_copied():
    run, x, y = forward(np.ones(4, np.float32))
    doubled = run.of(y)
    tape = topos.Tape("float32")
    z = tape.input(doubled)
    network = tape.into_network()
    assert np.shares_memory(network.payload(z), doubled)


def test_a_foreign_array_is_copied_once_and_later_writes_do_not_reach_the_tape():
    values = np.ones(3, np.float32)
    tape = topos.Tape("float32")
    x = tape.input(values)
    values[0] = 7.0
    network = tape.into_network()
    np.testing.assert_array_equal(network.payload(x), [1.0, 1.0, 1.0])


def test_float64_arrays_are_refused_by_a_float32_tape_rather_than_rounded():
    tape = topos.Tape("float32")
    with pytest.raises(TypeError, match="astype"):
        tape.input(np.array([0.1]))
    tape.input(np.array([0.1]).astype(np.float32))


def test_integer_arrays_convert_when_every_value_survives():
    tape = topos.Tape("float32")
    labels = tape.input(np.array([3, 1, 4]))
    network = tape.into_network()
    np.testing.assert_array_equal(network.payload(labels), [3.0, 1.0, 4.0])
    with pytest.raises(TypeError, match="exactly"):
        topos.Tape("float32").input(np.array([2**24 + 1]))


def test_python_numbers_and_lists_convert_as_torch_tensor_does():
    tape = topos.Tape("float32")
    x = tape.input([[0.1, 0.2]])
    network = tape.into_network()
    np.testing.assert_array_equal(network.payload(x), np.array([[0.1, 0.2]], np.float32))


def test_a_tensor_object_is_a_buffer_numpy_reads_without_a_copy():
    tensor = topos.tensor(np.arange(4.0), "float64")
    view = np.asarray(tensor)
    assert view.dtype == np.float64 and not view.flags.writeable
    assert str(tensor) == "[0, 1, 2, 3]"
    assert "Tensor<double>" in tensor._repr_html_() or "<" in tensor._repr_html_()


def test_feeds_name_inputs_by_value():
    tape = topos.Tape("float64")
    x = tape.input(0.0)
    y = (x * 3.0).square()
    network = tape.into_network()
    run = network.forward(network.parameters(), {x: 2.0})
    assert run.of(y) == 36.0
    with pytest.raises(topos.FeedError) as raised:
        network.forward(network.parameters(), {x: np.zeros(2)})
    assert isinstance(raised.value, ValueError)
