// cross_entropy with label smoothing: its value and its gradient against the
// definitions written out in double (log-sum-exp by hand, and the gradient
// (softmax - target) / batch), the unsmoothed loss unchanged, and the errors.
#include <topos/core/error.hpp>
#include <topos/graph/network.hpp>
#include <topos/graph/tape.hpp>
#include <topos/graph/value.hpp>
#include <topos/run/run.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <vector>

namespace topos {
namespace {

using ::testing::HasSubstr;

constexpr std::size_t batch = 4;
constexpr std::size_t classes = 5;

const std::vector<double> some_logits = {0.3,  -1.2, 2.5,  0.0,  0.7,   // row 0
                                         -0.4, 0.9,  0.1,  -2.2, 1.6,   // row 1
                                         3.1,  2.9,  -0.5, 0.2,  -1.0,  // row 2
                                         0.0,  0.0,  0.0,  0.0,  0.0};  // row 3
const std::vector<double> some_labels = {2, 4, 1, 0};

// The smoothed target of `row`: 1 - s + s / classes on the label, s / classes elsewhere.
double target(std::size_t row, std::size_t c, double smoothing) {
    const double spread = smoothing / static_cast<double>(classes);
    return (static_cast<double>(c) == some_labels[row] ? 1 - smoothing : 0.0) + spread;
}

std::vector<double> softmax_row(std::size_t row) {
    const double* logits = &some_logits[row * classes];
    double largest = logits[0];
    for (std::size_t c = 1; c < classes; ++c) {
        largest = std::max(largest, logits[c]);
    }
    double total = 0;
    for (std::size_t c = 0; c < classes; ++c) {
        total += std::exp(logits[c] - largest);
    }
    std::vector<double> probabilities(classes);
    for (std::size_t c = 0; c < classes; ++c) {
        probabilities[c] = std::exp(logits[c] - largest) / total;
    }
    return probabilities;
}

double expected_loss(double smoothing) {
    double loss = 0;
    for (std::size_t row = 0; row < batch; ++row) {
        const std::vector<double> probabilities = softmax_row(row);
        for (std::size_t c = 0; c < classes; ++c) {
            loss -= target(row, c, smoothing) * std::log(probabilities[c]);
        }
    }
    return loss / batch;
}

double expected_gradient(std::size_t row, std::size_t c, double smoothing) {
    return (softmax_row(row)[c] - target(row, c, smoothing)) / batch;
}

struct Recorded {
    Network<double> network;
    Symbol logits;
    Symbol loss;
};

Recorded record_loss(const CrossEntropyOptions& options) {
    auto [network, logits, loss] = Tape<double>::record([&](Tape<double>& tape) {
        const auto logits = tape.parameter(Tensor<double>(Shape{batch, classes}, some_logits));
        const auto labels = tape.indices(Tensor<double>(Shape{batch}, some_labels));
        return detach(logits, cross_entropy(logits, labels, options));
    });
    return {std::move(network), logits, loss};
}

TEST(CrossEntropy, SmoothedLossAndGradientMatchTheirDefinitions) {
    for (const double smoothing : {0.0, 0.1, 0.5, 1.0}) {
        const Recorded recorded = record_loss({.label_smoothing = smoothing});
        const topos::Run<double> run = recorded.network.forward(recorded.network.parameters(), {});
        EXPECT_NEAR(run.of(recorded.loss).scalar(), expected_loss(smoothing), 1e-14)
            << "smoothing " << smoothing;
        const Tensor<double> gradient = run.backward(recorded.loss).of(recorded.logits);
        for (std::size_t row = 0; row < batch; ++row) {
            for (std::size_t c = 0; c < classes; ++c) {
                EXPECT_NEAR(
                    gradient.data()[row * classes + c], expected_gradient(row, c, smoothing), 1e-15)
                    << "smoothing " << smoothing << ", row " << row << ", class " << c;
            }
        }
    }
}

TEST(CrossEntropy, WithoutSmoothingRecordsTheSameGraphAsThePlainLoss) {
    auto [plain, plain_loss] = Tape<double>::record([](Tape<double>& tape) {
        const auto logits = tape.parameter(Tensor<double>(Shape{batch, classes}, some_logits));
        const auto labels = tape.indices(Tensor<double>(Shape{batch}, some_labels));
        return detach(cross_entropy(logits, labels));
    });
    const Recorded unsmoothed = record_loss({.label_smoothing = 0});
    EXPECT_EQ(unsmoothed.network.describe(), plain.describe());
}

TEST(CrossEntropy, RefusesASmoothingOutsideZeroToOne) {
    for (const double smoothing : {-0.1, 1.5, std::nan("")}) {
        Tape<double> tape;
        const auto logits = tape.parameter(Tensor<double>(Shape{batch, classes}, some_logits));
        const auto labels = tape.indices(Tensor<double>(Shape{batch}, some_labels));
        try {
            cross_entropy(logits, labels, {.label_smoothing = smoothing});
            ADD_FAILURE() << "smoothing " << smoothing << " was accepted";
        } catch (const Error& error) {
            EXPECT_THAT(error.what(), HasSubstr("label smoothing is a probability in [0, 1]"));
        }
    }
}

TEST(CrossEntropy, RefusesLogitsThatAreNotRowsOfClasses) {
    Tape<double> tape;
    const auto logits = tape.parameter(Tensor<double>::filled(Shape{2, 3, 4}, 0.0));
    const auto labels = tape.indices(Tensor<double>(Shape{2}, {0, 1}));
    EXPECT_THROW(cross_entropy(logits, labels, {.label_smoothing = 0.1}), ShapeError);
}

}  // namespace
}  // namespace topos
