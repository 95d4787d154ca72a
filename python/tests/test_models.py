"""The model layer from Python: modules on a tape called like torch.nn
modules, initialisers that continue their stream as in C++, optimizers as
pure transforms and in place, checkpoints, and their errors."""
import numpy as np
import pytest

import topos


def test_an_initialiser_draws_the_cpp_stream_and_continues_it():
    first = topos.init.xavier(3)
    again = topos.init.xavier(3)
    a = first.make((4, 5))
    b = first.make((4, 5))
    assert not np.array_equal(a, b)
    np.testing.assert_array_equal(again.make((4, 5)), a)


def test_modules_share_one_initialiser_as_mlp_layers_do():
    tape = topos.Tape("float32")
    mlp = topos.Mlp(tape, [8, 16, 4], topos.Activation.Tanh, init=topos.init.xavier(3))
    other = topos.Tape("float32")
    init = topos.init.xavier(3)
    first = topos.Linear(other, 8, 16, init=init)
    second = topos.Linear(other, 16, 4, init=init)
    a, b = tape.into_network(), other.into_network()
    for layer, twin in zip(mlp.layers(), (first, second)):
        np.testing.assert_array_equal(a.payload(layer.weight), b.payload(twin.weight))
    assert [name for name, _ in mlp.named_parameters()] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert "Mlp(8 -> 16 -> 4" in mlp.describe()


def test_a_module_is_called_like_a_torch_module():
    tape = topos.Tape("float64")
    linear = topos.Linear(tape, 3, 2, init=topos.init.zeros())
    x = tape.input(np.ones((5, 3)))
    assert linear(x).shape == (5, 2)
    assert linear.express(x).shape == (5, 2)
    assert len(linear.parameters()) == 2
    assert "<" in linear._repr_html_()


def test_batch_norm_gives_the_output_and_the_batch_statistics():
    tape = topos.Tape("float32")
    norm = topos.BatchNorm(tape, 3)
    x = tape.input(np.arange(12, dtype=np.float32).reshape(4, 3))
    training = norm.training(x)
    network = tape.into_network()
    run = network.forward(network.parameters())
    np.testing.assert_allclose(run.of(training.mean), [4.5, 5.5, 6.5])
    np.testing.assert_allclose(run.of(training.output).mean(axis=0), 0, atol=1e-6)
    mean, variance = norm.start()
    np.testing.assert_array_equal(mean, 0)
    np.testing.assert_array_equal(variance, 1)


def quadratic():
    tape = topos.Tape("float64")
    w = tape.parameter(np.array([1.0, -2.0]))
    loss = w.square().sum()
    adjoints = tape.differentiate(loss, [w])
    network = tape.into_network()
    plan = network.entry(adjoints.roots()).lower()
    return network, plan, adjoints, w, loss


def test_sgd_steps_as_its_update_rule_says():
    network, plan, adjoints, w, loss = quadratic()
    sgd = topos.optim.Sgd(lr=0.25)
    parameters = network.parameters()
    state = sgd.start(parameters)
    gradients = plan.forward(parameters).recorded_gradients(adjoints)
    stepped, state = sgd.step(parameters, gradients, state)
    np.testing.assert_array_equal(stepped.of(w), [0.5, -1.0])  # w - 0.25 * 2 w
    np.testing.assert_array_equal(parameters.of(w), [1.0, -2.0])  # pure: unchanged
    assert state.steps == 1


def test_adam_in_place_gives_the_bits_of_the_pure_step():
    network, plan, adjoints, w, loss = quadratic()
    adam = topos.optim.AdamW(lr=0.1)
    pure, in_place = network.parameters(), network.parameters()
    pure_state, in_place_state = adam.start(pure), adam.start(in_place)
    for _ in range(3):
        gradients = plan.forward(pure).recorded_gradients(adjoints)
        pure, pure_state = adam.step(pure, gradients, pure_state)
        gradients = plan.forward(in_place).recorded_gradients(adjoints)
        adam.step_in_place(in_place, gradients, in_place_state)
    np.testing.assert_array_equal(pure.of(w), in_place.of(w))
    assert in_place_state.steps == 3


def test_an_array_handed_out_is_not_overwritten_by_a_step_in_place():
    network, plan, adjoints, w, loss = quadratic()
    sgd = topos.optim.Sgd(lr=0.25)
    parameters = network.parameters()
    before = parameters.of(w)
    state = sgd.start(parameters)
    sgd.step_in_place(parameters, plan.forward(parameters).recorded_gradients(adjoints), state)
    np.testing.assert_array_equal(before, [1.0, -2.0])
    np.testing.assert_array_equal(parameters.of(w), [0.5, -1.0])


def test_a_checkpoint_round_trips_and_a_mismatch_is_an_os_error(tmp_path):
    network, plan, adjoints, w, loss = quadratic()
    parameters = network.parameters().with_(w, np.array([3.0, 4.0]))
    path = str(tmp_path / "w.safetensors")
    topos.checkpoint.save(path, parameters)
    np.testing.assert_array_equal(topos.checkpoint.load(path, network).of(w), [3.0, 4.0])
    other = topos.Tape("float64")
    other.parameter(np.zeros(3))
    with pytest.raises(topos.CheckpointError) as raised:
        topos.checkpoint.load(path, other.into_network())
    assert isinstance(raised.value, OSError)
    with pytest.raises(topos.CheckpointError):
        topos.checkpoint.load(str(tmp_path / "missing.safetensors"), network)


def test_parameters_step_takes_a_python_update():
    network, plan, adjoints, w, loss = quadratic()
    parameters = network.parameters()
    gradients = plan.forward(parameters).recorded_gradients(adjoints)
    stepped = parameters.step(gradients, lambda weight, gradient: weight - 0.25 * gradient)
    np.testing.assert_array_equal(stepped.of(w), [0.5, -1.0])


def test_schedules_and_orders_match_their_definitions():
    decay = topos.optim.StepDecay(1.0, 10, 0.5)
    assert decay(0) == 1.0 and decay(10) == 0.5 and decay(25) == 0.25
    cosine = topos.optim.WarmupCosine(1.0, 10, 110)
    assert cosine(10) == pytest.approx(1.0)
    order = topos.data.shuffled(10, 7)
    assert sorted(order) == list(range(10))
    assert topos.data.shuffled(10, 7) == order
    assert topos.data.batches(5, 2) == [slice(0, 2, 1), slice(2, 4, 1), slice(4, 5, 1)]


def test_read_csv_reads_numbers_and_names_the_line_of_a_bad_field(tmp_path):
    path = tmp_path / "table.csv"
    path.write_text("a,b\n1,2.5\n3,-4\n")
    np.testing.assert_array_equal(topos.data.read_csv(str(path), header=True), [[1, 2.5], [3, -4]])
    path.write_text("1,2\n3,x\n")
    with pytest.raises(topos.CsvError, match=r"table.csv:2: column 2") as raised:
        topos.data.read_csv(str(path))
    assert isinstance(raised.value, ValueError)
