"""topos.data from Python: the generator's stream, the augmentation in place
(and what it refuses), the progress line written to a Python file, and
BatchNorm's running statistics."""
import io

import numpy as np
import pytest

import topos


def test_a_generator_continues_its_stream_through_shuffles():
    generator, replay = topos.data.Generator(3), topos.data.Generator(3)
    assert topos.data.shuffled(10, generator) == topos.data.shuffled(10, 3)
    assert generator.draws() == 9
    for _ in range(9):
        replay.bits()
    assert generator.bits() == replay.bits()


def test_jitter_that_may_not_move_leaves_images_alone_and_draws_four_numbers_an_image():
    images = np.arange(2 * 12, dtype=np.float64).reshape(2, 12)
    generator = topos.data.Generator(5)
    topos.data.jitter_images(images, 3, 4, topos.data.AffineJitter(), generator)
    np.testing.assert_array_equal(images, np.arange(24, dtype=np.float64).reshape(2, 12))
    assert generator.draws() == 8


def test_jitter_moves_pixels_and_keeps_the_centre_of_an_odd_sized_image():
    images = np.arange(1, 36, dtype=np.float32).reshape(1, 35)
    original = images.copy()
    topos.data.jitter_images(images, 5, 7, topos.data.AffineJitter(largest_sine=0.3, largest_scale=0.2),
                             topos.data.Generator(3))
    centre = 2 * 7 + 3
    assert images[0, centre] == original[0, centre]
    assert not np.array_equal(images, original)


@pytest.mark.parametrize("images", [np.zeros((2, 4), np.float16), [0.0] * 8,
                                    np.zeros((4, 2), np.float32).T])
def test_jitter_refuses_what_it_cannot_change_in_place(images):
    with pytest.raises(TypeError):
        topos.data.jitter_images(images, 2, 2, topos.data.AffineJitter(), topos.data.Generator(1))


def test_jitter_refuses_a_size_that_is_not_whole_images():
    with pytest.raises(ValueError, match="not a whole number of 2x3 images"):
        topos.data.jitter_images(np.zeros(10, np.float32), 2, 3, topos.data.AffineJitter(),
                                 topos.data.Generator(1))


def test_a_read_only_array_is_refused():
    images = np.zeros(8, np.float32)
    images.flags.writeable = False
    with pytest.raises(TypeError, match="writable"):
        topos.data.add_gaussian_noise(images, 0.1, topos.data.Generator(1))


def test_noise_is_the_normal_initialiser_seeded_by_one_draw():
    values = np.linspace(0, 1, 12, dtype=np.float32)
    original = values.copy()
    generator, replay = topos.data.Generator(9), topos.data.Generator(9)
    topos.data.add_gaussian_noise(values, 0.25, generator)
    noise = topos.init.normal(replay.bits(), 0.25).make([12])
    np.testing.assert_array_equal(values, original + noise)
    assert generator.draws() == 1


def test_the_progress_line_writes_plain_lines_to_a_python_file():
    out = io.StringIO()
    progress = topos.data.Progress(10, every=5, file=out)
    for step in range(10):
        progress.update(step, 1.0 / (step + 1), 4)
    progress.finish()
    lines = out.getvalue().splitlines()
    assert [line.split()[1] for line in lines[:-1]] == ["1/10", "6/10", "10/10"]
    assert lines[-1].startswith("10 steps in ")
    assert progress.losses() == [1.0 / (step + 1) for step in range(10)]


def test_batch_norm_update_takes_the_pair_start_gives():
    tape = topos.Tape("float64")
    norm = topos.BatchNorm(tape, 2)
    x = tape.input(np.array([[1.0, 2.0], [3.0, 6.0]]))
    recorded = norm.training(x)
    network = tape.into_network()
    run = network.forward(network.parameters())
    mean, variance = norm.update(norm.start(), run.of(recorded.mean), run.of(recorded.variance),
                                 topos.elements_per_channel(x.shape))
    np.testing.assert_allclose(mean, [0.2, 0.4])
    np.testing.assert_allclose(variance, [0.9 + 0.1 * 2.0, 0.9 + 0.1 * 8.0])
    with pytest.raises(ValueError, match="tuple"):
        norm.update((mean,), mean, variance, 2)
