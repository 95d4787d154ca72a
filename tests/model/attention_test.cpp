// Causal multi-head self-attention and the pre-norm transformer block: forward
// against a hand-written double reference, gradients against finite
// differences, and causality: the output at position t does not depend on the
// inputs after t, bit for bit.
#include "model/module_checks.hpp"
#include "support/bit_equal.hpp"
#include "support/finite_differences.hpp"
#include <topos/core/error.hpp>
#include <topos/model/attention.hpp>
#include <topos/model/transformer.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <vector>

namespace topos {
namespace {

using test::near_relative;
using test::randomised;
using test::to_doubles;

// x [rows, in] w [in, out] + b [out]
std::vector<double> affine(const std::vector<double>& x,
                           const Tensor<double>& w,
                           const Tensor<double>& b) {
    const std::size_t in = w.shape()[0];
    const std::size_t out = w.shape()[1];
    std::vector<double> y(x.size() / in * out);
    for (std::size_t r = 0; r < x.size() / in; ++r) {
        for (std::size_t o = 0; o < out; ++o) {
            double sum = b.data()[o];
            for (std::size_t i = 0; i < in; ++i) {
                sum += x[r * in + i] * w.data()[i * out + o];
            }
            y[r * out + o] = sum;
        }
    }
    return y;
}

struct Projections {
    Tensor<double> wq, bq, wk, bk, wv, bv, wo, bo;
};

// The attention of one head `h` at query position t over keys 0..t, into ctx.
void attend(const std::vector<double>& q,
            const std::vector<double>& k,
            const std::vector<double>& v,
            std::size_t width,
            std::size_t head_width,
            std::size_t base,
            std::size_t h,
            std::size_t t,
            std::vector<double>& ctx) {
    std::vector<double> weights(t + 1);
    double largest = -std::numeric_limits<double>::infinity();
    for (std::size_t u = 0; u <= t; ++u) {
        double dot = 0;
        for (std::size_t d = 0; d < head_width; ++d) {
            dot +=
                q[base + t * width + h * head_width + d] * k[base + u * width + h * head_width + d];
        }
        weights[u] = dot / std::sqrt(static_cast<double>(head_width));
        largest = std::max(largest, weights[u]);
    }
    double total = 0;
    for (double& w : weights) {
        w = std::exp(w - largest);
        total += w;
    }
    for (std::size_t d = 0; d < head_width; ++d) {
        double sum = 0;
        for (std::size_t u = 0; u <= t; ++u) {
            sum += weights[u] / total * v[base + u * width + h * head_width + d];
        }
        ctx[base + t * width + h * head_width + d] = sum;
    }
}

std::vector<double> attention_reference(const Tensor<double>& x,
                                        const Projections& p,
                                        std::size_t heads) {
    const std::size_t batch = x.shape()[0];
    const std::size_t sequence = x.shape()[1];
    const std::size_t width = x.shape()[2];
    const std::vector<double> input = to_doubles(x);
    const std::vector<double> q = affine(input, p.wq, p.bq);
    const std::vector<double> k = affine(input, p.wk, p.bk);
    const std::vector<double> v = affine(input, p.wv, p.bv);
    std::vector<double> ctx(input.size());
    for (std::size_t b = 0; b < batch; ++b) {
        for (std::size_t h = 0; h < heads; ++h) {
            for (std::size_t t = 0; t < sequence; ++t) {
                attend(q, k, v, width, width / heads, b * sequence * width, h, t, ctx);
            }
        }
    }
    return affine(ctx, p.wo, p.bo);
}

TEST(CausalSelfAttention, ForwardMatchesTheReference) {
    Tape<double> tape;
    const CausalSelfAttention<double> attention(tape, 6, 3, init::xavier(1));
    const Tensor<double> x = init::normal(2, 1.0)(Shape{2, 4, 6});
    const Value<double> y = attention.express(tape.input(x));
    EXPECT_EQ(y.shape(), (Shape{2, 4, 6}));
    const CausalSelfAttention<double>& a = attention;
    const std::vector<Symbol> order{a.query().weight(),
                                    a.query().bias(),
                                    a.key().weight(),
                                    a.key().bias(),
                                    a.value().weight(),
                                    a.value().bias(),
                                    a.output().weight(),
                                    a.output().bias()};
    const Network<double> network = std::move(tape).into_network();
    const Parameters<double> parameters = randomised(network, 3);
    const Projections p{parameters.of(order[0]),
                        parameters.of(order[1]),
                        parameters.of(order[2]),
                        parameters.of(order[3]),
                        parameters.of(order[4]),
                        parameters.of(order[5]),
                        parameters.of(order[6]),
                        parameters.of(order[7])};
    EXPECT_TRUE(near_relative(
        to_doubles(network.forward(parameters).of(y)), attention_reference(x, p, 3), 1e-13));
}

TEST(CausalSelfAttention, GradientsMatchFiniteDifferences) {
    Tape<double> tape;
    const CausalSelfAttention<double> attention(tape, 4, 2, init::xavier(4));
    const Value<double> x = tape.input(init::normal(5, 1.0)(Shape{2, 3, 4}));
    const test::Weighted weighted = test::weighted_loss(tape, attention.express(x), 6);
    const std::vector<Symbol> sources = test::input_and_parameters(x, attention);
    const Network<double> network = std::move(tape).into_network();
    test::expect_gradients_match_finite_differences(
        network, randomised(network, 7), {}, weighted, sources);
}

// Changes every input after position t, then compares outputs up to t.
template <class Block>
void expect_causal(std::size_t width, const Block& make) {
    Tape<double> tape;
    const auto module = make(tape);
    const Tensor<double> x = init::normal(20, 1.0)(Shape{2, 5, width});
    const Value<double> input = tape.input(x);
    const Symbol y = module.express(input);
    const Network<double> network = std::move(tape).into_network();
    const Parameters<double> parameters = randomised(network, 21);
    const Tensor<double> before = network.forward(parameters, {{input, x}}).of(y);
    for (std::size_t t = 0; t < 5; ++t) {
        const Tensor<double> noise = init::normal(30 + t, 3.0)(x.shape());
        const Tensor<double> changed =
            Tensor<double>::generate(x.shape(), [&](std::span<double> out) {
                for (std::size_t i = 0; i < out.size(); ++i) {
                    const std::size_t position = i / width % 5;
                    out[i] = x.data()[i] + (position > t ? noise.data()[i] : 0.0);
                }
            });
        const Tensor<double> after = network.forward(parameters, {{input, changed}}).of(y);
        for (std::size_t i = 0; i < after.elements(); ++i) {
            const std::size_t position = i / width % 5;
            if (position <= t) {
                ASSERT_EQ(test::bits_of(after.data()[i]), test::bits_of(before.data()[i]))
                    << "output element " << i << " at position " << position
                    << " changed when only inputs after position " << t << " did";
            } else if (t + 1 == position) {
                EXPECT_NE(after.data()[i], before.data()[i]);
            }
        }
    }
}

TEST(CausalSelfAttention, OutputAtPositionTDoesNotDependOnLaterInputs) {
    expect_causal(6, [](Tape<double>& tape) {
        return CausalSelfAttention<double>(tape, 6, 2, init::xavier(22));
    });
}

TEST(CausalSelfAttention, RefusesHeadsThatDoNotDivideTheWidth) {
    Tape<float> tape;
    EXPECT_THROW(CausalSelfAttention<float>(tape, 6, 4, init::xavier(1)), ShapeError);
    const CausalSelfAttention<float> attention(tape, 6, 3, init::xavier(1));
    EXPECT_THROW((void)attention.express(tape.input(Tensor<float>::filled(Shape{4, 6}, 1.0f))),
                 ShapeError);
}

TEST(TransformerBlock, ForwardIsTheResidualCompositionOfItsModules) {
    Tape<double> tape;
    const TransformerBlock<double> block(tape, 4, 2, 8, init::xavier(40));
    const Tensor<double> x = init::normal(41, 1.0)(Shape{2, 3, 4});
    const Value<double> input = tape.input(x);
    const Value<double> y = block.express(input);
    // The same composition written out over the block's own modules.
    const Value<double> h = input + block.attention().express(block.norm1().express(input));
    const Value<double> expected = h + block.mlp().express(block.norm2().express(h));
    const Network<double> network = std::move(tape).into_network();
    const auto run = network.forward(randomised(network, 42));
    test::expect_bit_equal(run.of(y), run.of(expected));
    EXPECT_EQ(block.parameters().size(), 2 + 8 + 2 + 4u);
}

TEST(TransformerBlock, GradientsMatchFiniteDifferences) {
    Tape<double> tape;
    const TransformerBlock<double> block(tape, 4, 2, 6, init::xavier(43));
    const Value<double> x = tape.input(init::normal(44, 1.0)(Shape{1, 3, 4}));
    const test::Weighted weighted = test::weighted_loss(tape, block.express(x), 45);
    const std::vector<Symbol> sources = test::input_and_parameters(x, block);
    const Network<double> network = std::move(tape).into_network();
    test::expect_gradients_match_finite_differences(
        network, randomised(network, 46), {}, weighted, sources, 1e-6);
}

TEST(TransformerBlock, OutputAtPositionTDoesNotDependOnLaterInputs) {
    expect_causal(4, [](Tape<double>& tape) {
        return TransformerBlock<double>(tape, 4, 2, 8, init::xavier(47));
    });
}

TEST(TransformerBlock, DescribeListsItsModules) {
    Tape<float> tape;
    const TransformerBlock<float> block(tape, 4, 2, 8, init::xavier(1));
    const std::string text = block.describe();
    EXPECT_NE(text.find("TransformerBlock (pre-norm)\n  LayerNorm(4"), std::string::npos) << text;
    EXPECT_NE(text.find("CausalSelfAttention(width 4, 2 heads of 2)"), std::string::npos) << text;
    EXPECT_NE(text.find("Mlp(4 -> 8 -> 4, gelu)"), std::string::npos) << text;
}

}  // namespace
}  // namespace topos
