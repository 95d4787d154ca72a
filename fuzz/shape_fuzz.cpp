// Fuzzes the shape rules: records random graphs over random shapes (extents of
// 0, 1, small, and huge ones beside a 0, so that element counts stay
// allocatable while strides would not be) through the public spellings, then
// runs what is small enough through the interpreter and a plan.
//
// A finding is any of: a crash or sanitizer report; an exception that is not a
// topos::Error; a failed call that left nodes on the tape; a node whose shape
// breaks Shape's limits; a plan whose bits differ from the interpreter's.
#include <topos/topos.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <fuzzer/FuzzedDataProvider.h>
#include <vector>

namespace {

using topos::Shape;
using topos::Symbol;
using topos::Tape;
using topos::Tensor;
using topos::Value;

// Runs are attempted only on graphs whose every node is at most this large.
constexpr std::size_t largest_runnable = 1 << 12;
constexpr std::size_t most_values = 24;

[[noreturn]] void finding(const char* what) {
    std::fprintf(stderr, "shape_fuzz finding: %s\n", what);
    std::abort();
}

std::size_t extent(FuzzedDataProvider& in) {
    switch (in.ConsumeIntegralInRange<int>(0, 7)) {
        case 0:
            return 0;
        case 1:
            return 1;
        case 2:
            return std::size_t{1} << in.ConsumeIntegralInRange<int>(20, 63);
        case 3:
            return in.ConsumeIntegral<std::size_t>();
        default:
            return in.ConsumeIntegralInRange<std::size_t>(2, 5);
    }
}

std::size_t axis(FuzzedDataProvider& in) {
    return in.ConsumeIntegralInRange<std::size_t>(0, 4);
}

// A source's shape: allocatable, so huge extents only beside a 0.
Shape source_shape(FuzzedDataProvider& in) {
    const std::size_t rank = in.ConsumeIntegralInRange<std::size_t>(0, 4);
    std::vector<std::size_t> extents(rank);
    for (std::size_t& e : extents) {
        e = extent(in);
    }
    try {
        const Shape shape{std::span<const std::size_t>(extents)};
        if (shape.elements() <= largest_runnable) {
            return shape;
        }
    } catch (const topos::ShapeError&) {
    }
    return Shape{in.ConsumeIntegralInRange<std::size_t>(0, 4)};
}

const Value<double>& pick(FuzzedDataProvider& in, const std::vector<Value<double>>& values) {
    return values[in.ConsumeIntegralInRange<std::size_t>(0, values.size() - 1)];
}

// One recorded call on operands already on the tape.
Value<double> record(FuzzedDataProvider& in,
                     Tape<double>& tape,
                     const std::vector<Value<double>>& values) {
    const Value<double>& a = pick(in, values);
    const Value<double>& b = pick(in, values);
    const int call = in.ConsumeIntegralInRange<int>(0, 27);
    if (std::getenv("TOPOS_SHAPE_FUZZ_PRINT") != nullptr) {
        std::fprintf(stderr,
                     "call %d on %s and %s\n",
                     call,
                     a.shape().str().c_str(),
                     b.shape().str().c_str());
    }
    switch (call) {
        case 0:
            return tape.input(Tensor<double>::filled(source_shape(in), 0.5));
        case 1:
            return tape.parameter(Tensor<double>::filled(source_shape(in), -1.5));
        case 2:
            return a + b;
        case 3:
            return a * b;
        case 4:
            return a - 2.0;
        case 5:
            return a / b;
        case 6:
            return a.maximum(b);
        case 7:
            return in.ConsumeBool() ? a.less(b) : where(a, b, pick(in, values));
        case 8:
            return a.matmul(b);
        case 9:
            return a.sum();
        case 10:
            return a.sum(axis(in));
        case 11:
            return a.max(axis(in));
        case 12:
            return a.mean();
        case 13:
            return a.tanh();
        case 14:
            return a.broadcast_along(axis(in), extent(in));
        case 15:
            return a.broadcast_to(b.shape());
        case 16:
            return a.transpose();
        case 17:
            return a.unsqueeze(axis(in));
        case 18:
            return a.narrow(axis(in), extent(in), extent(in));
        case 19:
            return a.slice(axis(in), extent(in), extent(in), extent(in));
        case 20:
            return a.pad(axis(in), extent(in), extent(in), in.ConsumeBool() ? 0 : extent(in));
        case 21:
            return concat(std::vector{a, b}, axis(in));
        case 22:
            return a.unfold(axis(in), extent(in), extent(in), extent(in));
        case 23:
            return a.reshape(b.shape());
        case 24:
            return a.log_softmax(axis(in));
        case 25:
            return a.logsumexp(axis(in), in.ConsumeBool());
        case 26:
            return max_pool(a, extent(in), extent(in));
        default:
            return conv2d(a, b, pick(in, values), extent(in), extent(in), extent(in));
    }
}

void check_shape(const Shape& shape) {
    std::size_t reach = 1;
    for (const std::size_t e : shape.extents()) {
        if (e != 0 && reach > Shape::max_elements / e) {
            finding("a node's shape passes Shape::max_elements");
        }
        reach *= e == 0 ? 1 : e;
    }
}

bool runnable(const Tape<double>& tape) {
    for (const topos::Node& node : tape.nodes()) {
        if (node.shape().elements() > largest_runnable) {
            return false;
        }
    }
    return true;
}

// The interpreter and a plan of every value: the same bits.
void run_both(Tape<double>& tape, const std::vector<Value<double>>& values) {
    std::vector<Symbol> symbols(values.begin(), values.end());
    const topos::Network<double> network = std::move(tape).into_network();
    const auto parameters = network.parameters();
    try {
        const topos::Run<double> oracle = network.forward(parameters, {});
        const topos::Run<double> planned = network.entry(symbols).lower().forward(parameters, {});
        for (const Symbol symbol : symbols) {
            if (!planned.of(symbol).bit_equal(oracle.of(symbol))) {
                finding("a plan's bits differ from the interpreter's");
            }
        }
    } catch (const topos::Error& error) {
        // No index is recorded here, so nothing may refuse at run time.
        std::fprintf(stderr, "%s\n", error.what());
        finding("a graph that recorded did not run");
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    FuzzedDataProvider in(data, size);
    Tape<double> tape;
    std::vector<Value<double>> values{tape.input(Tensor<double>::filled(source_shape(in), 0.25))};
    while (in.remaining_bytes() > 0 && values.size() < most_values) {
        const std::size_t nodes = tape.nodes().size();
        try {
            values.push_back(record(in, tape, values));
            check_shape(values.back().shape());
        } catch (const topos::Error& error) {
            if (tape.nodes().size() != nodes) {
                std::fprintf(stderr, "%s\n%s\n", error.what(), tape.describe().c_str());
                finding("a failed call left nodes on the tape");
            }
        } catch (const std::exception& error) {
            std::fprintf(stderr, "%s\n", error.what());
            finding("a call threw something other than a topos::Error");
        }
    }
    if (runnable(tape)) {
        // TOPOS_SHAPE_FUZZ_PRINT=1 prints each graph before it runs (to replay a finding).
        if (std::getenv("TOPOS_SHAPE_FUZZ_PRINT") != nullptr) {
            std::fprintf(stderr, "%s\n", tape.describe().c_str());
        }
        run_both(tape, values);
    }
    return 0;
}
