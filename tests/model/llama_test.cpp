// The Llama modules (RmsNorm, RotaryEmbedding, GroupedQueryAttention,
// SwiGluMlp, Llama): forward against Hugging Face's formulas written out in
// double (llama_reference.hpp), gradients against finite differences,
// causality bit for bit, Hugging Face's parameter names, and the sizes they
// refuse.
#include "model/llama_reference.hpp"
#include "model/module_checks.hpp"
#include "support/bit_equal.hpp"
#include "support/finite_differences.hpp"
#include <topos/core/error.hpp>
#include <topos/model/llama.hpp>
#include <topos/plan/plan.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace topos {
namespace {

using test::near_relative;
using test::randomised;
using test::to_doubles;
namespace reference = test::llama;

// A named parameter's value, as doubles.
template <Element T, class Model>
reference::Rows named(const Model& model,
                      const Parameters<T>& parameters,
                      const std::string& name) {
    for (const NamedParameter& parameter : model.named_parameters()) {
        if (parameter.name == name) {
            return to_doubles(parameters.of(parameter.symbol));
        }
    }
    ADD_FAILURE() << "no parameter named " << name;
    return {};
}

// The rows of batch element b of x [batch, positions, width].
reference::Rows sequence_of(const reference::Rows& x, std::size_t b, std::size_t rows) {
    return {x.begin() + static_cast<std::ptrdiff_t>(b * rows),
            x.begin() + static_cast<std::ptrdiff_t>((b + 1) * rows)};
}

TEST(LinearWithoutBias, HoldsOnlyItsWeightAndSaysSo) {
    Tape<float> tape;
    const Linear<float> layer(tape, 3, 2, init::xavier(1), Bias::None);
    EXPECT_FALSE(layer.has_bias());
    EXPECT_EQ(layer.parameters().size(), 1U);
    ASSERT_EQ(layer.named_parameters().size(), 1U);
    EXPECT_EQ(layer.named_parameters()[0].name, "weight");
    EXPECT_THROW((void)layer.bias(), Error);
    EXPECT_NE(layer.describe().find("no bias"), std::string::npos);
    const Tensor<float> x = init::normal(2, 1.0).make<float>(Shape{4, 3});
    const Value<float> y = layer.express(tape.input(x));
    const Network<float> network = std::move(tape).into_network();
    const Tensor<float> w = network.parameters().of(layer.weight());
    EXPECT_TRUE(near_relative(to_doubles(network.forward(network.parameters()).of(y)),
                              reference::product(to_doubles(x), to_doubles(w), 3, 2),
                              1e-6));
}

TEST(RmsNorm, ForwardMatchesTheReference) {
    Tape<double> tape;
    const RmsNorm<double> norm(tape, 5, 1e-5);
    const Tensor<double> x = init::normal(1, 2.0)(Shape{2, 3, 5});
    const Value<double> y = norm.express(tape.input(x));
    const Network<double> network = std::move(tape).into_network();
    const Parameters<double> parameters = randomised(network, 2);
    EXPECT_TRUE(
        near_relative(to_doubles(network.forward(parameters).of(y)),
                      reference::rms_norm(to_doubles(x), named(norm, parameters, "weight"), 1e-5),
                      1e-14));
}

TEST(RmsNorm, GradientsMatchFiniteDifferences) {
    Tape<double> tape;
    const RmsNorm<double> norm(tape, 4);
    const Value<double> x = tape.input(init::normal(3, 1.0)(Shape{3, 4}));
    const test::Weighted weighted = test::weighted_loss(tape, norm.express(x), 4);
    const std::vector<Symbol> sources{x, norm.weight()};
    const Network<double> network = std::move(tape).into_network();
    test::expect_gradients_match_finite_differences(
        network, randomised(network, 5), {}, weighted, sources);
}

TEST(RmsNorm, RefusesAMismatchedLastAxisAndABadEpsilon) {
    Tape<float> tape;
    const RmsNorm<float> norm(tape, 4);
    EXPECT_THROW((void)norm.express(tape.input(Tensor<float>::filled(Shape{2, 3}, 1.0F))),
                 ShapeError);
    EXPECT_THROW(RmsNorm<float>(tape, 4, 0.0), ShapeError);
    EXPECT_THROW(RmsNorm<float>(tape, 0), ShapeError);
}

TEST(RotaryEmbedding, TablesHoldHuggingFacesFloatAnglesAndRepeatTheirHalves) {
    const RotaryEmbedding rotary(8, 500.0);
    const RotaryTables<float> tables = rotary.tables<float>(0, 40);
    ASSERT_EQ(tables.cos.shape(), (Shape{40, 8}));
    for (std::size_t p = 0; p < 40; ++p) {
        for (std::size_t i = 0; i < 4; ++i) {
            const double angle = reference::rotary_angle(p, i, 8, 500.0);
            for (const std::size_t column : {i, i + 4}) {
                EXPECT_EQ(tables.cos.data()[p * 8 + column], static_cast<float>(std::cos(angle)));
                EXPECT_EQ(tables.sin.data()[p * 8 + column], static_cast<float>(std::sin(angle)));
            }
        }
    }
}

TEST(RotaryEmbedding, TablesOfLaterPositionsAreTheFullTablesRows) {
    const RotaryEmbedding rotary(6);
    const RotaryTables<double> whole = rotary.tables<double>(0, 12);
    const RotaryTables<double> tail = rotary.tables<double>(9, 3);
    for (std::size_t i = 0; i < tail.cos.elements(); ++i) {
        EXPECT_EQ(test::bits_of(tail.cos.data()[i]), test::bits_of(whole.cos.data()[54 + i]));
        EXPECT_EQ(test::bits_of(tail.sin.data()[i]), test::bits_of(whole.sin.data()[54 + i]));
    }
}

TEST(RotaryEmbedding, RotationMatchesRotateHalfAndItsGradientsFiniteDifferences) {
    const RotaryEmbedding rotary(4, 100.0);
    Tape<double> tape;
    const Tensor<double> x = init::normal(6, 1.0)(Shape{5, 2, 4});  // [positions, heads, d]
    const RotaryTables<double> tables = rotary.tables<double>(0, 5);
    const Value<double> input = tape.input(x);
    const Value<double> turned =
        rotary.apply(input.permute(Axes{1, 0, 2}), tape.leaf(tables.cos), tape.leaf(tables.sin));
    const Value<double> by_position = turned.permute(Axes{1, 0, 2});
    const test::Weighted weighted = test::weighted_loss(tape, turned, 7);
    const Network<double> network = std::move(tape).into_network();
    reference::Rows expected = to_doubles(x);
    reference::rotate(expected, 2, 4, 100.0);
    EXPECT_TRUE(near_relative(
        to_doubles(network.forward(network.parameters()).of(by_position)), expected, 1e-15));
    const std::vector<Symbol> sources{input};
    test::expect_gradients_match_finite_differences(
        network, network.parameters(), {}, weighted, sources);
}

TEST(RotaryEmbedding, RefusesAnOddHeadWidthAndMismatchedTables) {
    EXPECT_THROW(RotaryEmbedding(5), ShapeError);
    EXPECT_THROW(RotaryEmbedding(4, 1.0), ShapeError);
    const RotaryEmbedding rotary(4);
    Tape<float> tape;
    const RotaryTables<float> tables = rotary.tables<float>(0, 3);
    const Value<float> x = tape.input(Tensor<float>::filled(Shape{2, 4, 4}, 1.0F));
    EXPECT_THROW((void)rotary.apply(x, tape.leaf(tables.cos), tape.leaf(tables.sin)), ShapeError);
}

struct AttentionCase {
    std::size_t heads;
    std::size_t key_value_heads;
};

void PrintTo(const AttentionCase& sizes, std::ostream* out) {
    *out << sizes.heads << " heads, " << sizes.key_value_heads << " key/value heads";
}

class GroupedQueryAttentionSizes : public ::testing::TestWithParam<AttentionCase> {};

TEST_P(GroupedQueryAttentionSizes, ForwardMatchesHuggingFacesRepeatedKeysAndValues) {
    const auto [heads, key_value_heads] = GetParam();
    const std::size_t width = 4 * heads;
    Tape<double> tape;
    const GroupedQueryAttention<double> attention(
        tape,
        {.width = width, .heads = heads, .key_value_heads = key_value_heads, .rope_theta = 50},
        init::xavier(1));
    const Tensor<double> x = init::normal(2, 1.0)(Shape{2, 5, width});
    const Value<double> y = attention.express(tape.input(x));
    ASSERT_EQ(y.shape(), (Shape{2, 5, width}));
    const Network<double> network = std::move(tape).into_network();
    const Parameters<double> parameters = randomised(network, 3);
    const reference::AttentionWeights w{named(attention, parameters, "q_proj.weight"),
                                        named(attention, parameters, "k_proj.weight"),
                                        named(attention, parameters, "v_proj.weight"),
                                        named(attention, parameters, "o_proj.weight")};
    const reference::Rows input = to_doubles(x);
    reference::Rows expected;
    for (std::size_t b = 0; b < 2; ++b) {
        const reference::Rows one = reference::attention(
            sequence_of(input, b, 5 * width), w, width, heads, key_value_heads, 50);
        expected.insert(expected.end(), one.begin(), one.end());
    }
    EXPECT_TRUE(near_relative(to_doubles(network.forward(parameters).of(y)), expected, 1e-13));
}

INSTANTIATE_TEST_SUITE_P(HeadsAndGroups,
                         GroupedQueryAttentionSizes,
                         ::testing::Values(AttentionCase{4, 4},
                                           AttentionCase{4, 2},
                                           AttentionCase{4, 1},
                                           AttentionCase{6, 3}));

TEST(GroupedQueryAttention, GradientsMatchFiniteDifferences) {
    Tape<double> tape;
    const GroupedQueryAttention<double> attention(
        tape, {.width = 8, .heads = 2, .key_value_heads = 1}, init::xavier(4));
    const Value<double> x = tape.input(init::normal(5, 1.0)(Shape{2, 3, 8}));
    const test::Weighted weighted = test::weighted_loss(tape, attention.express(x), 6);
    const std::vector<Symbol> sources = test::input_and_parameters(x, attention);
    const Network<double> network = std::move(tape).into_network();
    test::expect_gradients_match_finite_differences(
        network, randomised(network, 7), {}, weighted, sources);
}

TEST(GroupedQueryAttention, OutputAtPositionTDoesNotDependOnLaterInputs) {
    Tape<double> tape;
    const GroupedQueryAttention<double> attention(
        tape, {.width = 8, .heads = 4, .key_value_heads = 2}, init::xavier(8));
    const Tensor<double> x = init::normal(9, 1.0)(Shape{1, 6, 8});
    const Value<double> input = tape.input(x);
    const Symbol y = attention.express(input);
    const Network<double> network = std::move(tape).into_network();
    const Parameters<double> parameters = randomised(network, 10);
    const Tensor<double> before = network.forward(parameters, {{input, x}}).of(y);
    const Tensor<double> changed = Tensor<double>::generate(x.shape(), [&](std::span<double> out) {
        for (std::size_t i = 0; i < out.size(); ++i) {
            out[i] = x.data()[i] + (i / 8 > 2 ? 1.5 : 0.0);
        }
    });
    const Tensor<double> after = network.forward(parameters, {{input, changed}}).of(y);
    for (std::size_t i = 0; i < after.elements(); ++i) {
        if (i / 8 <= 2) {
            ASSERT_EQ(test::bits_of(after.data()[i]), test::bits_of(before.data()[i])) << i;
        } else {
            EXPECT_NE(after.data()[i], before.data()[i]) << i;
        }
    }
}

TEST(GroupedQueryAttention, RefusesHeadsThatDoNotSplitEvenly) {
    Tape<float> tape;
    const auto make = [&](AttentionHeads sizes) {
        return GroupedQueryAttention<float>(tape, sizes, init::xavier(1));
    };
    EXPECT_THROW(make({.width = 12, .heads = 4, .key_value_heads = 2}), ShapeError);  // d = 3
    EXPECT_THROW(make({.width = 16, .heads = 4, .key_value_heads = 3}), ShapeError);
    EXPECT_THROW(make({.width = 16, .heads = 0, .key_value_heads = 1}), ShapeError);
    const GroupedQueryAttention<float> attention =
        make({.width = 8, .heads = 2, .key_value_heads = 1});
    EXPECT_THROW((void)attention.express(tape.input(Tensor<float>::filled(Shape{3, 8}, 1.0F))),
                 ShapeError);
}

TEST(SwiGluMlp, ForwardMatchesTheReferenceAndGradientsFiniteDifferences) {
    Tape<double> tape;
    const SwiGluMlp<double> mlp(tape, 4, 6, init::xavier(11));
    const Tensor<double> x = init::normal(12, 1.0)(Shape{2, 3, 4});
    const Value<double> input = tape.input(x);
    const Value<double> y = mlp.express(input);
    const test::Weighted weighted = test::weighted_loss(tape, y, 13);
    const Network<double> network = std::move(tape).into_network();
    const Parameters<double> parameters = randomised(network, 14);
    EXPECT_TRUE(near_relative(to_doubles(network.forward(parameters).of(y)),
                              reference::swiglu(to_doubles(x),
                                                named(mlp, parameters, "gate_proj.weight"),
                                                named(mlp, parameters, "up_proj.weight"),
                                                named(mlp, parameters, "down_proj.weight"),
                                                4,
                                                6),
                              1e-14));
    const std::vector<Symbol> sources = test::input_and_parameters(input, mlp);
    test::expect_gradients_match_finite_differences(network, parameters, {}, weighted, sources);
}

using reference::tiny_config;

// LlamaForCausalLM's logits for one sequence of tokens, in double.
template <Element T>
reference::Rows llama_reference(const Llama<T>& model,
                                const Parameters<T>& p,
                                const std::vector<std::int64_t>& tokens) {
    const LlamaConfig& c = model.config();
    const reference::Rows table = named(model, p, "model.embed_tokens.weight");
    reference::Rows h;
    for (const std::int64_t token : tokens) {
        const auto row = table.begin() +
                         static_cast<std::ptrdiff_t>(token) * static_cast<std::ptrdiff_t>(c.hidden);
        h.insert(h.end(), row, row + static_cast<std::ptrdiff_t>(c.hidden));
    }
    for (std::size_t i = 0; i < c.layers; ++i) {
        const std::string layer = "model.layers." + std::to_string(i) + ".";
        const auto weight = [&](const std::string& name) { return named(model, p, layer + name); };
        const reference::AttentionWeights w{weight("self_attn.q_proj.weight"),
                                            weight("self_attn.k_proj.weight"),
                                            weight("self_attn.v_proj.weight"),
                                            weight("self_attn.o_proj.weight")};
        const reference::Rows attended = reference::attention(
            reference::rms_norm(h, weight("input_layernorm.weight"), c.rms_norm_eps),
            w,
            c.hidden,
            c.heads,
            c.key_value_heads,
            c.rope_theta);
        for (std::size_t e = 0; e < h.size(); ++e) {
            h[e] += attended[e];
        }
        const reference::Rows lifted = reference::swiglu(
            reference::rms_norm(h, weight("post_attention_layernorm.weight"), c.rms_norm_eps),
            weight("mlp.gate_proj.weight"),
            weight("mlp.up_proj.weight"),
            weight("mlp.down_proj.weight"),
            c.hidden,
            c.intermediate);
        for (std::size_t e = 0; e < h.size(); ++e) {
            h[e] += lifted[e];
        }
    }
    const reference::Rows normalised =
        reference::rms_norm(h, named(model, p, "model.norm.weight"), c.rms_norm_eps);
    if (!c.tied_embeddings) {
        return reference::product(
            normalised, named(model, p, "lm_head.weight"), c.hidden, c.vocabulary);
    }
    reference::Rows transposed(table.size());
    for (std::size_t v = 0; v < c.vocabulary; ++v) {
        for (std::size_t e = 0; e < c.hidden; ++e) {
            transposed[e * c.vocabulary + v] = table[v * c.hidden + e];
        }
    }
    return reference::product(normalised, transposed, c.hidden, c.vocabulary);
}

template <Element T>
void expect_logits_match_the_reference(bool tied, double tolerance) {
    Tape<T> tape;
    const Llama<T> model(tape, tiny_config(tied), init::normal(20, 0.02));
    const std::vector<std::int64_t> tokens{1, 12, 0, 7, 7, 3};
    const Value<T> ids = tape.indices(Shape{1, 6}, {1, 12, 0, 7, 7, 3});
    const Value<T> logits = model.express(ids);
    ASSERT_EQ(logits.shape(), (Shape{1, 6, 13}));
    const Network<T> network = std::move(tape).into_network();
    const Parameters<T> parameters = randomised(network, 21);
    EXPECT_TRUE(near_relative(to_doubles(network.forward(parameters).of(logits)),
                              llama_reference(model, parameters, tokens),
                              tolerance));
}

TEST(Llama, LogitsMatchHuggingFacesFormulasInDouble) {
    expect_logits_match_the_reference<double>(false, 1e-13);
    expect_logits_match_the_reference<double>(true, 1e-13);
}

TEST(Llama, LogitsMatchHuggingFacesFormulasInFloatTo1e5) {
    expect_logits_match_the_reference<float>(false, 1e-5);
    expect_logits_match_the_reference<float>(true, 1e-5);
}

TEST(Llama, NamesItsParametersAsHuggingFaceAndCountsThem) {
    Tape<float> tape;
    const Llama<float> model(tape, tiny_config(false), init::normal(1, 0.02));
    std::vector<std::string> names;
    std::size_t elements = 0;
    for (const NamedParameter& parameter : model.named_parameters()) {
        names.push_back(parameter.name);
    }
    for (const Value<float>& parameter : model.parameters()) {
        elements += parameter.shape().elements();
    }
    const std::vector<std::string> layer{"input_layernorm.weight",
                                         "self_attn.q_proj.weight",
                                         "self_attn.k_proj.weight",
                                         "self_attn.v_proj.weight",
                                         "self_attn.o_proj.weight",
                                         "post_attention_layernorm.weight",
                                         "mlp.gate_proj.weight",
                                         "mlp.up_proj.weight",
                                         "mlp.down_proj.weight"};
    std::vector<std::string> expected{"model.embed_tokens.weight"};
    for (const std::string i : {"0", "1"}) {
        for (const std::string& name : layer) {
            expected.push_back("model.layers." + i + "." + name);
        }
    }
    expected.emplace_back("model.norm.weight");
    expected.emplace_back("lm_head.weight");
    EXPECT_EQ(names, expected);
    EXPECT_EQ(elements, model.config().parameter_count());
    EXPECT_EQ(model.parameters().size(), model.named_parameters().size());
    EXPECT_EQ(model.layers()[0].attention().key().weight().shape(), (Shape{8, 4}));
    EXPECT_NE(model.describe().find("tied"), std::string::npos);
}

TEST(Llama, TiedEmbeddingsHaveNoOutputProjection) {
    Tape<float> tape;
    const Llama<float> model(tape, tiny_config(true), init::normal(1, 0.02));
    EXPECT_FALSE(model.lm_head().has_value());
    EXPECT_EQ(model.named_parameters().back().name, "model.norm.weight");
    std::size_t elements = 0;
    for (const Value<float>& parameter : model.parameters()) {
        elements += parameter.shape().elements();
    }
    EXPECT_EQ(elements, model.config().parameter_count());
}

TEST(Llama, GradientsMatchFiniteDifferences) {
    LlamaConfig config = tiny_config(false);
    config.layers = 1;
    config.vocabulary = 5;
    Tape<double> tape;
    const Llama<double> model(tape, config, init::normal(30, 0.3));
    const Value<double> ids = tape.indices(Shape{2, 3}, {4, 0, 2, 2, 1, 3});
    const test::Weighted weighted = test::weighted_loss(tape, model.express(ids), 31);
    std::vector<Symbol> sources;
    for (const Value<double>& parameter : model.parameters()) {
        sources.push_back(parameter);
    }
    const Network<double> network = std::move(tape).into_network();
    test::expect_gradients_match_finite_differences(
        network, randomised(network, 32), {}, weighted, sources, 1e-6);
}

TEST(Llama, EmbeddedRowsGiveTheTokensLogitsBitForBit) {
    Tape<float> tape;
    const Llama<float> model(tape, tiny_config(false), init::normal(40, 0.5));
    const std::vector<std::int64_t> tokens{3, 9, 9, 0};
    const Value<float> ids = tape.indices(Shape{2, 2}, {3, 9, 9, 0});
    const Value<float> from_tokens = model.express(ids);
    const Tensor<float> table = tape.payload(model.embed_tokens().table());
    const Tensor<float> rows = model.embed(table, Shape{2, 2}, tokens);
    const Value<float> embedded = tape.input(rows);
    const Value<float> from_rows = model.express_embedded(
        embedded, causal_positions(tape, model.layers()[0].attention().rotary(), 2));
    const Network<float> network = std::move(tape).into_network();
    const topos::Run<float> run = network.forward(network.parameters());
    EXPECT_TRUE(test::bit_equal(run.of(from_rows), run.of(from_tokens)));
    EXPECT_THROW((void)model.embed(table, Shape{1}, std::vector<std::int64_t>{13}), IndexError);
}

// The logits of a six-token sequence recorded whole, and through a cache of
// 8 positions: a prefill of the first three tokens (interpreted), then one
// token a step (an Exact plan).
template <Element T>
void expect_cached_steps_give_the_whole_sequences_bits() {
    const std::vector<std::int64_t> tokens{1, 12, 0, 7, 7, 3};
    constexpr std::size_t context = 8;
    constexpr std::size_t vocabulary = 13;
    Tape<T> tape;
    const Llama<T> model(tape, tiny_config(false), init::normal(60, 0.5));
    const Value<T> whole = model.express(tape.indices(Shape{1, 6}, {1, 12, 0, 7, 7, 3}));
    std::vector<KeyValueCache<T>> prefilled;
    const Value<T> prefill = model.express(tape.indices(Shape{1, 3}, {1, 12, 0}),
                                           model.position_inputs(tape, 3, context),
                                           model.cache_inputs(tape, 1, context),
                                           prefilled);
    const Value<T> token = tape.indices(Shape{1, 1}, {0});
    const CachedPositions<T> at = model.position_inputs(tape, 1, context);
    const std::vector<KeyValueCache<T>> caches = model.cache_inputs(tape, 1, context);
    std::vector<KeyValueCache<T>> stepped;
    const Value<T> step = model.express(token, at, caches, stepped);
    const Network<T> network = std::move(tape).into_network();
    const Parameters<T> parameters = randomised(network, 61);

    const Run<T> first = network.forward(parameters);
    const Tensor<T> expected = first.of(whole);
    const auto expect_rows = [&](const Tensor<T>& logits, std::size_t from) {
        for (std::size_t i = 0; i < logits.elements(); ++i) {
            ASSERT_EQ(test::bits_of(logits.data()[i]),
                      test::bits_of(expected.data()[from * vocabulary + i]))
                << "position " << from + i / vocabulary << ", logit " << i % vocabulary;
        }
    };
    expect_rows(first.of(prefill), 0);
    std::vector<Tensor<T>> held;
    for (const KeyValueCache<T>& cache : prefilled) {
        held.push_back(first.of(cache.keys));
        held.push_back(first.of(cache.values));
    }
    // The steps run through an Exact plan of the step's logits and caches.
    std::vector<Symbol> roots{step};
    for (const KeyValueCache<T>& cache : stepped) {
        roots.insert(roots.end(), {cache.keys, cache.values});
    }
    const Plan<T> plan = network.entry(roots).numerics(Numerics::Exact).lower();
    const RotaryEmbedding& rotary = model.layers()[0].attention().rotary();
    for (std::size_t position = 3; position < tokens.size(); ++position) {
        CachedPositionTensors<T> place = cached_position_tensors<T>(rotary, position, 1, context);
        std::vector<Feed<T>> feeds{
            {token, Tensor<T>(Shape{1, 1}, {static_cast<T>(static_cast<float>(tokens[position]))})},
            {at.cos, place.cos},
            {at.sin, place.sin},
            {at.allowed, place.allowed},
            {at.placement, place.placement},
            {at.kept, place.kept}};
        for (std::size_t layer = 0; layer < caches.size(); ++layer) {
            feeds.push_back({caches[layer].keys, held[2 * layer]});
            feeds.push_back({caches[layer].values, held[2 * layer + 1]});
        }
        const Run<T> run = plan.forward(parameters, feeds);
        expect_rows(run.of(step), position);
        for (std::size_t layer = 0; layer < stepped.size(); ++layer) {
            held[2 * layer] = run.of(stepped[layer].keys);
            held[2 * layer + 1] = run.of(stepped[layer].values);
        }
    }
}

TEST(Llama, APrefillThenOneTokenStepsGiveTheWholeSequencesBits) {
    expect_cached_steps_give_the_whole_sequences_bits<double>();
    expect_cached_steps_give_the_whole_sequences_bits<float>();
    expect_cached_steps_give_the_whole_sequences_bits<bf16>();
}

TEST(Llama, CachedPositionsPastTheContextAreRefused) {
    const RotaryEmbedding rotary(4);
    EXPECT_THROW((void)cached_position_tensors<float>(rotary, 7, 2, 8), ShapeError);
    EXPECT_THROW((void)cached_position_tensors<float>(rotary, 0, 0, 8), ShapeError);
    const CachedPositionTensors<float> at = cached_position_tensors<float>(rotary, 2, 2, 5);
    EXPECT_TRUE(
        test::bit_equal(at.allowed, Tensor<float>(Shape{2, 5}, {1, 1, 1, 0, 0, 1, 1, 1, 1, 0})));
    EXPECT_TRUE(
        test::bit_equal(at.placement, Tensor<float>(Shape{5, 2}, {0, 0, 0, 0, 1, 0, 0, 1, 0, 0})));
    EXPECT_TRUE(test::bit_equal(at.kept, Tensor<float>(Shape{5, 1}, {1, 1, 0, 0, 1})));
}

TEST(Llama, RewrittenCachedPositionsEqualFreshOnesAndReuseUnsharedBuffers) {
    const RotaryEmbedding rotary(4);
    const RotaryTables<float> tables = rotary.tables<float>(0, 6);
    CachedPositionTensors<float> place = cached_position_tensors<float>(rotary, 0, 2, 6);
    const float* cos_buffer = place.cos.data().data();
    const float* allowed_buffer = place.allowed.data().data();
    rewrite_cached_positions(place, tables, 3, 2, 6);
    const CachedPositionTensors<float> fresh = cached_position_tensors<float>(rotary, 3, 2, 6);
    EXPECT_TRUE(test::bit_equal(place.cos, fresh.cos));
    EXPECT_TRUE(test::bit_equal(place.sin, fresh.sin));
    EXPECT_TRUE(test::bit_equal(place.allowed, fresh.allowed));
    EXPECT_TRUE(test::bit_equal(place.placement, fresh.placement));
    EXPECT_TRUE(test::bit_equal(place.kept, fresh.kept));
    EXPECT_EQ(place.cos.data().data(), cos_buffer);
    EXPECT_EQ(place.allowed.data().data(), allowed_buffer);

    const Tensor<float> held = place.allowed;  // shared: rewriting must not change it
    rewrite_cached_positions(place, tables, 0, 2, 6);
    EXPECT_TRUE(test::bit_equal(held, fresh.allowed));
    EXPECT_NE(place.allowed.data().data(), held.data().data());

    EXPECT_THROW(rewrite_cached_positions(place, tables, 5, 2, 6), ShapeError);
    EXPECT_THROW(rewrite_cached_positions(place, tables, 0, 3, 6), ShapeError);
    EXPECT_THROW(rewrite_cached_positions(place, rotary.tables<float>(0, 5), 0, 2, 6), ShapeError);
}

TEST(Llama, RecordsAndRunsInBf16) {
    Tape<bf16> tape;
    const Llama<bf16> model(tape, tiny_config(false), init::normal(50, 0.02));
    const Value<bf16> logits = model.express(tape.indices(Shape{1, 3}, {2, 5, 11}));
    const Network<bf16> network = std::move(tape).into_network();
    const Tensor<bf16> values = network.forward(network.parameters()).of(logits);
    EXPECT_EQ(values.shape(), (Shape{1, 3, 13}));
    for (const bf16 value : values.data()) {
        EXPECT_TRUE(std::isfinite(static_cast<float>(value)));
    }
}

TEST(LlamaConfig, RefusesSizesThatCannotMakeAModel) {
    const auto refused = [](auto change) {
        LlamaConfig config = tiny_config(false);
        change(config);
        return [config] { config.check(); };
    };
    EXPECT_NO_THROW(tiny_config(false).check());
    EXPECT_THROW(refused([](LlamaConfig& c) { c.heads = 3; })(), ShapeError);
    EXPECT_THROW(refused([](LlamaConfig& c) { c.key_value_heads = 3; })(), ShapeError);
    EXPECT_THROW(refused([](LlamaConfig& c) { c.heads = 8; })(), ShapeError);  // head width 1
    EXPECT_THROW(refused([](LlamaConfig& c) { c.vocabulary = 0; })(), ShapeError);
    EXPECT_THROW(refused([](LlamaConfig& c) { c.rms_norm_eps = 0; })(), ShapeError);
    Tape<float> tape;
    LlamaConfig bad = tiny_config(false);
    bad.key_value_heads = 0;
    EXPECT_THROW(Llama<float>(tape, bad, init::normal(1, 0.02)), ShapeError);
}

TEST(LlamaConfig, CountsTinyLlamasParameters) {
    EXPECT_EQ(reference::tiny_llama_1_1b().parameter_count(), 1'100'048'384U);
}

}  // namespace
}  // namespace topos
