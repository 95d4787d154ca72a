"""Readings in a notebook: every type with a card renders HTML, pictures and
plots SVG, and every error is a topos exception with the C++ message."""
import xml.dom.minidom

import numpy as np
import pytest

import topos


def recorded():
    tape = topos.Tape("float32")
    w = tape.parameter(np.ones((2, 2), np.float32))
    x = tape.input(np.ones((1, 2), np.float32))
    loss = (x @ w).tanh().sum()
    adjoints = tape.differentiate(loss, [w])
    return tape, w, x, loss, adjoints


def test_every_type_with_a_card_renders_html():
    tape, w, x, loss, adjoints = recorded()
    cards = [tape._repr_html_(), adjoints._repr_html_()]
    network = tape.into_network()
    entry = network.entry(adjoints.roots())
    plan = entry.lower()
    run = plan.forward(network.parameters())
    cards += [network._repr_html_(), entry._repr_html_(), plan._repr_html_(), run._repr_html_(),
              network.parameters()._repr_html_(),
              network.forward(network.parameters()).backward(loss)._repr_html_(),
              topos.tensor(np.eye(2), "float64")._repr_html_()]
    for card in cards:
        assert card.lstrip().startswith("<") and "</" in card


def test_pictures_and_plots_render_svg_that_parses():
    tape, w, x, loss, adjoints = recorded()
    network = tape.into_network()
    plan = network.entry([loss]).lower()
    picture = topos.show.graph(plan)
    assert "digraph" in picture.dot()
    if topos.show.Picture.can_lay_out():
        xml.dom.minidom.parseString(picture._repr_svg_())
    plot = topos.show.live_volume(plan)
    xml.dom.minidom.parseString(plot._repr_svg_())
    curve = topos.show.LiveCurve("loss")
    for value in (3.0, 2.0, 1.5):
        curve.append(value)
    xml.dom.minidom.parseString(curve._repr_svg_())
    assert "loss" in str(curve)


def test_errors_keep_the_cpp_message_and_sit_in_the_hierarchy():
    assert issubclass(topos.ShapeError, topos.Error)
    assert issubclass(topos.ShapeError, ValueError)
    assert issubclass(topos.CheckpointError, OSError)
    assert issubclass(topos.Error, RuntimeError)
    tape = topos.Tape("float32")
    a = tape.input(np.zeros((2, 3), np.float32))
    with pytest.raises(topos.ShapeError, match=r"\[2, 3\]"):
        a.reshape(4, 2)


def test_no_cpp_exception_escapes_as_an_unknown_error():
    tape = topos.Tape("float32")
    x = tape.input(np.zeros(3, np.float32))
    network = tape.into_network()
    failures = [
        lambda: network.entry([]),
        lambda: network.forward(network.parameters(), {x: np.zeros(4, np.float32)}),
        lambda: topos.Tape("float32").input(np.zeros((1,) * 9, np.float32)),
    ]
    for failure in failures:
        with pytest.raises(topos.Error) as raised:
            failure()
        assert "Unknown" not in str(raised.value)


def test_a_report_gathers_cards_pictures_and_text_into_one_page(tmp_path):
    tape, w, x, loss, adjoints = recorded()
    network = tape.into_network()
    plan = network.entry([loss]).lower()
    report = topos.show.Report("a small network")
    report.add("network", network).add("live volume", topos.show.live_volume(plan))
    report.add("plan", plan.describe())
    path = tmp_path / "report.html"
    report.write(str(path))
    page = path.read_text()
    assert page.count("<style>") == 1 and "a small network" in page
    assert "topos-card" in page and "<svg" in page
    cell = report._repr_html_()
    assert "<html" not in cell and "topos-card" in cell
    with pytest.raises(TypeError):
        report.add("nothing", 42)
