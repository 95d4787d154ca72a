// TokenSampler: greedy picking, the same draws from the same seed, the
// frequencies of temperature sampling against the softmax they follow, and
// top-k and top-p cutting the candidates to the most likely.
#include <topos/core/error.hpp>
#include <topos/model/sampling.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <vector>

namespace topos {
namespace {

const std::vector<float> logits{0.5F, 2.0F, -1.0F, 1.0F, 2.0F, 0.0F};

std::vector<std::int64_t> draws(const Sampling& sampling, std::size_t count) {
    TokenSampler sampler(sampling);
    std::vector<std::int64_t> picked;
    for (std::size_t i = 0; i < count; ++i) {
        picked.push_back(sampler.pick(std::span<const float>(logits)));
    }
    return picked;
}

TEST(TokenSampler, GreedyPicksTheLowestOfTheMostLikely) {
    EXPECT_EQ(draws({}, 3), (std::vector<std::int64_t>{1, 1, 1}));
    TokenSampler greedy({.top_k = 3, .seed = 9});
    const std::vector<double> widened(logits.begin(), logits.end());
    EXPECT_EQ(greedy.pick(std::span<const double>(widened)), 1);
    const std::vector<bf16> narrowed{bf16(-3.0F), bf16(7.0F), bf16(6.0F)};
    EXPECT_EQ(greedy.pick(std::span<const bf16>(narrowed)), 1);
}

TEST(TokenSampler, TheSameSeedDrawsTheSameTokens) {
    const Sampling sampling{.temperature = 1.0, .seed = 42};
    EXPECT_EQ(draws(sampling, 200), draws(sampling, 200));
    EXPECT_NE(draws(sampling, 200), draws({.temperature = 1.0, .seed = 43}, 200));
}

TEST(TokenSampler, DrawsAsOftenAsTheSoftmaxOfTheTemperedLogitsSays) {
    constexpr std::size_t count = 40000;
    constexpr double temperature = 0.7;
    const std::vector<std::int64_t> picked = draws({.temperature = temperature, .seed = 5}, count);
    std::vector<double> expected(logits.size());
    double total = 0;
    for (std::size_t i = 0; i < logits.size(); ++i) {
        expected[i] = std::exp(logits[i] / temperature);
        total += expected[i];
    }
    for (std::size_t token = 0; token < logits.size(); ++token) {
        const double p = expected[token] / total;
        const auto seen = static_cast<double>(std::count(picked.begin(), picked.end(), token));
        const double deviation = std::sqrt(count * p * (1 - p));
        EXPECT_NEAR(seen, count * p, 5 * deviation) << "token " << token;
    }
}

TEST(TokenSampler, TopKDrawsOnlyTheKMostLikely) {
    const std::vector<std::int64_t> picked =
        draws({.temperature = 5.0, .top_k = 3, .seed = 1}, 3000);
    const std::set<std::int64_t> seen(picked.begin(), picked.end());
    EXPECT_EQ(seen, (std::set<std::int64_t>{1, 4, 3}));
    EXPECT_EQ(draws({.temperature = 5.0, .top_k = 1, .seed = 1}, 50),
              std::vector<std::int64_t>(50, 1));
}

TEST(TokenSampler, TopPDrawsTheFewestWhoseProbabilityReachesP) {
    // At temperature 1 the probabilities, most likely first, are 0.360, 0.360,
    // 0.132, 0.080, ...: 0.7 is reached by the two tied tokens, 0.8 needs a third.
    const std::vector<std::int64_t> two =
        draws({.temperature = 1.0, .top_p = 0.7, .seed = 2}, 2000);
    EXPECT_EQ(std::set<std::int64_t>(two.begin(), two.end()), (std::set<std::int64_t>{1, 4}));
    const std::vector<std::int64_t> three =
        draws({.temperature = 1.0, .top_p = 0.8, .seed = 2}, 2000);
    EXPECT_EQ(std::set<std::int64_t>(three.begin(), three.end()),
              (std::set<std::int64_t>{1, 3, 4}));
    EXPECT_EQ(draws({.temperature = 1.0, .top_p = 0.01, .seed = 2}, 20),
              std::vector<std::int64_t>(20, 1));
}

TEST(TokenSampler, RefusesMeaninglessChoicesAndLogits) {
    EXPECT_THROW(TokenSampler({.temperature = -1.0}), ShapeError);
    EXPECT_THROW(TokenSampler({.temperature = std::numeric_limits<double>::infinity()}),
                 ShapeError);
    EXPECT_THROW(TokenSampler({.top_p = 0.0}), ShapeError);
    EXPECT_THROW(TokenSampler({.top_p = 1.5}), ShapeError);
    TokenSampler sampler({.temperature = 1.0});
    EXPECT_THROW((void)sampler.pick(std::span<const float>()), ShapeError);
    const std::vector<float> with_nan{1.0F, std::nanf("")};
    EXPECT_THROW((void)sampler.pick(std::span<const float>(with_nan)), ShapeError);
}

}  // namespace
}  // namespace topos
