// LlamaGenerator: the logits it feeds out against the interpreter's run of
// the whole sequence, bit for bit, however a prompt is cut into runs; its
// runs' buffers reused; generation seeded, streamed and stopped; and the
// feeds it refuses without touching its caches.
#include "model/llama_reference.hpp"
#include "model/module_checks.hpp"
#include "support/bit_equal.hpp"
#include <topos/core/error.hpp>
#include <topos/model/llama_generator.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

namespace topos {
namespace {

using test::randomised;

LlamaConfig tiny_config() {
    return test::llama::tiny_config(false);
}

const std::vector<std::int64_t> sequence{1, 12, 0, 7, 7, 3, 9, 4, 11, 2};

// A generator of tiny_config() with random weights, and beside it on the same
// network the logits of `sequence` as one causal run, by the interpreter.
template <Element T>
struct Fixture {
    std::unique_ptr<LlamaGenerator<T>> generator;
    std::vector<T> whole;  // [sequence, vocabulary]

    explicit Fixture(const GeneratorOptions& options) {
        Tape<T> tape;
        const Llama<T> model(tape, tiny_config(), init::normal(70, 0.5));
        const Value<T> embedded = tape.input(Tensor<T>::filled(Shape{1, sequence.size(), 8}, T{0}));
        const Value<T> logits = model.express_embedded(
            embedded,
            causal_positions(tape, model.layers()[0].attention().rotary(), sequence.size()));
        generator = std::make_unique<LlamaGenerator<T>>(std::move(tape), model, options);
        const Parameters<T> parameters = randomised(generator->network(), 71);
        generator->set_parameters(parameters);
        const Tensor<T> table = parameters.of(model.embed_tokens().table());
        const Run<T> run = generator->network().forward(
            parameters, {{embedded, model.embed(table, Shape{1, sequence.size()}, sequence)}});
        const auto values = run.of(logits).data();
        whole.assign(values.begin(), values.end());
    }

    std::span<const T> row(std::size_t position) const {
        return std::span<const T>(whole).subspan(position * 13, 13);
    }
};

template <Element T>
void expect_bits(std::span<const T> got, std::span<const T> expected, std::size_t position) {
    ASSERT_EQ(got.size(), expected.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        ASSERT_EQ(test::bits_of(got[i]), test::bits_of(expected[i]))
            << "position " << position << ", logit " << i;
    }
}

template <Element T>
void expect_every_cut_gives_the_whole_sequences_bits() {
    Fixture<T> fixture({.context = 12, .prefill_chunk = 4});
    LlamaGenerator<T>& generator = *fixture.generator;
    EXPECT_EQ(generator.run_sizes(), (std::vector<std::size_t>{4, 1}));
    for (std::size_t prompt = 1; prompt <= sequence.size(); ++prompt) {
        generator.reset();
        const std::span<const std::int64_t> tokens(sequence);
        expect_bits<T>(generator.feed(tokens.first(prompt)), fixture.row(prompt - 1), prompt - 1);
        for (std::size_t position = prompt; position < sequence.size(); ++position) {
            expect_bits<T>(
                generator.feed(tokens.subspan(position, 1)), fixture.row(position), position);
        }
        EXPECT_EQ(generator.position(), sequence.size());
    }
}

TEST(LlamaGenerator, EveryCutOfAPromptGivesTheWholeSequencesBits) {
    expect_every_cut_gives_the_whole_sequences_bits<double>();
    expect_every_cut_gives_the_whole_sequences_bits<float>();
    expect_every_cut_gives_the_whole_sequences_bits<bf16>();
}

TEST(LlamaGenerator, RunsInTwoSetsOfBuffersTakingTurns) {
    Fixture<float> fixture({.context = 12, .prefill_chunk = 4});
    LlamaGenerator<float>& generator = *fixture.generator;
    std::vector<const float*> logits;
    for (const std::int64_t token : sequence) {
        logits.push_back(generator.feed(std::span<const std::int64_t>(&token, 1)).data());
    }
    EXPECT_NE(logits[0], logits[1]);
    for (std::size_t step = 2; step < logits.size(); ++step) {
        EXPECT_EQ(logits[step], logits[step - 2]) << "step " << step;
    }
}

TEST(LlamaGenerator, GreedyGenerationPicksTheWholeSequencesMostLikelyTokens) {
    Fixture<float> fixture({.context = 12, .prefill_chunk = 4});
    LlamaGenerator<float>& generator = *fixture.generator;
    TokenSampler greedy({});
    const std::vector<std::int64_t> prompt(sequence.begin(), sequence.begin() + 3);
    std::vector<std::int64_t> streamed;
    const std::vector<std::int64_t> picked = generator.generate(
        prompt, {.count = 5}, greedy, [&](std::int64_t token) { streamed.push_back(token); });
    ASSERT_EQ(picked.size(), 5U);
    EXPECT_EQ(streamed, picked);
    // Teacher-forced over prompt + picked, each pick is the argmax of the position before.
    std::vector<std::int64_t> whole = prompt;
    whole.insert(whole.end(), picked.begin(), picked.end() - 1);
    generator.reset();
    for (std::size_t i = 0; i < whole.size(); ++i) {
        const std::span<const float> logits =
            generator.feed(std::span<const std::int64_t>(whole).subspan(i, 1));
        if (i + 1 >= prompt.size()) {
            const auto most = std::max_element(logits.begin(), logits.end()) - logits.begin();
            EXPECT_EQ(most, picked[i + 1 - prompt.size()]) << "position " << i;
        }
    }
}

TEST(LlamaGenerator, TheSameSeedGivesTheSameTokens) {
    Fixture<float> fixture({.context = 16, .prefill_chunk = 4});
    LlamaGenerator<float>& generator = *fixture.generator;
    const std::vector<std::int64_t> prompt{1, 5};
    const auto sample = [&](std::uint64_t seed) {
        TokenSampler sampler({.temperature = 1.5, .top_k = 8, .top_p = 0.95, .seed = seed});
        return generator.generate(prompt, {.count = 12}, sampler);
    };
    const std::vector<std::int64_t> first = sample(3);
    EXPECT_EQ(sample(3), first);
    EXPECT_NE(sample(4), first);
}

TEST(LlamaGenerator, StopsAtTheEndOfSequenceToken) {
    Fixture<float> fixture({.context = 12, .prefill_chunk = 4});
    LlamaGenerator<float>& generator = *fixture.generator;
    TokenSampler greedy({});
    const std::vector<std::int64_t> prompt{1, 12, 0};
    const std::vector<std::int64_t> free = generator.generate(prompt, {.count = 6}, greedy);
    const std::vector<std::int64_t> stopped =
        generator.generate(prompt, {.count = 6, .eos = free[2]}, greedy);
    const auto first_eos = std::find(free.begin(), free.end(), free[2]);
    EXPECT_EQ(stopped, std::vector<std::int64_t>(free.begin(), first_eos + 1));
}

TEST(LlamaGenerator, RefusedFeedsLeaveTheCachesAsTheyWere) {
    Fixture<float> fixture({.context = 6, .prefill_chunk = 4});
    LlamaGenerator<float>& generator = *fixture.generator;
    const std::span<const std::int64_t> tokens(sequence);
    (void)generator.feed(tokens.first(3));
    const std::vector<std::int64_t> outside{4, 13};
    EXPECT_THROW((void)generator.feed(outside), IndexError);
    EXPECT_THROW((void)generator.feed(tokens.subspan(3, 4)), ShapeError);
    EXPECT_THROW((void)generator.feed({}), ShapeError);
    EXPECT_EQ(generator.position(), 3U);
    Fixture<float> whole({.context = 12, .prefill_chunk = 4});
    expect_bits<float>(generator.feed(tokens.subspan(3, 1)), whole.row(3), 3);
    TokenSampler greedy({});
    EXPECT_THROW((void)generator.generate(tokens.first(3), {.count = 5}, greedy), ShapeError);
    EXPECT_THROW((void)generator.generate({}, {.count = 1}, greedy), ShapeError);
}

TEST(LlamaGenerator, RefusesAnotherNetworksParametersAndImpossibleSizes) {
    Fixture<float> fixture({.context = 8, .prefill_chunk = 4});
    Tape<float> other;
    const Llama<float> model(other, tiny_config(), init::normal(1, 0.02));
    const Network<float> network = std::move(other).into_network();
    EXPECT_THROW(fixture.generator->set_parameters(network.parameters()), SymbolError);
    const auto make = [](const GeneratorOptions& options) {
        Tape<float> tape;
        const Llama<float> llama(tape, tiny_config(), init::normal(1, 0.02));
        return LlamaGenerator<float>(std::move(tape), llama, options);
    };
    EXPECT_THROW((void)make({.context = 0}), ShapeError);
    EXPECT_THROW((void)make({.context = 17}), ShapeError);
    EXPECT_THROW((void)make({.context = 8, .prefill_chunk = 0}), ShapeError);
    EXPECT_EQ(make({.context = 16, .prefill_chunk = 64}).run_sizes(),
              (std::vector<std::size_t>{16, 4, 1}));
}

}  // namespace
}  // namespace topos
