// topos.data: what feeds a training loop from Python. Tables read from CSV
// files, the seeded generator and shuffles every platform reproduces, batches
// as slices, the augmentation of images (in place on NumPy arrays, with the
// bits of the C++ functions), and the progress line, written to Python's
// sys.stdout so that it interleaves with print().
#include "handles.hpp"
#include "module.hpp"
#include <topos/data/augment.hpp>
#include <topos/data/batches.hpp>
#include <topos/data/csv.hpp>
#include <topos/data/generator.hpp>
#include <topos/data/progress.hpp>

#include <memory>
#include <ostream>
#include <streambuf>
#include <string>

namespace topos::python {
namespace {

// A stream buffer that hands what it holds to a Python file object's write()
// (and flush()) at every flush of its stream.
class PythonFileBuffer : public std::streambuf {
public:
    explicit PythonFileBuffer(py::object file) : file_(std::move(file)) {}

protected:
    int_type overflow(int_type character) override {
        if (!traits_type::eq_int_type(character, traits_type::eof())) {
            pending_.push_back(traits_type::to_char_type(character));
        }
        return traits_type::not_eof(character);
    }

    std::streamsize xsputn(const char* text, std::streamsize count) override {
        pending_.append(text, static_cast<std::size_t>(count));
        return count;
    }

    int sync() override {
        if (!pending_.empty()) {
            const py::gil_scoped_acquire gil;
            file_.attr("write")(pending_);
            file_.attr("flush")();
            pending_.clear();
        }
        return 0;
    }

private:
    py::object file_;
    std::string pending_;
};

// data::Progress writing to a Python file (sys.stdout unless given).
class PythonProgress {
public:
    PythonProgress(std::size_t steps, std::size_t every, py::object file, py::object in_place)
        : buffer_(std::make_unique<PythonFileBuffer>(file)),
          stream_(std::make_unique<std::ostream>(buffer_.get())),
          progress_(steps,
                    {.every = every,
                     .out = stream_.get(),
                     .in_place = in_place.is_none() ? file.attr("isatty")().cast<bool>()
                                                    : in_place.cast<bool>()}) {}

    data::Progress& progress() { return progress_; }

private:
    std::unique_ptr<PythonFileBuffer> buffer_;
    std::unique_ptr<std::ostream> stream_;
    data::Progress progress_;
};

// The elements of a writable, C-contiguous float32 or float64 ndarray, as
// the span `augment` takes; TypeError for anything else.
template <class Augment>
void in_place(const py::handle& object, const char* function, const Augment& augment) {
    if (!py::isinstance<py::array>(object)) {
        throw py::type_error(std::string(function) + " takes a NumPy ndarray, got " +
                             py::str(py::type::of(object)).cast<std::string>());
    }
    auto array = py::reinterpret_borrow<py::array>(object);
    const bool contiguous = (array.flags() & py::array::c_style) != 0;
    if (!array.writeable() || !contiguous) {
        throw py::type_error(std::string(function) +
                             " changes its array in place: give a writable, C-contiguous ndarray "
                             "(np.ascontiguousarray(a) or a.copy())");
    }
    const auto count = static_cast<std::size_t>(array.size());
    if (py::isinstance<py::array_t<float>>(array)) {
        augment(std::span<float>(static_cast<float*>(array.mutable_data()), count));
    } else if (py::isinstance<py::array_t<double>>(array)) {
        augment(std::span<double>(static_cast<double*>(array.mutable_data()), count));
    } else {
        throw py::type_error(std::string(function) + " takes a float32 or float64 ndarray, got " +
                             py::str(array.dtype()).cast<std::string>());
    }
}

void bind_generator(py::module_& data) {
    py::class_<data::Generator>(data, "Generator", R"(
A stream of random numbers that is the same on every platform: draw i is a
counter-based function of (seed, i).)")
        .def(py::init<std::uint64_t>(), py::arg("seed"))
        .def("bits", &data::Generator::bits, "64 uniform bits, e.g. an initialiser's seed.")
        .def("below", &data::Generator::below, py::arg("bound"), "Uniform in [0, bound).")
        .def("unit", &data::Generator::unit, "Uniform in [0, 1), on the 2^53 grid.")
        .def("draws", &data::Generator::draws, "How many draws were made.")
        .def("__repr__", [](const data::Generator& generator) {
            return "<topos.data.Generator after " + std::to_string(generator.draws()) + " draws>";
        });
    data.def(
            "shuffled",
            [](std::size_t count, std::uint64_t seed) { return data::shuffled(count, seed); },
            py::arg("count"),
            py::arg("seed"),
            "0 .. count-1 in the order seed gives, the same on every platform.")
        .def(
            "shuffled",
            [](std::size_t count, data::Generator& generator) {
                return data::shuffled(count, generator);
            },
            py::arg("count"),
            py::arg("generator"),
            "0 .. count-1 in the order the generator's next draws give.");
}

void bind_batches(py::module_& data) {
    data.def(
        "batches",
        [](std::size_t count, std::size_t size, bool drop_last) {
            py::list ranges;
            for (const data::BatchRange& range :
                 data::batches(count, size, {.drop_last = drop_last})) {
                ranges.append(py::slice(static_cast<py::ssize_t>(range.start),
                                        static_cast<py::ssize_t>(range.start + range.count),
                                        1));
            }
            return ranges;
        },
        py::arg("count"),
        py::arg("size"),
        py::arg("drop_last") = false,
        "The batches of count examples, `size` each, as slices.");
}

void bind_read_csv(py::module_& data) {
    data.def(
        "read_csv",
        [](const std::string& path,
           const std::string& dtype,
           const std::string& delimiter,
           bool header) -> py::object {
            if (delimiter.size() != 1) {
                throw py::value_error("the delimiter is one character, got \"" + delimiter + "\"");
            }
            const data::CsvOptions options{.delimiter = delimiter[0], .header = header};
            if (dtype == "float64") {
                return to_numpy<double>(data::read_csv<double>(path, options));
            }
            if (dtype != "float32") {
                throw py::value_error("dtype is \"float32\" or \"float64\", got \"" + dtype + "\"");
            }
            return to_numpy<float>(data::read_csv<float>(path, options));
        },
        py::arg("path"),
        py::arg("dtype") = "float32",
        py::arg("delimiter") = ",",
        py::arg("header") = false,
        "A file's table of numbers as a [rows, columns] array (data::read_csv); raises "
        "CsvError.");
}

void bind_augmentation(py::module_& data) {
    py::class_<data::AffineJitter>(data, "AffineJitter", R"(
How far jitter_images distorts: each drawn uniform in [-largest, largest).)")
        .def(py::init([](double largest_sine, double largest_scale, double largest_shift) {
                 return data::AffineJitter{.largest_sine = largest_sine,
                                           .largest_scale = largest_scale,
                                           .largest_shift = largest_shift};
             }),
             py::arg("largest_sine") = 0.0,
             py::arg("largest_scale") = 0.0,
             py::arg("largest_shift") = 0.0)
        .def_readonly("largest_sine", &data::AffineJitter::largest_sine)
        .def_readonly("largest_scale", &data::AffineJitter::largest_scale)
        .def_readonly("largest_shift", &data::AffineJitter::largest_shift)
        .def("__repr__", [](const data::AffineJitter& jitter) {
            return "<topos.data.AffineJitter sine " + std::to_string(jitter.largest_sine) +
                   ", scale " + std::to_string(jitter.largest_scale) + ", shift " +
                   std::to_string(jitter.largest_shift) + ">";
        });
    data.def(
            "jitter_images",
            [](const py::handle& images,
               std::size_t height,
               std::size_t width,
               const data::AffineJitter& jitter,
               data::Generator& generator) {
                in_place(images, "jitter_images", [&](auto values) {
                    data::jitter_images(values, height, width, jitter, generator);
                });
            },
            py::arg("images"),
            py::arg("height"),
            py::arg("width"),
            py::arg("jitter"),
            py::arg("generator"),
            "Distorts each height x width image of `images` in place: a rotation, a scaling "
            "and a shift, resampled bilinearly (data::jitter_images, the same bits).")
        .def(
            "add_gaussian_noise",
            [](const py::handle& values, double stddev, data::Generator& generator) {
                in_place(values, "add_gaussian_noise", [&](auto span) {
                    data::add_gaussian_noise(span, stddev, generator);
                });
            },
            py::arg("values"),
            py::arg("stddev"),
            py::arg("generator"),
            "Adds Gaussian noise to every value in place, from one draw of `generator` "
            "(data::add_gaussian_noise, the same bits).");
}

void bind_progress(py::module_& data) {
    py::class_<PythonProgress>(data, "Progress", R"(
A training loop's progress line (data::Progress): rewritten in place on a
terminal, plain lines every `every`-th step otherwise.)")
        .def(py::init([](std::size_t steps,
                         std::size_t every,
                         const py::object& file,
                         const py::object& in_place) {
                 const py::object out =
                     file.is_none() ? py::module_::import("sys").attr("stdout") : file;
                 return std::make_unique<PythonProgress>(steps, every, out, in_place);
             }),
             py::arg("steps"),
             py::arg("every") = 0,
             py::arg("file") = py::none(),
             py::arg("in_place") = py::none())
        .def(
            "update",
            [](PythonProgress& self, std::size_t step, double loss, std::size_t examples) {
                self.progress().update(step, loss, examples);
            },
            py::arg("step"),
            py::arg("loss"),
            py::arg("examples") = 0,
            "After step `step` (0-based) has trained on `examples` examples.")
        .def(
            "finish",
            [](PythonProgress& self) { self.progress().finish(); },
            "Writes the loop's last line: \"1200 steps in 12.3 seconds\".")
        .def("seconds", [](PythonProgress& self) { return self.progress().seconds(); })
        .def(
            "losses",
            [](PythonProgress& self) { return self.progress().losses(); },
            "Every loss update was given, in order.")
        .def(
            "line",
            [](PythonProgress& self, std::size_t step, double loss, bool timings) {
                return self.progress().line(step, loss, timings);
            },
            py::arg("step"),
            py::arg("loss"),
            py::arg("timings") = true);
}

}  // namespace

void bind_data(py::module_& module) {
    py::module_ data = module.def_submodule(
        "data", "What feeds a training loop: tables, orders, batches, augmentation (topos::data).");
    bind_generator(data);
    bind_batches(data);
    bind_read_csv(data);
    bind_augmentation(data);
    bind_progress(data);
}

}  // namespace topos::python
