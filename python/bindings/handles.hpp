// What the bindings share: the Python-side tape (which knows when it was
// sealed), and conversions from Python's spellings (sequences of extents,
// negative axes, dicts of feeds, lists of values or symbols).
#pragma once

#include "arrays.hpp"
#include <topos/core/error.hpp>
#include <topos/graph/tape.hpp>
#include <topos/run/entry.hpp>
#include <topos/run/run.hpp>
#include <topos/show/html.hpp>

#include <optional>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <string>
#include <vector>

namespace topos::python {

namespace py = pybind11;

// A tape as Python holds it: open until into_network() seals it, after which
// every recording call raises TapeError instead of touching a moved-from tape.
template <ComputeElement T>
class OpenTape {
public:
    OpenTape() : tape_(Tape<T>()) {}

    explicit OpenTape(Tape<T> tape) : tape_(std::move(tape)) {}

    Tape<T>& open() {
        if (!tape_) {
            throw TapeError(
                "the tape was sealed into a network by into_network(); record more on "
                "network.reopen()");
        }
        return *tape_;
    }

    Network<T> seal() {
        Network<T> network = std::move(open()).into_network();
        tape_.reset();
        return network;
    }

    bool sealed() const { return !tape_; }

private:
    std::optional<Tape<T>> tape_;
};

// An axis as Python writes it (negative counts from the end) for a value of
// `rank` axes; `extra` admits the position one past the end (unsqueeze).
std::size_t axis_of(long long axis, std::size_t rank, bool extra = false);

Shape shape_of(const std::vector<long long>& extents);

std::vector<Shape> shapes_of(const std::vector<std::vector<long long>>& shapes);

// A shape as Python writes one: a tuple of extents.
py::tuple extents_of(const Shape& shape);

// "exact", "fast" (or capitalised), or a topos.Numerics; ValueError otherwise.
Numerics numerics_of(const py::handle& numerics);

// The Python name of a class bound once per element type: "Tape_float32".
template <ComputeElement T>
std::string class_name(const char* kind) {
    return std::string(kind) + "_" + dtype_name<T>();
}

// A Symbol, from a Value of either element type or a Symbol.
Symbol symbol_of(const py::handle& object);

std::vector<Symbol> symbols_of(const py::iterable& objects);

// A card as a notebook cell shows it: the card after topos's style sheet
// (whose rules all name topos's own classes, so the page around is untouched).
std::string notebook_html(const show::Html& card);

// {value or symbol: array} as feeds.
template <ComputeElement T>
std::vector<Feed<T>> feeds_of(const py::dict& feeds) {
    std::vector<Feed<T>> converted;
    converted.reserve(feeds.size());
    for (const auto& [key, value] : feeds) {
        converted.push_back({symbol_of(key), to_tensor<T>(value)});
    }
    return converted;
}

}  // namespace topos::python
