#include "support/emission_corpus.hpp"

#include "support/op_specs.hpp"
#include "support/pattern_corpus.hpp"
#include <topos/topos.hpp>

#include <cstdint>
#include <limits>
#include <vector>

namespace topos::test {
namespace {

// Each opcode's spec draws shapes and attributes at random: three draws give
// windows with several elements, steps and dilations, and size-1 axes.
constexpr std::uint64_t opcode_seeds = 3;

void visit_opcode(EmissionCorpusVisitor& visitor, const OpSpec& spec, std::uint64_t seed) {
    Rng rng(seed);
    Tape<double> tape;
    const OpCase recorded = spec.record(tape, rng);
    const auto weights = tape.leaf(rng.tensor<double>(recorded.output.shape(), -1.0, 1.0));
    const auto loss = (recorded.output * weights).sum();
    const Symbol output = recorded.output;
    const Symbol loss_symbol = loss;
    std::vector<Symbol> operands(recorded.operands.begin(), recorded.operands.end());
    const Adjoints<double> adjoints = tape.differentiate(loss, operands);
    const Network<double> network = std::move(tape).into_network();
    const std::string name =
        "op." + std::string(name_of(spec.opcode)) + ".seed" + std::to_string(seed);
    visitor.visit(name + ".inference", network.entry({output}).lower());
    visitor.visit(name + ".training", network.entry(adjoints.roots()).lower());
    visitor.visit(name + ".training.simplified",
                  network.entry(adjoints.roots()).simplify().lower());
    visitor.visit(name + ".backward", network.entry({loss_symbol}).backward().lower());
    const Network<bf16> narrow = network.convert<bf16>();
    visitor.visit(name + ".bf16.inference", narrow.entry({output}).lower());
    visitor.visit(name + ".bf16.training", narrow.entry(adjoints.roots()).lower());
}

void visit_scalar_chain(EmissionCorpusVisitor& visitor) {
    auto [network, w, x, y, loss] = Tape<double>::record([](Tape<double>& tape) {
        auto w = tape.parameter(0.5);
        auto x = tape.input(2.0);
        auto y = tape.input(4.0);
        auto error = w * x - y;
        return detach(w, x, y, error * error);
    });
    visitor.visit("example.scalar_chain", network.entry({loss}).lower());
}

template <Element T>
void visit_walkthrough(EmissionCorpusVisitor& visitor, const std::string& name) {
    Tape<T> tape;
    auto weights = tape.parameter(Tensor<T>({2, 2}, {T(0.5), T(-0.25), T(0.25), T(0.4)}));
    auto input = tape.input(Tensor<T>({1, 2}, {T(1), T(2)}));
    auto hidden = input.matmul(weights).tanh();
    auto loss = (hidden * hidden).sum();
    const Adjoints<T> adjoints = tape.differentiate(loss, {weights});
    const Symbol hidden_symbol = hidden;
    const Symbol loss_symbol = loss;
    const Network<T> network = std::move(tape).into_network();
    visitor.visit(name + ".inference",
                  network.entry({loss_symbol}).observe({hidden_symbol}).lower());
    visitor.visit(name + ".training", network.entry(adjoints.roots()).lower());
}

// The composed lowerings over their whole range: each piece of erf and its
// boundaries, both tails of gelu and softplus, and log-sum-exp rows holding
// -inf, +inf and NaN.
template <Element T>
void visit_special_functions(EmissionCorpusVisitor& visitor, const std::string& name) {
    const std::vector<T> points{-30,  -8,    -5.9, -3.1, -3,   -2.5, -2,   -1.5, -0.76, -0.75,
                                -0.5, -1e-3, -0.0, 0.0,  1e-3, 0.5,  0.74, 0.75, 1,     1.9,
                                2,    2.9,   3,    4,    5.9,  6,    8,    27,   30,    100};
    const T inf = std::numeric_limits<T>::infinity();
    Tape<T> tape;
    auto x = tape.input(Tensor<T>({points.size()}, points));
    auto rows = tape.input(Tensor<T>({4, 3},
                                     {T(1),
                                      T(2),
                                      T(3),
                                      -inf,
                                      -inf,
                                      -inf,
                                      T(1),
                                      inf,
                                      T(2),
                                      T(0),
                                      std::numeric_limits<T>::quiet_NaN(),
                                      T(1)}));
    auto erf = x.erf();
    auto gelu = x.gelu();
    auto softplus = x.softplus();
    auto normalised = rows.log_softmax(1);
    auto total = rows.logsumexp(1);
    const Network<T> network = std::move(tape).into_network();
    visitor.visit(name, network.entry({erf, gelu, softplus, normalised, total}).lower());
}

void visit_mlp(EmissionCorpusVisitor& visitor) {
    Tape<float> tape;
    Mlp mlp(tape, {8, 32, 32, 4}, Activation::Tanh, init::xavier(3));
    auto predicted = mlp.express(tape.input(init::normal(5, 1.0)(Shape{16, 8})));
    auto loss = (predicted * predicted).sum();
    const Adjoints<float> adjoints = tape.differentiate(loss, mlp.parameters());
    const Network<float> network = std::move(tape).into_network();
    visitor.visit("example.mlp.training", network.entry(adjoints.roots()).lower());
    visitor.visit("example.mlp.training.simplified",
                  network.entry(adjoints.roots()).simplify().lower());
}

// Empty batches: an MLP and a CNN trained on zero examples, and reductions
// over an empty axis, whose emitted tensors have an extent of 0.
void visit_empty_batches(EmissionCorpusVisitor& visitor) {
    {
        Tape<float> tape;
        Mlp mlp(tape, {8, 16, 4}, Activation::Tanh, init::xavier(3));
        auto predicted = mlp.express(tape.input(Tensor<float>::filled(Shape{0, 8}, 1.0f)));
        auto loss = (predicted * predicted).sum();
        const Adjoints<float> adjoints = tape.differentiate(loss, mlp.parameters());
        const Network<float> network = std::move(tape).into_network();
        visitor.visit("empty.mlp.training", network.entry(adjoints.roots()).lower());
    }
    {
        Tape<double> tape;
        auto x = tape.input(Tensor<double>::filled(Shape{0, 3}, 1.0));
        auto scale = tape.parameter(Tensor<double>({3}, {0.5, -1.0, 2.0}));
        auto scaled = x * scale + 1.0;
        auto loss = scaled.sum() + scaled.max(0).sum() + scaled.sum(1).sum();
        const Symbol loss_symbol = loss;
        const Network<double> network = std::move(tape).into_network();
        visitor.visit("empty.reductions.backward", network.entry({loss_symbol}).backward().lower());
    }
}

// The gallery's models, small: each training plan (loss and gradients) and
// its evaluation plan, as the gallery lowers them.
template <class Model>
void visit_classifier(EmissionCorpusVisitor& visitor,
                      const std::string& name,
                      Tape<float>& tape,
                      const Model& model,
                      const std::vector<Value<float>>& parameters,
                      const Shape& images_shape) {
    auto images = tape.input(init::normal(7, 1.0)(images_shape));
    auto labels = tape.indices(Tensor<float>::filled(Shape{images_shape[0]}, 3.0f));
    auto logits = model(images);
    auto loss = cross_entropy(logits, labels);
    const Adjoints<float> adjoints = tape.differentiate(loss, parameters);
    const Network<float> network = std::move(tape).into_network();
    visitor.visit(name + ".training", network.entry(adjoints.roots()).lower());
    visitor.visit(name + ".evaluation", network.entry({logits}).lower());
}

void visit_gallery_models(EmissionCorpusVisitor& visitor) {
    {
        Tape<float> tape;
        const Conv2d<float> first(tape, {1, 4, 3, 1, 1}, init::kaiming(1));
        const MaxPool2d<float> pool(2);
        const BatchNorm<float> norm(tape, 4);
        const Linear<float> head(tape, 4 * 4 * 4, 10, init::xavier(2));
        std::vector<Value<float>> parameters = first.parameters();
        for (const Value<float>& p : norm.parameters()) {
            parameters.push_back(p);
        }
        for (const Value<float>& p : head.parameters()) {
            parameters.push_back(p);
        }
        const auto model = [&](const Value<float>& x) {
            auto features = pool.express(norm.express(first.express(x)).relu());
            return head.express(features.reshape(Shape{x.shape()[0], 4 * 4 * 4}));
        };
        visit_classifier(visitor, "gallery.cnn", tape, model, parameters, Shape{3, 1, 8, 8});
    }
    {
        Tape<float> tape;
        const Embedding<float> embedding(tape, 27, 8, init::normal(3, 0.1));
        const TransformerBlock<float> block(tape, 8, 2, 16, init::xavier(4));
        const Linear<float> head(tape, 8, 27, init::xavier(5));
        std::vector<Value<float>> parameters = embedding.parameters();
        for (const Value<float>& p : block.parameters()) {
            parameters.push_back(p);
        }
        for (const Value<float>& p : head.parameters()) {
            parameters.push_back(p);
        }
        const auto model = [&](const Value<float>& tokens) {
            auto states = block.express(embedding.express(tokens));
            return head.express(states.reshape(Shape{6, 8}));
        };
        auto tokens = tape.indices(Tensor<float>::filled(Shape{1, 6}, 2.0f));
        auto targets = tape.indices(Tensor<float>::filled(Shape{6}, 5.0f));
        auto logits = model(tokens);
        auto loss = cross_entropy(logits, targets);
        const Adjoints<float> adjoints = tape.differentiate(loss, parameters);
        const Network<float> network = std::move(tape).into_network();
        visitor.visit("gallery.transformer.training", network.entry(adjoints.roots()).lower());
        visitor.visit("gallery.transformer.training.simplified",
                      network.entry(adjoints.roots()).simplify().lower());
        visitor.visit("gallery.transformer.evaluation", network.entry({logits}).lower());
    }
}

}  // namespace

void visit_emission_corpus(EmissionCorpusVisitor& visitor) {
    for (const OpSpec& spec : op_specs()) {
        for (std::uint64_t seed = 1; seed <= opcode_seeds; ++seed) {
            visit_opcode(visitor, spec, seed);
        }
    }
    visit_scalar_chain(visitor);
    visit_walkthrough<float>(visitor, "example.walkthrough.f32");
    visit_walkthrough<double>(visitor, "example.walkthrough.f64");
    visit_walkthrough<bf16>(visitor, "example.walkthrough.bf16");
    visit_special_functions<float>(visitor, "range.special_functions.f32");
    visit_special_functions<double>(visitor, "range.special_functions.f64");
    visit_mlp(visitor);
    visit_pattern_plans(visitor);
    visit_gallery_models(visitor);
    visit_empty_batches(visitor);
}

}  // namespace topos::test
