"""Running, differentiating, lowering and emitting from Python, checked
against the interpreter (the oracle) and against finite differences."""
import numpy as np
import pytest

import topos


def small_model(dtype="float64"):
    tape = topos.Tape(dtype)
    w = tape.parameter(np.array([[0.5, -0.25], [0.25, 0.4]], dtype))
    x = tape.input(np.array([[1.0, 2.0]], dtype))
    hidden = (x @ w).tanh()
    loss = hidden.square().sum()
    return tape, w, x, hidden, loss


def test_the_reverse_scan_agrees_with_central_differences():
    tape, w, x, _, loss = small_model()
    network = tape.into_network()
    parameters = network.parameters()
    gradient = network.forward(parameters).backward(loss).of(w)
    step = 1e-6
    base = parameters.of(w)
    for index in np.ndindex(base.shape):
        moved = [base.copy(), base.copy()]
        moved[0][index] += step
        moved[1][index] -= step
        up, down = (network.forward(parameters.with_(w, m)).of(loss) for m in moved)
        assert gradient[index] == pytest.approx((up - down) / (2 * step), rel=1e-6)


def test_the_recorded_derivative_gives_the_reverse_scan_s_bits():
    tape, w, x, _, loss = small_model()
    adjoints = tape.differentiate(loss, [w])
    network = tape.into_network()
    parameters = network.parameters()
    run = network.forward(parameters)
    np.testing.assert_array_equal(run.of(adjoints.of(w)), run.backward(loss).of(w))
    recorded = run.recorded_gradients(adjoints)
    np.testing.assert_array_equal(recorded.of(w), run.backward(loss).of(w))


def test_an_exact_plan_gives_the_interpreter_s_bits():
    tape, w, x, hidden, loss = small_model("float32")
    adjoints = tape.differentiate(loss, [w])
    network = tape.into_network()
    entry = network.entry(adjoints.roots()).observe([hidden]).numerics("exact")
    plan = entry.lower()
    parameters = network.parameters()
    feeds = {x: np.array([[0.3, -0.7]], np.float32)}
    planned = plan.forward(parameters, feeds)
    oracle = network.forward(parameters, feeds)
    for value in (loss, hidden, adjoints.of(w)):
        np.testing.assert_array_equal(planned.of(value), oracle.of(value))
    assert "scheduled" in plan.describe() or len(plan.describe()) > 0
    assert len(plan.live_series()) == len(plan.nodes())


def test_reading_outside_the_declaration_raises_read_error():
    tape, w, x, hidden, loss = small_model()
    network = tape.into_network()
    run = network.entry([loss]).interpret(network.parameters())
    with pytest.raises(topos.ReadError):
        run.of(hidden)
    with pytest.raises(LookupError):
        run.of(hidden)


def test_emission_writes_a_stablehlo_module_in_both_forms():
    tape, w, x, hidden, loss = small_model("float32")
    network = tape.into_network()
    plan = network.entry([loss]).lower()
    pretty = plan.emit_stablehlo()
    generic = plan.emit_stablehlo(form="generic")
    assert "stablehlo.tanh" in pretty and "func.func" in pretty
    assert '"stablehlo.tanh"' in generic
    with pytest.raises(ValueError):
        plan.emit_stablehlo(form="fancy")


def test_numerics_are_named_by_string_or_enum():
    tape, w, x, hidden, loss = small_model()
    network = tape.into_network()
    assert network.entry([loss]).numerics(topos.Numerics.Fast).lower() is not None
    with pytest.raises(ValueError, match="exact"):
        network.entry([loss]).numerics("approximate")


def test_a_function_compiles_once_per_shape_and_differentiates():
    tape = topos.Tape("float64")
    linear = topos.Linear(tape, 3, 2, init=topos.init.xavier(1))
    network = tape.into_network()

    def loss(x):
        return linear(x).square().mean()

    function = topos.Function(network, loss)
    parameters = network.parameters()
    batch = np.arange(12.0).reshape(4, 3) / 10
    value = function(parameters, batch)
    again, gradients = function.value_and_gradients(parameters, batch)
    assert value == again
    assert function.compiled() == 2
    function(parameters, batch[:2])
    assert function.compiled() == 3
    assert gradients.of(linear.weight).shape == (3, 2)
    with pytest.raises(topos.ShapeError):
        function(parameters, np.zeros((4, 5)))


def test_a_network_reopens_into_a_tape_that_records_on_top():
    tape, w, x, hidden, loss = small_model()
    network = tape.into_network()
    reopened = network.reopen()
    doubled = reopened.value(loss) * 2.0
    bigger = reopened.into_network()
    run = bigger.forward(bigger.parameters())
    assert run.of(doubled) == 2 * network.forward(network.parameters()).of(loss)


def test_work_runs_with_the_gil_released_so_threads_proceed():
    import threading

    tape, w, x, hidden, loss = small_model()
    network = tape.into_network()
    plan = network.entry([loss]).lower()
    results = []

    def work():
        results.append(plan.forward(network.parameters()).of(loss))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(float(r) for r in results)) == 1


def test_an_exception_in_a_function_body_reaches_the_caller_unchanged():
    tape = topos.Tape("float64")
    linear = topos.Linear(tape, 3, 2, init=topos.init.zeros())
    network = tape.into_network()

    def body(x):
        if x.shape[0] == 5:
            raise ArithmeticError("five rows are refused here")
        return linear(x).sum()

    function = topos.Function(network, body)
    assert function(network.parameters(), np.ones((4, 3))) == 0.0
    with pytest.raises(ArithmeticError, match="five rows"):
        function(network.parameters(), np.ones((5, 3)))
    assert function(network.parameters(), np.ones((2, 3))) == 0.0


def test_a_function_refuses_numerics_it_does_not_know():
    tape = topos.Tape("float64")
    tape.parameter(1.0)
    network = tape.into_network()
    with pytest.raises(ValueError, match="exact"):
        topos.Function(network, lambda x: x.sum(), numerics="approximate")
