#include "support/random_graphs.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace topos::test {

std::uint64_t Rng::next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

double Rng::uniform() {
    return static_cast<double>(next() >> 11) * 0x1.0p-53;
}

double Rng::away_from_zero(double low, double high) {
    const double magnitude = uniform(low, high);
    return chance(0.5) ? magnitude : -magnitude;
}

std::size_t Rng::between(std::size_t low, std::size_t high) {
    return low + static_cast<std::size_t>(next() % (high - low + 1));
}

Shape Rng::shape(std::size_t min_rank, std::size_t max_rank, std::size_t max_extent) {
    std::vector<std::size_t> extents(between(min_rank, max_rank));
    for (std::size_t& extent : extents) {
        extent = chance(1.0 / 3.0) ? 1 : between(1, max_extent);
    }
    return Shape(std::span<const std::size_t>(extents));
}

namespace {

constexpr double squash_above = 8.0;

Shape shape_of(const std::vector<std::size_t>& extents) {
    return Shape(std::span<const std::size_t>(extents));
}

std::vector<std::size_t> extents_of(const Shape& shape) {
    return {shape.extents().begin(), shape.extents().end()};
}

// The numpy-style common shape, or false when the shapes do not broadcast.
bool broadcast_shape(const Shape& a, const Shape& b, Shape& common) {
    const std::size_t rank = std::max(a.rank(), b.rank());
    std::vector<std::size_t> extents(rank);
    for (std::size_t axis = 0; axis < rank; ++axis) {
        const std::size_t from_end = rank - axis;
        const std::size_t x = from_end <= a.rank() ? a[a.rank() - from_end] : 1;
        const std::size_t y = from_end <= b.rank() ? b[b.rank() - from_end] : 1;
        if (x != y && x != 1 && y != 1) {
            return false;
        }
        extents[axis] = std::max(x, y);
    }
    common = shape_of(extents);
    return true;
}

template <Element T>
class Generator {
public:
    Generator(Tape<T>& tape, std::uint64_t seed, const RandomGraphOptions& options)
        : tape_(tape), rng_(seed), options_(options) {}

    RecordedGraph<T> record() {
        for (std::size_t i = 0; i < options_.parameters; ++i) {
            fresh_source(
                rng_.shape(0, std::min<std::size_t>(3, options_.max_rank), options_.max_extent),
                true);
        }
        for (std::size_t i = 0; i < options_.inputs; ++i) {
            fresh_source(
                rng_.shape(0, std::min<std::size_t>(3, options_.max_rank), options_.max_extent),
                false);
        }
        for (std::size_t done = 0; done < options_.operations;) {
            done += one_operation() ? 1 : 0;
        }
        return finish();
    }

private:
    struct Entry {
        Value<T> value;
        double bound;  // an upper bound of |element| for sources in [-1, 1]
        bool read = false;
        bool computed = true;
    };

    bool fits(const Shape& shape) const {
        return shape.rank() <= options_.max_rank && shape.elements() <= options_.max_elements;
    }

    std::size_t fresh_source(const Shape& shape, bool parameter) {
        Tensor<T> payload = rng_.tensor<T>(shape, -1.0, 1.0);
        Value<T> value = parameter ? tape_.parameter(payload) : tape_.input(payload);
        (parameter ? parameters_ : inputs_).push_back(value);
        pool_.push_back({value, 1.0, false, false});
        return pool_.size() - 1;
    }

    std::size_t add(Value<T> value, double bound) {
        pool_.push_back({value, bound, false, true});
        values_.push_back(value);
        return pool_.size() - 1;
    }

    // Recent values more often, so chains grow deep; any value sometimes, so
    // values gain several readers.
    std::size_t pick() {
        if (rng_.chance(0.5)) {
            const std::size_t recent = std::min<std::size_t>(3, pool_.size());
            return pool_.size() - 1 - rng_.between(0, recent - 1);
        }
        return rng_.between(0, pool_.size() - 1);
    }

    // The value at `index`, squashed by tanh first when its bound is large.
    Value<T> use(std::size_t index) {
        pool_[index].read = true;
        if (pool_[index].bound <= squash_above) {
            return pool_[index].value;
        }
        const std::size_t squashed = add(pool_[index].value.tanh(), 1.0);
        pool_[squashed].read = true;
        return pool_[squashed].value;
    }

    double bound(std::size_t index) const { return std::min(pool_[index].bound, squash_above); }

    // A copy: recording may reallocate the tape's nodes, which Value::shape() refers into.
    Shape shape(std::size_t index) const { return pool_[index].value.shape(); }

    // A partner for an elementwise operation with `index`: an existing value whose
    // shape broadcasts with it, or a fresh source (sometimes with broadcast axes).
    std::size_t partner(std::size_t index) {
        std::vector<std::size_t> candidates;
        Shape common;
        for (std::size_t i = 0; i < pool_.size(); ++i) {
            if (broadcast_shape(shape(index), shape(i), common) && fits(common)) {
                candidates.push_back(i);
            }
        }
        if (!candidates.empty() && rng_.chance(0.7)) {
            return candidates[rng_.between(0, candidates.size() - 1)];
        }
        std::vector<std::size_t> extents = extents_of(shape(index));
        if (rng_.chance(0.4)) {  // a shape that broadcasts: drop leading axes, set some to 1
            extents.erase(
                extents.begin(),
                extents.begin() + static_cast<std::ptrdiff_t>(rng_.between(0, extents.size())));
            for (std::size_t& extent : extents) {
                extent = rng_.chance(0.3) ? 1 : extent;
            }
        }
        return fresh_source(shape_of(extents), rng_.chance(0.5));
    }

    bool unary() {
        const std::size_t a = pick();
        const Value<T> x = use(a);
        switch (rng_.between(0, 4)) {
            case 0:
                add(-x, bound(a));
                return true;
            case 1:
                add(x.tanh(), 1.0);
                return true;
            case 2:
                add(x.sigmoid(), 1.0);
                return true;
            case 3:  // exp sees tanh(x), in [-1, 1]
                add(x.tanh().exp(), 2.72);
                return true;
            default:  // log sees sigmoid(x) + 0.5, in (0.5, 1.5)
                add((x.sigmoid() + T(0.5)).log(), 0.7);
                return true;
        }
    }

    bool binary() {
        const std::size_t a = pick();
        const std::size_t b = partner(a);
        Shape common;
        if (!broadcast_shape(shape(a), shape(b), common) || !fits(common)) {
            return false;
        }
        const Value<T> x = use(a);
        const Value<T> y = use(b);
        const double ba = bound(a);
        const double bb = bound(b);
        switch (rng_.between(0, 4)) {
            case 0:
                add(x + y, ba + bb);
                return true;
            case 1:
                add(x - y, ba + bb);
                return true;
            case 2:
                add(x * y, ba * bb);
                return true;
            case 3:  // the denominator sigmoid(y) + 0.5 is in (0.5, 1.5)
                add(x / (y.sigmoid() + T(0.5)), 2 * ba);
                return true;
            default: {
                // x - other = -(shift + 0.01 tanh(y)) with |shift| >= 0.3: no ties
                const Value<T> shift =
                    tape_.leaf(rng_.tensor_away_from_zero<T>(x.shape(), 0.3, 1.0));
                // One statement per node: operands of one operator are recorded in
                // an unspecified order, which would make graphs compiler-dependent.
                const Value<T> nudge = y.tanh() * T(0.01);
                const Value<T> other = x + shift + nudge;
                add(x.maximum(other), ba + 1.01);
                return true;
            }
        }
    }

    bool matmul() {
        const std::size_t a = pick();
        const Shape s = shape(a);
        std::size_t rows = 1;
        std::size_t depth = 1;
        if (s.rank() == 1) {
            (rng_.chance(0.5) ? depth : rows) = s[0];
        } else if (s.rank() >= 2) {
            depth = s[s.rank() - 1];
            rows = s.elements() / depth;
        }
        std::vector<std::size_t> candidates;
        for (std::size_t i = 0; i < pool_.size(); ++i) {
            if (shape(i).rank() == 2 && shape(i)[0] == depth && fits(Shape{rows, shape(i)[1]})) {
                candidates.push_back(i);
            }
        }
        const std::size_t widest = std::min<std::size_t>(
            3, options_.max_elements / std::max(depth, rows));  // at least 1: both fit already
        const std::size_t b = !candidates.empty() && rng_.chance(0.6)
                                  ? candidates[rng_.between(0, candidates.size() - 1)]
                                  : fresh_source(Shape{depth, rng_.between(1, widest)}, true);
        const Shape result{rows, shape(b)[1]};
        if (!fits(result)) {
            return false;
        }
        Value<T> x = use(a);
        if (!(x.shape() == Shape{rows, depth})) {
            x = x.reshape(Shape{rows, depth});
        }
        add(x.matmul(use(b)), static_cast<double>(depth) * bound(a) * bound(b));
        return true;
    }

    bool sum() {
        const std::size_t a = pick();
        const Shape s = shape(a);
        if (s.rank() == 0 || rng_.chance(0.4)) {
            add(use(a).sum(), static_cast<double>(s.elements()) * bound(a));
            return true;
        }
        const std::size_t axis = rng_.between(0, s.rank() - 1);
        add(use(a).sum(axis), static_cast<double>(s[axis]) * bound(a));
        return true;
    }

    bool reshape() {
        const std::size_t a = pick();
        std::size_t n = shape(a).elements();
        std::vector<std::size_t> factors;
        for (std::size_t p = 2; n > 1;) {
            if (n % p == 0) {
                factors.push_back(p);
                n /= p;
            } else {
                ++p;
            }
        }
        std::vector<std::size_t> extents(rng_.between(factors.empty() ? 0 : 1, options_.max_rank),
                                         1);
        if (extents.empty() && !factors.empty()) {
            return false;
        }
        for (std::size_t factor : factors) {
            extents[rng_.between(0, extents.size() - 1)] *= factor;
        }
        add(use(a).reshape(shape_of(extents)), bound(a));
        return true;
    }

    bool permute() {
        const std::size_t a = pick();
        const std::size_t rank = shape(a).rank();
        if (rank < 2) {
            return false;
        }
        std::vector<std::size_t> order(rank);
        for (std::size_t i = 0; i < rank; ++i) {
            order[i] = i;
        }
        for (std::size_t i = rank - 1; i > 0; --i) {
            std::swap(order[i], order[rng_.between(0, i)]);
        }
        add(use(a).permute(Axes(std::span<const std::size_t>(order))), bound(a));
        return true;
    }

    bool broadcast() {
        const std::size_t a = pick();
        const Shape s = shape(a);
        const std::size_t axis = rng_.between(0, s.rank());
        const std::size_t extent = rng_.between(1, 3);
        if (s.rank() + 1 > options_.max_rank || s.elements() * extent > options_.max_elements) {
            return false;
        }
        add(use(a).broadcast_along(axis, extent), bound(a));
        return true;
    }

    bool narrow_or_pad() {
        const std::size_t a = pick();
        const Shape s = shape(a);
        if (s.rank() == 0) {
            return false;
        }
        const std::size_t axis = rng_.between(0, s.rank() - 1);
        const std::size_t extent = s[axis];
        if (rng_.chance(0.5)) {
            const std::size_t start = rng_.between(0, extent - 1);
            const std::size_t length = rng_.between(1, extent - start);
            add(use(a).narrow(axis, start, length), bound(a));
            return true;
        }
        const std::size_t before = rng_.between(0, 2);
        const std::size_t after = rng_.between(0, 2);
        if (!fits(s.with_extent(axis, extent + before + after))) {
            return false;
        }
        add(use(a).pad(axis, before, after), bound(a));
        return true;
    }

    bool unfold() {
        const std::size_t a = pick();
        const Shape s = shape(a);
        if (s.rank() == 0 || s.rank() + 1 > options_.max_rank) {
            return false;
        }
        const std::size_t axis = rng_.between(0, s.rank() - 1);
        const std::size_t extent = s[axis];
        const std::size_t size = rng_.between(1, extent);
        std::size_t dilation = rng_.between(1, 2);
        if (dilation * (size - 1) + 1 > extent) {
            dilation = 1;
        }
        const std::size_t step = rng_.between(1, 2);
        const std::size_t count = (extent - (dilation * (size - 1) + 1)) / step + 1;
        if (!fits(s.with_extent(axis, count).with_axis(axis + 1, size))) {
            return false;
        }
        add(use(a).unfold(axis, size, step, dilation), bound(a));
        return true;
    }

    bool fold() {
        const std::size_t a = pick();
        const Shape s = shape(a);
        if (s.rank() < 2) {
            return false;
        }
        const std::size_t axis = rng_.between(0, s.rank() - 2);
        const std::size_t count = s[axis];
        const std::size_t size = s[axis + 1];
        const std::size_t step = rng_.between(1, 2);
        const std::size_t dilation = rng_.between(1, 2);
        const std::size_t extent = (count - 1) * step + dilation * (size - 1) + 1;
        if (!fits(s.without_axis(axis + 1).with_extent(axis, extent))) {
            return false;
        }
        const Value<T> x = use(a);
        add(x.apply(Opcode::Fold, {x}, FoldAttributes{axis, size, step, dilation, extent}),
            static_cast<double>(size) * bound(a));
        return true;
    }

    bool one_operation() {
        switch (rng_.between(0, 10)) {
            case 0:
            case 1:
                return unary();
            case 2:
            case 3:
                return binary();
            case 4:
                return matmul();
            case 5:
                return sum();
            case 6:
                return reshape();
            case 7:
                return permute();
            case 8:
                return broadcast();
            case 9:
                return narrow_or_pad();
            default:
                return rng_.chance(0.5) ? unfold() : fold();
        }
    }

    RecordedGraph<T> finish() {
        std::vector<Value<T>> terms;
        for (std::size_t i = 0; i < pool_.size(); ++i) {
            if (!pool_[i].read) {
                const Value<T> x = use(i);
                terms.push_back((x * tape_.leaf(rng_.tensor<T>(x.shape(), -1.0, 1.0))).sum());
            }
        }
        Value<T> loss = terms.front();
        for (std::size_t i = 1; i < terms.size(); ++i) {
            loss = loss + terms[i];
        }
        return {loss, parameters_, inputs_, values_};
    }

    Tape<T>& tape_;
    Rng rng_;
    const RandomGraphOptions& options_;
    std::vector<Entry> pool_;
    std::vector<Value<T>> parameters_;
    std::vector<Value<T>> inputs_;
    std::vector<Value<T>> values_;
};

template <class Values>
std::vector<Symbol> symbols_of(const Values& values) {
    std::vector<Symbol> symbols;
    for (const auto& value : values) {
        symbols.push_back(value.symbol());
    }
    return symbols;
}

}  // namespace

template <Element T>
RecordedGraph<T> record_random_graph(Tape<T>& tape,
                                     std::uint64_t seed,
                                     const RandomGraphOptions& options) {
    return Generator<T>(tape, seed, options).record();
}

template <Element T>
RandomGraph<T> random_graph(std::uint64_t seed, const RandomGraphOptions& options) {
    Tape<T> tape;
    const RecordedGraph<T> recorded = record_random_graph(tape, seed, options);
    const Symbol loss = recorded.loss.symbol();
    std::vector<Symbol> parameters = symbols_of(recorded.parameters);
    std::vector<Symbol> inputs = symbols_of(recorded.inputs);
    std::vector<Symbol> values = symbols_of(recorded.values);
    return {std::move(tape).into_network(), loss, parameters, inputs, values};
}

template <Element T>
std::vector<Feed<T>> random_feeds(const Network<T>& network,
                                  const std::vector<Symbol>& inputs,
                                  std::uint64_t seed) {
    Rng rng(seed);
    std::vector<Feed<T>> feeds;
    for (const Symbol& input : inputs) {
        feeds.push_back({input, rng.tensor<T>(network.node(input).shape(), -1.0, 1.0)});
    }
    return feeds;
}

template <Element T>
Parameters<T> random_parameters(const Network<T>& network, std::uint64_t seed) {
    Rng rng(seed);
    Parameters<T> parameters = network.parameters();
    for (const Symbol& parameter : parameters.symbols()) {
        parameters =
            parameters.with(parameter, rng.tensor<T>(network.node(parameter).shape(), -1.0, 1.0));
    }
    return parameters;
}

#define TOPOS_TEST_INSTANTIATE_RANDOM_GRAPHS(T)                                     \
    template RecordedGraph<T> record_random_graph(                                  \
        Tape<T>&, std::uint64_t, const RandomGraphOptions&);                        \
    template RandomGraph<T> random_graph(std::uint64_t, const RandomGraphOptions&); \
    template std::vector<Feed<T>> random_feeds(                                     \
        const Network<T>&, const std::vector<Symbol>&, std::uint64_t);              \
    template Parameters<T> random_parameters(const Network<T>&, std::uint64_t);

TOPOS_TEST_INSTANTIATE_RANDOM_GRAPHS(float)
TOPOS_TEST_INSTANTIATE_RANDOM_GRAPHS(double)
#undef TOPOS_TEST_INSTANTIATE_RANDOM_GRAPHS

}  // namespace topos::test
