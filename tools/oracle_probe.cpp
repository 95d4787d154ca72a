// The oracle probe: records graphs that together use every opcode, in float,
// double and bf16, on inputs from a small integer generator, runs forward and
// backward through the public API, and prints the bits of every node's value
// and adjoint, one element per line; then bf16's conversions, text and eager
// tensor arithmetic and statistics, one bf16 per line. tools/check builds it with several compilers
// and flags and requires byte-identical output: "Exactness" in docs/architecture.md. Every
// elementwise unary row of the op table is exercised by a walk over the table, so a new one is
// covered without an edit here.
#include "core/bit_cast.hpp"
#include "ops/op_info.hpp"
#include <topos/topos.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <initializer_list>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace {

using topos::Element;
using topos::ElementType;
using topos::Field;
using topos::Network;
using topos::Opcode;
using topos::Run;
using topos::Shape;
using topos::Tape;
using topos::Tensor;
using topos::Value;

// A 64-bit linear congruential generator (Knuth's MMIX constants). Every value
// it hands out is an integer scaled by a power of two with std::ldexp, so the
// inputs are the same bits whatever the compiler does with floating point.
class Generator {
public:
    explicit Generator(std::uint64_t seed) : state_(seed) {}

    std::uint32_t next() {
        state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<std::uint32_t>(state_ >> 32);
    }

    // An integer in [low, high).
    std::int64_t between(std::int64_t low, std::int64_t high) {
        const auto span = static_cast<std::uint64_t>(high - low);
        // Two statements: the operands of | are unsequenced.
        const std::uint64_t upper = next();
        const std::uint64_t wide = (upper << 32) | next();
        return low + static_cast<std::int64_t>(wide % span);
    }

    // Uniform in [-2^exponent, 2^exponent) with 21 significant bits.
    template <Element T>
    T uniform(int exponent) {
        if constexpr (std::same_as<T, topos::bf16>) {
            return topos::bf16(uniform<float>(exponent));
        } else {
            return std::ldexp(static_cast<T>(between(-(1 << 20), 1 << 20)), exponent - 20);
        }
    }

    // Uniform in [2^exponent, 2^(exponent + 2)).
    template <Element T>
    T positive(int exponent) {
        if constexpr (std::same_as<T, topos::bf16>) {
            return topos::bf16(positive<float>(exponent));
        } else {
            return std::ldexp(static_cast<T>(between(1 << 20, 1 << 22)), exponent - 20);
        }
    }

    // Log-uniform magnitude in [2^low, 2^(high + 1)), random sign unless `positive_only`.
    template <Element T>
    T log_uniform(int low, int high, bool positive_only) {
        if constexpr (std::same_as<T, topos::bf16>) {
            return topos::bf16(log_uniform<float>(low, high, positive_only));
        } else {
            const T mantissa = static_cast<T>(between(1 << 20, 1 << 21));
            const T magnitude = std::ldexp(mantissa, static_cast<int>(between(low, high + 1)) - 20);
            return positive_only || (next() & 1U) == 0 ? magnitude : -magnitude;
        }
    }

private:
    std::uint64_t state_;
};

// |value|, its sign bit cleared.
template <Element T>
T magnitude(T value) {
    if constexpr (std::same_as<T, topos::bf16>) {
        return topos::bf16::from_bits(static_cast<std::uint16_t>(value.bits() & 0x7fffU));
    } else {
        return std::abs(value);
    }
}

template <Element T>
Tensor<T> uniform_tensor(Generator& generator, Shape shape, int exponent) {
    std::vector<T> values(shape.elements());
    for (T& value : values) {
        value = generator.uniform<T>(exponent);
    }
    return Tensor<T>(shape, values);
}

template <Element T>
Tensor<T> positive_tensor(Generator& generator, Shape shape, int exponent) {
    std::vector<T> values(shape.elements());
    for (T& value : values) {
        value = generator.positive<T>(exponent);
    }
    return Tensor<T>(shape, values);
}

template <Element T>
const char* type_name() {
    return sizeof(T) == 2 ? "bf16" : (sizeof(T) == 4 ? "f32" : "f64");
}

// Prints the bits of a network's values and adjoints and remembers which opcodes
// it has seen, so the probe fails when a new opcode goes unexercised.
class Printer {
public:
    template <Element T>
    void print(const std::string& graph,
               const Network<T>& network,
               const Run<T>& run,
               const Field<T>& field) {
        for (const topos::Node& node : network.nodes()) {
            seen_[static_cast<std::size_t>(node.opcode())] = true;
            print_tensor(graph, node, 'v', run.of(node.symbol()));
            print_tensor(graph, node, 'g', field.of(node.symbol()));
        }
    }

    // The bits of a plan run's declared values.
    template <Element T>
    void print_plan(const std::string& graph,
                    const Network<T>& network,
                    const topos::Plan<T>& plan,
                    const Run<T>& run) {
        for (const topos::Symbol& declared : plan.entry().declared()) {
            print_tensor(graph, network.nodes()[declared.index()], 'p', run.of(declared));
        }
    }

    // Reports every opcode no graph used; true when there is none.
    bool all_seen() const {
        bool all = true;
        for (std::size_t i = 0; i < topos::opcode_count; ++i) {
            if (!seen_[i]) {
                const std::string name(topos::name_of(static_cast<Opcode>(i)));
                std::fprintf(
                    stderr, "oracle probe: no graph uses opcode %s; add it\n", name.c_str());
                all = false;
            }
        }
        return all;
    }

private:
    template <Element T>
    static void print_tensor(const std::string& graph,
                             const topos::Node& node,
                             char kind,
                             const Tensor<T>& tensor) {
        const std::string name(topos::name_of(node.opcode()));
        const auto data = tensor.data();
        for (std::size_t i = 0; i < data.size(); ++i) {
            std::printf("%s.%s n%u %s %c[%zu] %s\n",
                        type_name<T>(),
                        graph.c_str(),
                        static_cast<unsigned>(node.index()),
                        name.c_str(),
                        kind,
                        i,
                        hex(data[i]).c_str());
        }
    }

    static std::string hex(topos::bf16 value) {
        std::array<char, 8> text{};
        std::snprintf(text.data(), text.size(), "%04x", static_cast<unsigned>(value.bits()));
        return text.data();
    }

    static std::string hex(float value) {
        std::array<char, 16> text{};
        std::snprintf(
            text.data(), text.size(), "%08x", topos::detail::bit_cast<std::uint32_t>(value));
        return text.data();
    }

    static std::string hex(double value) {
        std::array<char, 24> text{};
        std::snprintf(
            text.data(),
            text.size(),
            "%016llx",
            static_cast<unsigned long long>(topos::detail::bit_cast<std::uint64_t>(value)));
        return text.data();
    }

    std::array<bool, topos::opcode_count> seen_{};
};

// Seals `tape`, runs forward with the recorded payloads and backward from `loss`.
template <Element T>
void run_and_print(Printer& printer, const std::string& graph, Tape<T>&& tape, topos::Symbol loss) {
    const Network<T> network = std::move(tape).into_network();
    const Run<T> run = network.forward(network.parameters());
    const Field<T> field = run.backward(loss);
    printer.print(graph, network, run, field);
}

// Sums every term to rank 0 and adds the sums up, in order. The graphs below
// record one operation per statement: the operands of an overloaded + are
// unsequenced, so a compiler could otherwise record nodes in another order.
template <Element T>
Value<T> total_of(const std::vector<Value<T>>& terms) {
    Value<T> total = terms.front().sum();
    for (std::size_t i = 1; i < terms.size(); ++i) {
        const Value<T> term = terms[i].sum();
        total = total + term;
    }
    return total;
}

// One node of `opcode` over `operands`: the funnel every recording goes through.
template <Element T>
Value<T> record(Opcode opcode,
                std::initializer_list<Value<T>> operands,
                topos::Attributes attributes = {}) {
    return operands.begin()->apply(opcode, operands, std::move(attributes));
}

template <Element T>
Value<T> compare(const Value<T>& a, const Value<T>& b, topos::Comparison direction) {
    return record<T>(Opcode::Compare, {a, b}, topos::CompareAttributes{direction});
}

// Every elementwise opcode, the scalar operators and numpy-style broadcasting,
// with ties between x and y (Maximum, Minimum, Compare); the gradients are also
// recorded as nodes (differentiate). x is anywhere in [-4, 4), y in [0.25, 1).
template <Element T>
void elementwise(Printer& printer, Generator& generator) {
    using topos::Comparison;
    const Shape shape{5, 7};
    const Tensor<T> y_payload = positive_tensor<T>(generator, shape, -2);
    std::vector<T> x_values(shape.elements());
    for (std::size_t i = 0; i < x_values.size(); ++i) {
        x_values[i] = i % 6 == 0 ? y_payload.data()[i] : generator.uniform<T>(2);
    }
    const Tensor<T> row_payload = uniform_tensor<T>(generator, Shape{7}, 0);
    Tape<T> tape;
    const Value<T> x = tape.input(Tensor<T>(shape, x_values));
    const Value<T> y = tape.parameter(y_payload);
    const Value<T> row = tape.parameter(row_payload);
    // Factors are recorded one per statement (see total_of), then multiplied in pairs.
    std::vector<Value<T>> factors;
    const auto factor = [&](const Value<T>& value) { factors.push_back(value); };
    factor(x + y);
    factor(x - y);
    factor(x / y);
    factor(maximum(x, y));
    factor(record<T>(Opcode::Minimum, {x, y}));
    factor(record<T>(Opcode::Pow, {y, x}));
    factor(compare(x, y, Comparison::GreaterEqual));
    factor(-x);
    factor(compare(x, y, Comparison::Equal));
    factor(compare(x, y, Comparison::NotEqual));
    factor(compare(x, y, Comparison::Less));
    factor(compare(x, y, Comparison::LessEqual));
    const Value<T> greater = compare(x, y, Comparison::Greater);
    factor(record<T>(Opcode::Select, {greater, x, y}));
    factor(y);
    factor(record<T>(Opcode::Abs, {x}));
    factor(record<T>(Opcode::Sign, {x}));
    factor(record<T>(Opcode::Square, {x}));
    factor(exp(x));
    factor(record<T>(Opcode::Expm1, {x}));
    factor(tanh(x));
    factor(log(y));
    factor(sigmoid(x));
    factor(record<T>(Opcode::Log1p, {y}));
    factor(record<T>(Opcode::Sqrt, {y}));
    factor(record<T>(Opcode::Rsqrt, {y}));
    factor(record<T>(Opcode::Sin, {x}));
    factor(record<T>(Opcode::Cos, {x}));
    factor(record<T>(Opcode::Erf, {x}));
    factor(record<T>(Opcode::Gelu, {x}));
    factor(record<T>(Opcode::Softplus, {x}));
    factor(relu(x));
    // Every elementwise unary row, on [1, 4), where each is defined.
    const Value<T> spread = y * T{4};
    for (std::size_t i = 0; i < topos::opcode_count; ++i) {
        const auto opcode = static_cast<Opcode>(i);
        const topos::detail::OpInfo& row = topos::detail::op_info(opcode);
        if (row.kind != topos::detail::OpKind::Elementwise || row.arity != 1) {
            continue;
        }
        if (opcode == Opcode::Convert) {
            for (const auto to : {ElementType::F32, ElementType::F64, ElementType::BF16}) {
                factor(record<T>(opcode, {spread}, topos::ConvertAttributes{to}));
            }
        } else {
            factor(record<T>(opcode, {spread}));
        }
    }
    factor(row);
    factor(T{1} - y);
    factor(y / T{3});
    std::vector<Value<T>> terms;
    for (std::size_t i = 0; i + 1 < factors.size(); i += 2) {
        terms.push_back(factors[i] * factors[i + 1]);
    }
    terms.push_back(x * T{0.5});
    const Value<T> loss = total_of(terms);
    (void)tape.differentiate(loss, {x, y, row});
    run_and_print(printer, "elementwise", std::move(tape), loss.symbol());
}

// MatMul with a long inner extent; Sum over everything and along each axis,
// with more terms than the sum's 16 lanes; Max (with ties), LogSumExp and
// LogSoftmax along each axis.
template <Element T>
void contraction(Printer& printer, Generator& generator) {
    const Tensor<T> a_payload = uniform_tensor<T>(generator, Shape{9, 33}, 0);
    const Tensor<T> b_payload = uniform_tensor<T>(generator, Shape{33, 13}, 0);
    const Tensor<T> v_payload = uniform_tensor<T>(generator, Shape{1000}, 1);
    std::vector<T> tied(6 * 20);
    for (std::size_t i = 0; i < tied.size(); ++i) {
        tied[i] = static_cast<T>(generator.between(-3, 4));  // many ties
    }
    Tape<T> tape;
    const Value<T> a = tape.parameter(a_payload);
    const Value<T> b = tape.parameter(b_payload);
    const Value<T> v = tape.parameter(v_payload);
    const Value<T> t = tape.parameter(Tensor<T>(Shape{6, 20}, tied));
    const Value<T> c = matmul(a, b);
    const Value<T> grid = v.reshape(Shape{40, 25});
    const auto along = [](std::size_t axis) { return topos::AxisAttributes{axis}; };
    std::vector<Value<T>> terms;
    terms.push_back(c * c);
    const Value<T> columns = c.sum(0);
    terms.push_back(columns * columns);
    terms.push_back(tanh(c.sum(1)));
    const Value<T> all = c.sum();
    terms.push_back(all * all);
    terms.push_back(v);
    terms.push_back(sigmoid(grid.sum(0)));
    const Value<T> grid_rows = grid.sum(1);
    terms.push_back(grid_rows * grid_rows);
    for (std::size_t axis = 0; axis < 2; ++axis) {
        const Value<T> largest = record<T>(Opcode::Max, {t}, along(axis));
        terms.push_back(largest * largest);
        const Value<T> tied_lse = record<T>(Opcode::LogSumExp, {t}, along(axis));
        terms.push_back(tied_lse * tied_lse);
        const Value<T> grid_lse = record<T>(Opcode::LogSumExp, {grid}, along(axis));
        terms.push_back(grid_lse * grid_lse);
        const Value<T> softmax = record<T>(Opcode::LogSoftmax, {c}, along(axis));
        terms.push_back(softmax * c);
    }
    const Value<T> loss = total_of(terms);
    run_and_print(printer, "contraction", std::move(tape), loss.symbol());
}

// Reshape, Permute, BroadcastAlong, Unfold (with step and dilation), Fold,
// Narrow, Pad (with interior zeros), Slice and Concat, weighted by constants so
// that adjoint elements differ.
template <Element T>
void layout(Printer& printer, Generator& generator) {
    Tape<T> tape;
    const auto weighted = [&](const Value<T>& value) {
        const Value<T> weights = tape.leaf(uniform_tensor<T>(generator, value.shape(), 0));
        return value * weights;
    };
    const Value<T> x = tape.parameter(uniform_tensor<T>(generator, Shape{4, 6}, 1));
    const Value<T> z = tape.parameter(uniform_tensor<T>(generator, Shape{4, 3}, 1));
    const Value<T> permuted = x.reshape(Shape{2, 3, 4}).permute({2, 0, 1});
    const Value<T> broadcast = permuted.broadcast_along(1, 3);
    const Value<T> windows = x.unfold(1, 3, 2);
    const Value<T> dilated = x.unfold(1, 2, 1, 2);
    const Value<T> rows = x.unfold(0, 2, 1);
    const Value<T> weighted_windows = weighted(windows);
    const Value<T> folded =
        record<T>(Opcode::Fold, {weighted_windows}, topos::FoldAttributes{1, 3, 2, 1, 6});
    const Value<T> padded = x.narrow(1, 1, 4).pad(0, 1, 2);
    const Value<T> spread =
        record<T>(Opcode::Pad, {z}, topos::PadAttributes{.axis = 1, .before = 1, .interior = 2});
    const Value<T> strided = record<T>(
        Opcode::Slice, {x}, topos::SliceAttributes{.axis = 1, .start = 1, .length = 3, .step = 2});
    const Value<T> beside = record<T>(Opcode::Concat, {x, z}, topos::AxisAttributes{1});
    const Value<T> below = record<T>(Opcode::Concat, {x, strided}, topos::AxisAttributes{1});
    const Value<T> stacked = record<T>(Opcode::Concat, {x, x}, topos::AxisAttributes{0});
    std::vector<Value<T>> terms;
    terms.push_back(weighted(broadcast));
    terms.push_back(windows * windows);
    terms.push_back(exp(weighted(dilated)));
    terms.push_back(weighted(rows));
    terms.push_back(folded * folded);
    terms.push_back(weighted(padded));
    terms.push_back(weighted(spread));
    terms.push_back(strided * strided);
    terms.push_back(weighted(beside));
    terms.push_back(weighted(below));
    terms.push_back(weighted(stacked));
    const Value<T> loss = total_of(terms);
    run_and_print(printer, "layout", std::move(tape), loss.symbol());
}

// Gather, ScatterAdd and OneHot, with repeated indices, so that rows collide.
template <Element T>
void indexing(Printer& printer, Generator& generator) {
    const Tensor<T> indices(Shape{2, 4}, {T{3}, T{0}, T{5}, T{3}, T{1}, T{3}, T{0}, T{2}});
    Tape<T> tape;
    const Value<T> table = tape.parameter(uniform_tensor<T>(generator, Shape{6, 3}, 1));
    const Value<T> updates = tape.parameter(uniform_tensor<T>(generator, Shape{2, 4, 3}, 1));
    const Value<T> picks = tape.indices(indices);
    const Value<T> gathered = record<T>(Opcode::Gather, {table, picks});
    const Value<T> scattered =
        record<T>(Opcode::ScatterAdd, {picks, updates}, topos::RowsAttributes{6});
    const Value<T> one_hot = record<T>(Opcode::OneHot, {picks}, topos::RowsAttributes{6});
    const Value<T> chosen = matmul(one_hot.reshape(Shape{8, 6}), table);
    std::vector<Value<T>> terms;
    terms.push_back(gathered * updates);
    terms.push_back(scattered * table);
    terms.push_back(scattered * scattered);
    terms.push_back(chosen * chosen);
    const Value<T> loss = total_of(terms);
    run_and_print(printer, "indexing", std::move(tape), loss.symbol());
}

// Where a function is swept: all reals, finite reals only (where an infinite
// argument gives NaN), non-negative reals, or [-1, inf) for Log1p.
enum class Domain {
    Real,
    Finite,
    Positive,
    AboveMinusOne,
};

struct Sweep {
    Opcode function;
    Domain domain;
    int wide;  // the uniform part spans [-2^wide, 2^wide)
};

// Sweep inputs for one function: the specials, a wide uniform range, log-uniform
// magnitudes over the whole exponent range, and values near 0.
template <Element T>
Tensor<T> sweep_inputs(Generator& generator, const Sweep& sweep) {
    using limits = std::numeric_limits<T>;
    const bool positive = sweep.domain == Domain::Positive || sweep.domain == Domain::AboveMinusOne;
    std::vector<T> values{T{0}, -T{0}, limits::denorm_min(), limits::min(), limits::max(), T{1}};
    if (sweep.domain == Domain::Real || sweep.domain == Domain::Finite) {
        values.insert(values.end(), {-limits::denorm_min(), -limits::max(), T{-1}});
    }
    if (sweep.domain != Domain::Finite && sweep.function != Opcode::Log) {
        values.push_back(limits::infinity());
    }
    if (sweep.domain == Domain::Real) {
        values.push_back(-limits::infinity());
    }
    const int lowest = limits::min_exponent - limits::digits;
    for (int i = 0; i < 2048; ++i) {
        const T value = generator.uniform<T>(sweep.wide);
        values.push_back(positive ? magnitude(value) : value);
    }
    for (int i = 0; i < 1024; ++i) {
        values.push_back(generator.log_uniform<T>(lowest, limits::max_exponent - 1, positive));
    }
    for (int i = 0; i < 1024; ++i) {
        // [-1, 1): near 0 and, for Log1p, down to -1 itself.
        const T value = generator.uniform<T>(0);
        values.push_back(sweep.domain == Domain::Positive ? magnitude(value) : value);
    }
    const Shape shape{values.size()};
    return Tensor<T>(shape, values);
}

template <Element T>
void sweep(Printer& printer, Generator& generator, const Sweep& sweep) {
    Tape<T> tape;
    const Value<T> x = tape.input(sweep_inputs<T>(generator, sweep));
    const Value<T> y = record<T>(sweep.function, {x});
    const Value<T> loss = y.sum();
    const std::string name(topos::name_of(sweep.function));
    run_and_print(printer, "sweep." + name, std::move(tape), loss.symbol());
}

// Pow over positive bases (the exponent's derivative needs log(base)) from
// 2^-64 to 2^64 and exponents in [-16, 16), then bases near 1.
template <Element T>
void sweep_pow(Printer& printer, Generator& generator) {
    std::vector<T> bases;
    std::vector<T> exponents;
    for (int i = 0; i < 3072; ++i) {
        bases.push_back(i < 2048 ? generator.log_uniform<T>(-64, 63, true)
                                 : generator.positive<T>(-1));
        exponents.push_back(i % 4 == 0 ? static_cast<T>(generator.between(-8, 9))
                                       : generator.uniform<T>(4));
    }
    const Shape shape{bases.size()};
    Tape<T> tape;
    const Value<T> base = tape.input(Tensor<T>(shape, bases));
    const Value<T> exponent = tape.input(Tensor<T>(shape, exponents));
    const Value<T> loss = record<T>(Opcode::Pow, {base, exponent}).sum();
    run_and_print(printer, "sweep.Pow", std::move(tape), loss.symbol());
}

// A convolutional net whose Exact training plan elects every kind of pattern:
// window products (forward and filter gradient), window reductions, batch
// norm and Map regions; the probe prints the plan's declared values.
template <Element T>
void fused_plans(Printer& printer, Generator& generator) {
    Tape<T> tape;
    auto image = tape.input(uniform_tensor<T>(generator, Shape{2, 3, 12, 12}, 0));
    auto filters = tape.parameter(uniform_tensor<T>(generator, Shape{4, 3, 3, 3}, -1));
    auto bias = tape.parameter(uniform_tensor<T>(generator, Shape{4}, -2));
    auto gamma = tape.parameter(positive_tensor<T>(generator, Shape{4}, -1));
    auto beta = tape.parameter(uniform_tensor<T>(generator, Shape{4}, -1));
    auto convolved = topos::conv2d(image, filters, bias, 2, 1, 1);
    const topos::BatchNormTraining<T> normalised =
        topos::batch_norm_training(convolved, gamma, beta);
    auto activated = normalised.output.tanh();
    auto pooled = topos::max_pool(activated, 2, 1);
    auto averaged = topos::average_pool(activated, 3, 2);
    auto pooled_loss = pooled.square().sum();
    auto averaged_loss = averaged.sum();
    auto loss = pooled_loss + averaged_loss;
    const auto adjoints = tape.differentiate(loss, {filters, bias, gamma, beta});
    const Network<T> network = std::move(tape).into_network();
    std::vector<topos::Symbol> declared = adjoints.roots();
    declared.push_back(normalised.mean);
    declared.push_back(normalised.variance);
    const auto plan = network.entry(declared).numerics(topos::Numerics::Exact).lower();
    printer.print_plan("fused", network, plan, plan.forward(network.parameters()));
}

template <Element T>
void probe(Printer& printer) {
    // +-128 for float, +-1024 for double: past overflow and underflow of exp.
    const int wide = std::bit_width(unsigned(std::numeric_limits<T>::max_exponent)) - 1;
    const Sweep sweeps[] = {
        {Opcode::Exp, Domain::Real, wide},
        {Opcode::Log, Domain::Positive, wide},
        {Opcode::Tanh, Domain::Real, 5},
        {Opcode::Sigmoid, Domain::Real, wide},
        {Opcode::Expm1, Domain::Real, wide},
        {Opcode::Log1p, Domain::AboveMinusOne, wide},
        {Opcode::Sqrt, Domain::Positive, wide},
        {Opcode::Rsqrt, Domain::Positive, wide},
        {Opcode::Sin, Domain::Finite, 7},
        {Opcode::Cos, Domain::Finite, 7},
        {Opcode::Erf, Domain::Real, 3},
        {Opcode::Gelu, Domain::Finite, 5},
        {Opcode::Softplus, Domain::Real, wide},
    };
    Generator generator(sizeof(T));
    elementwise<T>(printer, generator);
    contraction<T>(printer, generator);
    layout<T>(printer, generator);
    indexing<T>(printer, generator);
    for (const Sweep& each : sweeps) {
        sweep<T>(printer, generator, each);
    }
    sweep_pow<T>(printer, generator);
    fused_plans<T>(printer, generator);
}

void print_bf16(const char* what, const Tensor<topos::bf16>& tensor) {
    const auto data = tensor.data();
    for (std::size_t i = 0; i < data.size(); ++i) {
        std::printf("bf16.%s[%zu] %04x\n", what, i, static_cast<unsigned>(data[i].bits()));
    }
}

// Floats and doubles at bf16's rounding boundaries (ties, just past them,
// overflow, subnormals, NaN), converted; their text; and a table's
// arithmetic and statistics, each computed in float and rounded once.
void bf16_tensors(Generator& generator) {
    std::vector<double> doubles;
    for (int i = 0; i < 64; ++i) {
        const double mantissa = static_cast<double>(generator.between(1 << 20, 1 << 21));
        const int exponent = static_cast<int>(generator.between(-150, 130));
        doubles.push_back(std::ldexp(mantissa, exponent - 20));
        doubles.push_back(-std::ldexp(1.0 + std::ldexp(1.0, -8), exponent));  // a tie
        doubles.push_back(std::ldexp(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40), exponent));
    }
    doubles.push_back(std::numeric_limits<double>::infinity());
    doubles.push_back(std::numeric_limits<double>::quiet_NaN());
    const Tensor<double> wide(Shape{doubles.size()}, doubles);
    print_bf16("from_double", wide.convert<topos::bf16>());
    print_bf16("from_float", wide.convert<float>().convert<topos::bf16>());
    const Tensor<topos::bf16> converted = wide.convert<topos::bf16>();
    for (std::size_t i = 0; i < converted.elements(); ++i) {
        std::printf("bf16.text[%zu] %s\n", i, topos::to_string(converted.data()[i]).c_str());
    }
    const auto table = uniform_tensor<float>(generator, Shape{6, 5}, 3).convert<topos::bf16>();
    const auto row = uniform_tensor<float>(generator, Shape{5}, 2).convert<topos::bf16>();
    print_bf16("add", table + row);
    print_bf16("sub", table - row);
    print_bf16("mul", table * row);
    print_bf16("div", table / row);
    print_bf16("less", table.less(row));
    print_bf16("sum", Tensor<topos::bf16>(table.sum()));
    print_bf16("sum0", table.sum(0));
    print_bf16("mean1", table.mean(1, true));
    print_bf16("var0", table.var(0));
    print_bf16("std01", table.std({0, 1}));
    print_bf16("max1", table.max(1));
    print_bf16("argmax1", table.argmax(1));
    print_bf16("standardised", (table - table.mean(0, true)) / table.std(0, true));
}

}  // namespace

int main() {
    try {
        Printer printer;
        probe<float>(printer);
        probe<double>(printer);
        probe<topos::bf16>(printer);
        Generator generator(2);
        bf16_tensors(generator);
        return printer.all_seen() ? 0 : 1;
    } catch (const std::exception& error) {
        std::fprintf(stderr, "oracle probe: %s\n", error.what());
        return 1;
    }
}
