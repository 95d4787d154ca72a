// The losses against PyTorch and against finite differences. Each case of
// tests/golden/losses/torch_values.json (written by tools/torch-loss-values.py
// with torch.nn.functional in float64) gives the operands, torch's value and the
// gradient of its sum with respect to the first operand; topos records the same
// loss, and the interpreter's value and reverse-scan gradient must agree to a
// few ulps of double. The derivative of every loss is also checked against
// central differences of the interpreter alone, and every argument check
// refuses before anything is recorded.
#include "support/finite_differences.hpp"
#include <topos/topos.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

namespace topos {
namespace {

using ::testing::HasSubstr;
using Json = nlohmann::json;

Tensor<double> tensor_of(const Json& operand) {
    std::vector<std::size_t> extents = operand.at("shape").get<std::vector<std::size_t>>();
    return Tensor<double>(Shape(std::span<const std::size_t>(extents)),
                          operand.at("values").get<std::vector<double>>());
}

Reduction reduction_of(const std::string& name) {
    if (name == "sum") {
        return Reduction::Sum;
    }
    return name == "none" ? Reduction::None : Reduction::Mean;
}

// The loss a case names, recorded over a (a parameter) and b.
Value<double> record_loss(const Json& c, const Value<double>& a, const Value<double>& b) {
    const std::string loss = c.at("loss");
    const Json& options = c.at("options");
    const Reduction reduction = reduction_of(options.at("reduction"));
    if (loss == "cross_entropy") {
        return cross_entropy(
            a,
            b,
            {.label_smoothing = options.value("label_smoothing", 0.0), .reduction = reduction});
    }
    if (loss == "nll") {
        return nll(a.log_softmax(1), b, {.reduction = reduction});
    }
    if (loss == "binary_cross_entropy_with_logits") {
        return binary_cross_entropy_with_logits(a, b, {.reduction = reduction});
    }
    if (loss == "mse") {
        return mse(a, b, {.reduction = reduction});
    }
    return huber(a, b, {.delta = options.at("delta"), .reduction = reduction});
}

bool takes_labels(const Json& c) {
    return c.at("loss") == "cross_entropy" || c.at("loss") == "nll";
}

Json torch_cases() {
    std::ifstream in(std::string(TOPOS_SOURCE_DIR) + "/tests/golden/losses/torch_values.json");
    return Json::parse(in).at("cases");
}

// Within 16 ulps of the larger magnitude, or of 1 below it: torch and topos
// compute exp, log and log1p with different libraries, and torch forms
// log(1 + exp(-30)) as log(exp(-30) + 1), rounding 1 + 9.4e-14 first (it gives
// 9.348e-14; topos's softplus gives the correctly rounded 9.3576e-14).
void expect_close(double topos, double torch, const std::string& where) {
    const double scale = std::max({std::abs(topos), std::abs(torch), 1.0});
    EXPECT_LE(std::abs(topos - torch), 16 * 0x1p-52 * scale)
        << where << ": topos " << topos << ", torch " << torch;
}

TEST(Losses, AgreeWithPyTorchInValueAndGradient) {
    const Json cases = torch_cases();
    ASSERT_EQ(cases.size(), 19u);
    for (const Json& c : cases) {
        const std::string name = c.at("loss").get<std::string>() + ' ' + c.at("options").dump();
        Tape<double> tape;
        const Value<double> a = tape.parameter(tensor_of(c.at("a")));
        const Value<double> b =
            takes_labels(c) ? tape.indices(tensor_of(c.at("b"))) : tape.input(tensor_of(c.at("b")));
        const Value<double> loss = record_loss(c, a, b);
        const Symbol total = loss.sum();
        const Symbol loss_symbol = loss;
        const Symbol weight = a;
        const Network<double> network = std::move(tape).into_network();
        const topos::Run<double> run = network.forward(network.parameters());

        const std::vector<double> value = c.at("value");
        const Tensor<double>& computed = run.of(loss_symbol);
        ASSERT_EQ(computed.elements(), value.size()) << name;
        for (std::size_t i = 0; i < value.size(); ++i) {
            expect_close(computed.data()[i], value[i], name + " value " + std::to_string(i));
        }
        const std::vector<double> gradient = c.at("gradient");
        const Tensor<double> scanned = run.backward(total).of(weight);
        ASSERT_EQ(scanned.elements(), gradient.size()) << name;
        for (std::size_t i = 0; i < gradient.size(); ++i) {
            expect_close(scanned.data()[i], gradient[i], name + " gradient " + std::to_string(i));
        }
    }
}

// Two points 1e-6 apart: huber's second derivative jumps where |a - b| = delta
// (one case sits there), which costs a stencil of step h an error of about h / 4.
TEST(Losses, GradientsAgreeWithFiniteDifferences) {
    const test::DifferenceOptions kink_safe{.step = 1e-6, .stencil = test::Stencil::TwoPoint};
    for (const Json& c : torch_cases()) {
        Tape<double> tape;
        const Value<double> a = tape.parameter(tensor_of(c.at("a")));
        const Value<double> b =
            takes_labels(c) ? tape.indices(tensor_of(c.at("b"))) : tape.input(tensor_of(c.at("b")));
        const Symbol total = record_loss(c, a, b).sum();
        const Symbol weight = a;
        const Network<double> network = std::move(tape).into_network();
        const Parameters<double> parameters = network.parameters();
        const Tensor<double> scanned = network.forward(parameters).backward(total).of(weight);
        const Tensor<double>& point = parameters.of(weight);
        for (std::size_t i = 0; i < point.elements(); ++i) {
            const std::vector<double> difference = test::central_difference(
                [&](double t) {
                    std::vector<double> moved(point.data().begin(), point.data().end());
                    moved[i] += t;
                    const Parameters<double> shifted =
                        parameters.with(weight, Tensor<double>(point.shape(), moved));
                    return std::vector<double>{network.forward(shifted).of(total).scalar()};
                },
                kink_safe);
            EXPECT_NEAR(scanned.data()[i], difference[0], 1e-6)
                << c.at("loss") << ' ' << c.at("options").dump() << " element " << i;
        }
    }
}

TEST(Losses, CrossEntropyRecordsTheGraphOfItsDefinition) {
    const auto recorded = [](bool by_hand) {
        Tape<double> tape;
        const auto logits = tape.parameter(Tensor<double>::filled({2, 3}, 0.5));
        const auto labels = tape.indices(Shape{2}, {0, 2});
        if (by_hand) {
            const auto log_probabilities = logits.log_softmax(1);
            const auto chosen = labels.one_hot(3);
            (void)-(log_probabilities * chosen).sum(1).mean();
        } else {
            (void)cross_entropy(logits, labels);
        }
        return tape.describe();
    };
    EXPECT_EQ(recorded(false), recorded(true));
}

std::string message_of(const std::function<void()>& call) {
    try {
        call();
    } catch (const Error& error) {
        return error.what();
    }
    return "(no error)";
}

TEST(Losses, RefuseTheirArgumentsInTheirOwnTermsBeforeRecording) {
    Tape<double> tape;
    const auto logits = tape.parameter(Tensor<double>::filled({4, 3}, 0.5));
    const auto five = tape.indices(Shape{5}, {0, 1, 2, 0, 1});
    const auto reals = tape.input(Tensor<double>::filled({4}, 1.0));
    const auto other = tape.parameter(Tensor<double>::filled({4, 2}, 0.5));
    const std::size_t nodes = tape.nodes().size();
    EXPECT_THAT(message_of([&] { (void)cross_entropy(logits, five); }),
                HasSubstr("cross_entropy of node 0 [4, 3] (the logits), node 1 [5] (the labels): "
                          "the labels must be [4], one per row of the logits"));
    EXPECT_THAT(message_of([&] { (void)nll(logits, reals); }),
                HasSubstr("the labels must hold indices: record them with tape.indices"));
    EXPECT_THAT(message_of([&] { (void)binary_cross_entropy_with_logits(logits, other); }),
                HasSubstr("binary_cross_entropy_with_logits of node 0 [4, 3], node 3 [4, 2]"));
    EXPECT_THAT(message_of([&] { (void)mse(logits, other); }), HasSubstr("one shape"));
    EXPECT_THAT(message_of([&] { (void)huber(logits, logits, {.delta = 0}); }),
                HasSubstr("delta must be positive"));
    EXPECT_EQ(tape.nodes().size(), nodes);
}

TEST(Flatten, MergesTheAxesFromItsStartAxis) {
    Tape<double> tape;
    const auto x = tape.input(Tensor<double>::filled({2, 3, 4, 5}, 1.0));
    EXPECT_EQ(x.flatten().shape(), (Shape{120}));
    EXPECT_EQ(flatten(x, 1).shape(), (Shape{2, 60}));
    EXPECT_EQ(flatten(x, 3).shape(), (Shape{2, 3, 4, 5}));
    EXPECT_EQ(tape.leaf(Tensor<double>(2.0)).flatten().shape(), (Shape{1}));
    EXPECT_THAT(message_of([&] { (void)x.flatten(4); }),
                HasSubstr("start_axis 4 is not an axis of a rank 4 value"));
}

}  // namespace
}  // namespace topos
