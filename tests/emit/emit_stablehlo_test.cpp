// Plan::emit_stablehlo: the seeds' module exactly, results in declaration
// order, constants that parse back to their bits, the error that names the node
// that cannot lower, both forms carrying the same operations, every opcode of
// the catalog lowering, and the goldens of tests/golden/stablehlo/ (rewritten
// with TOPOS_UPDATE_GOLDEN=1, to be reviewed by hand against the spec).
#include "support/emission_corpus.hpp"
#include <topos/core/error.hpp>
#include <topos/topos.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace topos {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// The getting-started graph: loss = (w x - y)^2.
Network<double> scalar_chain() {
    Tape<double> tape;
    auto w = tape.parameter(0.0);
    auto x = tape.input(0.0);
    auto y = tape.input(0.0);
    auto error = w * x - y;
    (void)(error * error);
    return std::move(tape).into_network();
}

TEST(EmitStablehlo, WritesTheSeedsModuleForTheScalarChain) {
    const Network<double> network = scalar_chain();
    const std::string expected =
        "module @topos {\n"
        "  func.func @main(%arg0: tensor<f64>, %arg1: tensor<f64>, %arg2: tensor<f64>) -> "
        "(tensor<f64>) {\n"
        "    %v3 = stablehlo.multiply %arg0, %arg1 : tensor<f64>\n"
        "    %v4 = stablehlo.subtract %v3, %arg2 : tensor<f64>\n"
        "    %v5 = stablehlo.multiply %v4, %v4 : tensor<f64>\n"
        "    return %v5 : tensor<f64>\n"
        "  }\n"
        "}\n";
    EXPECT_EQ(network.entry({network.nodes()[5].symbol()}).lower().emit_stablehlo(), expected);
}

TEST(EmitStablehlo, WritesTheGenericFormOfTheScalarChain) {
    const Network<double> network = scalar_chain();
    const std::string expected =
        "\"builtin.module\"() ({\n"
        "  \"func.func\"() ({\n"
        "  ^bb0(%arg0: tensor<f64>, %arg1: tensor<f64>, %arg2: tensor<f64>):\n"
        "    %v3 = \"stablehlo.multiply\"(%arg0, %arg1) : (tensor<f64>, tensor<f64>) -> "
        "tensor<f64>\n"
        "    %v4 = \"stablehlo.subtract\"(%v3, %arg2) : (tensor<f64>, tensor<f64>) -> "
        "tensor<f64>\n"
        "    %v5 = \"stablehlo.multiply\"(%v4, %v4) : (tensor<f64>, tensor<f64>) -> "
        "tensor<f64>\n"
        "    \"func.return\"(%v5) : (tensor<f64>) -> ()\n"
        "  }) {function_type = (tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>), "
        "sym_name = \"main\"} : () -> ()\n"
        "}) {sym_name = \"topos\"} : () -> ()\n";
    EXPECT_EQ(
        network.entry({network.nodes()[5].symbol()}).lower().emit_stablehlo(MlirForm::Generic),
        expected);
}

TEST(EmitStablehlo, ReturnsRootsThenObservedValuesInDeclarationOrder) {
    Tape<float> tape;
    auto a = tape.parameter(Tensor<float>({2}, {1.0f, 2.0f}));
    auto b = tape.input(Tensor<float>({2, 3}, std::vector<float>(6, 0.5f)));
    auto doubled = a + a;             // node 2, [2]
    auto total = b.sum();             // node 3, []
    auto scaled = doubled * doubled;  // node 4, [2]
    const auto network = std::move(tape).into_network();
    const auto plan = network.entry({scaled, total}).observe({doubled, a}).lower();
    const std::string text = plan.emit_stablehlo();
    EXPECT_THAT(text,
                HasSubstr(") -> (tensor<2xf32>, tensor<f32>, tensor<2xf32>, tensor<2xf32>) {\n"));
    EXPECT_THAT(text,
                HasSubstr("    return %v4, %v3, %v2, %arg0 : tensor<2xf32>, tensor<f32>, "
                          "tensor<2xf32>, tensor<2xf32>\n"));
    EXPECT_THAT(plan.emit_stablehlo(MlirForm::Generic),
                HasSubstr("\"func.return\"(%v4, %v3, %v2, %arg0)"));
}

TEST(EmitStablehlo, TakesOnlyScheduledSourcesAsArgumentsInNodeOrder) {
    Tape<double> tape;
    auto unused = tape.parameter(1.0);
    auto x = tape.input(2.0);
    auto w = tape.parameter(3.0);
    (void)(unused * unused);
    auto product = w * x;
    const auto network = std::move(tape).into_network();
    const std::string text = network.entry({product}).lower().emit_stablehlo();
    EXPECT_THAT(text, HasSubstr("func.func @main(%arg0: tensor<f64>, %arg1: tensor<f64>)"));
    EXPECT_THAT(text, HasSubstr("%v4 = stablehlo.multiply %arg1, %arg0 : tensor<f64>"));
    EXPECT_EQ(text.find("%v3"), std::string::npos) << text;
}

// The literals inside `dense<...>` of the constant that stands for node `index`.
std::vector<std::string> literals_of(const std::string& text, std::uint32_t index) {
    const std::string head = "%v" + std::to_string(index) + " = stablehlo.constant dense<";
    const std::size_t start = text.find(head);
    if (start == std::string::npos) {
        return {};
    }
    const std::size_t body = start + head.size();
    std::string inside = text.substr(body, text.find('>', body) - body);
    std::vector<std::string> literals;
    std::string current;
    for (char c : inside + ',') {
        if (c == ',') {
            literals.push_back(current);
            current.clear();
        } else if (c != '[' && c != ']' && c != ' ') {
            current += c;
        }
    }
    return literals;
}

// How MLIR reads a float literal: a hexadecimal literal is the bits; a decimal
// one is parsed as a double, then rounded to the element type.
template <class T>
T parse_like_mlir(const std::string& literal) {
    if (literal.rfind("0x", 0) == 0) {
        const std::uint64_t bits = std::stoull(literal.substr(2), nullptr, 16);
        if constexpr (sizeof(T) == 4) {
            return std::bit_cast<float>(static_cast<std::uint32_t>(bits));
        } else {
            return std::bit_cast<double>(bits);
        }
    }
    EXPECT_NE(literal.find('.'), std::string::npos) << literal << " has no decimal point";
    return static_cast<T>(std::strtod(literal.c_str(), nullptr));
}

template <class T>
void expect_leaf_round_trip(const std::vector<T>& values) {
    Tape<T> tape;
    auto leaf = tape.leaf(Tensor<T>({values.size()}, values));
    auto x = tape.input(Tensor<T>({values.size()}, std::vector<T>(values.size(), T(1))));
    auto product = leaf * x;
    const auto network = std::move(tape).into_network();
    const std::string text = network.entry({product}).lower().emit_stablehlo();
    const std::vector<std::string> literals = literals_of(text, 0);
    ASSERT_EQ(literals.size(), values.size()) << text;
    for (std::size_t i = 0; i < values.size(); ++i) {
        const T parsed = parse_like_mlir<T>(literals[i]);
        EXPECT_EQ(std::memcmp(&parsed, &values[i], sizeof(T)), 0)
            << literals[i] << " does not read back as " << values[i];
    }
}

TEST(EmitStablehlo, WritesLeafLiteralsThatParseBackToTheSameBits) {
    expect_leaf_round_trip<float>({0.1f,
                                   1e-5f,
                                   -0.0f,
                                   3.0f,
                                   0.75025934f,
                                   std::numeric_limits<float>::max(),
                                   std::numeric_limits<float>::denorm_min(),
                                   std::numeric_limits<float>::min(),
                                   16777217.0f,
                                   -2.5e-38f});
    expect_leaf_round_trip<double>({0.1,
                                    0.6397000000000002,
                                    -0.0,
                                    1e300,
                                    std::numeric_limits<double>::denorm_min(),
                                    std::numeric_limits<double>::max(),
                                    2.0,
                                    -1.0 / 3.0});
}

TEST(EmitStablehlo, SpellsNonFiniteConstantsAsTheirBitsInHexadecimal) {
    const float inf = std::numeric_limits<float>::infinity();
    Tape<float> tape;
    auto leaf = tape.leaf(Tensor<float>({3}, {inf, -inf, std::numeric_limits<float>::quiet_NaN()}));
    auto exponential = leaf.exp();
    const auto network = std::move(tape).into_network();
    const std::string text = network.entry({exponential}).lower().emit_stablehlo();
    EXPECT_THAT(text,
                HasSubstr("%v0 = stablehlo.constant dense<[0x7F800000, 0xFF800000, 0x7FC00000]> "
                          ": tensor<3xf32>"));
    expect_leaf_round_trip<double>({std::numeric_limits<double>::infinity(),
                                    -std::numeric_limits<double>::infinity(),
                                    std::numeric_limits<double>::quiet_NaN()});
    Tape<double> doubles;
    auto scalar = doubles.leaf(Tensor<double>(std::numeric_limits<double>::infinity())).exp();
    const auto scalars = std::move(doubles).into_network();
    EXPECT_THAT(scalars.entry({scalar}).lower().emit_stablehlo(),
                HasSubstr("stablehlo.constant dense<0x7FF0000000000000> : tensor<f64>"));
}

TEST(EmitStablehlo, WritesAConstantOfEqualElementsAsASplat) {
    Tape<double> tape;
    auto hyperbolic = tape.leaf(Tensor<double>::filled({2, 3}, 1.5)).tanh();
    const auto network = std::move(tape).into_network();
    EXPECT_THAT(network.entry({hyperbolic}).lower().emit_stablehlo(),
                HasSubstr("%v0 = stablehlo.constant dense<1.5> : tensor<2x3xf64>"));
}

// StableHLO's gather slices one table row at a time; a table without rows has
// none to slice, though topos gathers nothing from it without complaint.
TEST(EmitStablehlo, NamesTheNodeAndOpcodeWhenAPlanCannotLower) {
    Tape<double> tape;
    auto table = tape.parameter(Tensor<double>::filled({0, 3}, 0.0));
    auto picks = tape.indices(Tensor<double>::filled({0}, 0.0));
    auto rows = gather(table, picks);
    const auto network = std::move(tape).into_network();
    const auto plan = network.entry({rows}).lower();
    EXPECT_EQ(plan.forward(network.parameters()).of(rows).shape(), (Shape{0, 3}));
    try {
        (void)plan.emit_stablehlo();
        FAIL() << "a gather from a table without rows was emitted";
    } catch (const EmitError& error) {
        EXPECT_THAT(error.what(), HasSubstr("node 2 (Gather)"));
        EXPECT_THAT(error.what(), HasSubstr("has none"));
    }
}

// The operations at @main's level, as (result, operation name) pairs.
std::vector<std::pair<std::string, std::string>> main_operations(const std::string& text) {
    static const std::regex line(R"(^    (%[\w.]+(?::\d+)?) = "?(stablehlo\.\w+))");
    std::vector<std::pair<std::string, std::string>> operations;
    std::istringstream lines(text);
    for (std::string current; std::getline(lines, current);) {
        std::smatch match;
        if (std::regex_search(current, match, line)) {
            operations.emplace_back(match[1], match[2]);
        }
    }
    return operations;
}

class FormsAgree : public test::EmissionCorpusVisitor {
public:
    void visit(const std::string& name, const Plan<float>& plan) override { check(name, plan); }

    void visit(const std::string& name, const Plan<double>& plan) override { check(name, plan); }

    void visit(const std::string& name, const Plan<bf16>& plan) override { check(name, plan); }

    std::size_t plans = 0;

private:
    template <Element T>
    void check(const std::string& name, const Plan<T>& plan) {
        SCOPED_TRACE(name);
        const auto pretty = main_operations(plan.emit_stablehlo());
        const auto generic = main_operations(plan.emit_stablehlo(MlirForm::Generic));
        EXPECT_FALSE(pretty.empty());
        EXPECT_EQ(pretty, generic);
        ++plans;
    }
};

TEST(EmitStablehlo, PrettyAndGenericFormsCarryTheSameOperations) {
    FormsAgree agree;
    test::visit_emission_corpus(agree);
    EXPECT_GT(agree.plans, 100u);
}

// Every computed opcode lowers, in double and in bf16: the corpus holds
// inference plans per opcode, and the node under test is defined as
// %v<index> with its own type (a bf16 node: the convert of its f32 value).
class EveryOpcodeLowers : public test::EmissionCorpusVisitor {
public:
    void visit(const std::string&, const Plan<float>&) override {}

    void visit(const std::string& name, const Plan<double>& plan) override {
        check(name, plan, "f64", lowered);
    }

    void visit(const std::string& name, const Plan<bf16>& plan) override {
        check(name, plan, "bf16", lowered_bf16);
        if (is_inference(name)) {
            const std::string text = plan.emit_stablehlo();
            const std::string last = "    %v" + std::to_string(plan.nodes().back().index()) + " = ";
            EXPECT_THAT(text.substr(text.find(last)), HasSubstr("stablehlo.convert"));
        }
    }

    std::set<Opcode> lowered;
    std::set<Opcode> lowered_bf16;

private:
    static bool is_inference(const std::string& name) {
        return name.rfind("op.", 0) == 0 && name.find(".inference") != std::string::npos;
    }

    template <Element T>
    static void check(const std::string& name,
                      const Plan<T>& plan,
                      const char* element,
                      std::set<Opcode>& lowered) {
        if (!is_inference(name)) {
            return;
        }
        SCOPED_TRACE(name);
        const Node& node = plan.nodes().back();
        const std::string text = plan.emit_stablehlo();
        std::ostringstream type;
        type << "tensor<";
        for (std::size_t extent : node.shape().extents()) {
            type << extent << 'x';
        }
        type << element << '>';
        EXPECT_THAT(text, HasSubstr("    %v" + std::to_string(node.index()) + " = "));
        EXPECT_THAT(
            text,
            HasSubstr("return %v" + std::to_string(node.index()) + " : " + type.str() + "\n"));
        lowered.insert(node.opcode());
    }
};

TEST(EmitStablehlo, LowersEveryComputedOpcode) {
    EveryOpcodeLowers every;
    test::visit_emission_corpus(every);
    std::size_t computed = 0;
    for (std::size_t i = 0; i < opcode_count; ++i) {
        computed += is_source(static_cast<Opcode>(i)) ? 0 : 1;
    }
    EXPECT_EQ(every.lowered.size(), computed);
    EXPECT_EQ(every.lowered_bf16.size(), computed);
}

TEST(EmitStablehlo, EmitsMatMulAsDotGeneralWithBatchingDimensions) {
    Tape<float> tape;
    auto a = tape.parameter(Tensor<float>::filled({2, 3, 4}, 1.0f));
    auto product = a.matmul(tape.input(Tensor<float>::filled({2, 4, 5}, 1.0f)));
    const auto network = std::move(tape).into_network();
    EXPECT_THAT(network.entry({product}).lower().emit_stablehlo(),
                HasSubstr("%v2 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], "
                          "contracting_dims = [2] x [1], precision = [HIGHEST, HIGHEST] : "
                          "(tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>"));
}

// ---- raises: elected patterns as named operations ----

// The seeds' conv example (docs/guide/fusion.md): a 3x3 convolution with two
// filters, relu, a 2x2 max pool, a sum. Node 6 is the windows matrix.
struct SeedsConvNet {
    Network<float> network;
    Symbol windows;
    Symbol loss;
};

SeedsConvNet seeds_conv_net() {
    Tape<float> tape;
    auto image = tape.input(init::normal(1, 1.0)(Shape{1, 1, 6, 6}));
    auto filters = tape.parameter(init::normal(2, 0.3)(Shape{2, 1, 3, 3}));
    auto bias = tape.parameter(Tensor<float>::filled(Shape{2}, 0.0f));
    auto convolved = conv2d(image, filters, bias, 1, 0).relu();
    auto pooled = max_pool(convolved, 2, 2);
    auto loss = pooled.sum();
    const Symbol windows = tape.nodes()[6].symbol();
    return {std::move(tape).into_network(), windows, loss};
}

std::size_t occurrences(const std::string& text, const std::string& word) {
    std::size_t count = 0;
    for (std::size_t at = text.find(word); at != std::string::npos;
         at = text.find(word, at + word.size())) {
        ++count;
    }
    return count;
}

const std::vector<std::string> named_operations{"stablehlo.convolution",
                                                "stablehlo.reduce_window",
                                                "stablehlo.batch_norm_training",
                                                "stablehlo.batch_norm_inference"};

TEST(EmitStablehloRaises, SeedsConvExampleEmitsOneConvolutionAndOneReduceWindow) {
    const SeedsConvNet net = seeds_conv_net();
    const auto unfused = net.network.entry({net.loss}).elect_patterns(false).lower();
    ASSERT_GT(occurrences(unfused.emit_stablehlo(), "stablehlo.slice"), 0U);
    for (MlirForm form : {MlirForm::Pretty, MlirForm::Generic}) {
        const std::string text = net.network.entry({net.loss}).lower().emit_stablehlo(form);
        EXPECT_EQ(occurrences(text, "stablehlo.convolution"), 1U) << form;
        EXPECT_EQ(occurrences(text, "stablehlo.reduce_window"), 1U) << form;
        EXPECT_EQ(occurrences(text, "stablehlo.slice"), 0U) << form;
        EXPECT_EQ(occurrences(text, "stablehlo.dot_general"), 0U) << form;
        EXPECT_THAT(text, Not(HasSubstr("%v6 "))) << form;   // the windows matrix
        EXPECT_THAT(text, Not(HasSubstr("%v19 "))) << form;  // the pooling windows
    }
}

TEST(EmitStablehloRaises, ObservingTheWindowsMatrixEmitsTheConvolutionsOriginalOperations) {
    const SeedsConvNet net = seeds_conv_net();
    const auto plan = net.network.entry({net.loss}).observe({net.windows}).lower();
    ASSERT_EQ(plan.patterns().size(), 1U);
    const std::string text = plan.emit_stablehlo();
    EXPECT_EQ(occurrences(text, "stablehlo.convolution"), 0U);
    EXPECT_EQ(occurrences(text, "stablehlo.reduce_window"), 1U);
    EXPECT_THAT(text, HasSubstr("%v6 = stablehlo.reshape"));
    EXPECT_THAT(text, HasSubstr("%v9 = stablehlo.dot_general %v6, %v8"));
}

struct ObservedBatchNorm {
    Network<float> network;
    Symbol loss, mean, variance;
};

ObservedBatchNorm observed_batch_norm() {
    Tape<float> tape;
    auto input = tape.input(init::normal(4, 1.0)(Shape{4, 3, 2, 2}));
    auto gamma = tape.parameter(Tensor<float>::filled(Shape{3}, 1.0f));
    auto beta = tape.parameter(Tensor<float>::filled(Shape{3}, 0.0f));
    const BatchNormTraining<float> normalised = batch_norm_training(input, gamma, beta);
    auto loss = normalised.output.square().sum();
    return {std::move(tape).into_network(), loss, normalised.mean, normalised.variance};
}

TEST(EmitStablehloRaises, BatchNormTrainingReturnsTheObservedStatisticsAsItsSecondAndThirdResults) {
    const ObservedBatchNorm bn = observed_batch_norm();
    const auto plan = bn.network.entry({bn.loss}).observe({bn.mean, bn.variance}).lower();
    ASSERT_EQ(plan.patterns().size(), 1U);
    const std::string root = "%v" + std::to_string(plan.patterns()[0].root().index());
    const std::string loss = "%v" + std::to_string(bn.loss.index());
    const std::string text = plan.emit_stablehlo();
    EXPECT_THAT(text,
                HasSubstr(root + ":3 = \"stablehlo.batch_norm_training\"(%arg0, %arg1, %arg2) "
                                 "{epsilon = 1.0e-05 : f32, feature_index = 1 : i64} : "
                                 "(tensor<4x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>) -> "
                                 "(tensor<4x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>)"));
    EXPECT_THAT(text, HasSubstr("stablehlo.multiply " + root + "#0, " + root + "#0"));
    EXPECT_THAT(text, HasSubstr("return " + loss + ", " + root + "#1, " + root + "#2 : "));
    EXPECT_EQ(occurrences(text, "stablehlo.reduce("), 1U);   // the loss's sum only
    EXPECT_EQ(occurrences(text, "stablehlo.constant"), 1U);  // its init: no epsilon, no counts
}

TEST(EmitStablehloRaises, LoweringWithoutElectionsEmitsNoNamedOperation) {
    const SeedsConvNet net = seeds_conv_net();
    const ObservedBatchNorm bn = observed_batch_norm();
    const std::string conv =
        net.network.entry({net.loss}).elect_patterns(false).lower().emit_stablehlo();
    const std::string batch_norm = bn.network.entry({bn.loss})
                                       .observe({bn.mean, bn.variance})
                                       .elect_patterns(false)
                                       .lower()
                                       .emit_stablehlo();
    for (const std::string& name : named_operations) {
        EXPECT_EQ(occurrences(conv, name), 0U) << name;
        EXPECT_EQ(occurrences(batch_norm, name), 0U) << name;
    }
}

// Batch norm training of [N, C] written by hand, its mean divided by N + 1:
// elected (the structure matches), but the named operation divides by N, so
// it emits its original operations.
TEST(EmitStablehloRaises, BatchNormWhoseCountIsNotTheElementCountEmitsItsOriginalOperations) {
    Tape<float> tape;
    auto x = tape.input(Tensor<float>({3, 2}, {1.0f, 2.0f, 3.0f, 5.0f, -1.0f, 0.5f}));
    auto gamma = tape.parameter(Tensor<float>({2}, {1.0f, 2.0f}));
    auto beta = tape.parameter(Tensor<float>({2}, {0.5f, -0.5f}));
    auto sums = x.sum(0);
    auto mean = sums / tape.leaf(Tensor<float>::filled({2}, 4.0f));
    auto centred = x - mean.broadcast_along(0, 3);
    auto squares = centred.square();
    auto square_sums = squares.sum(0);
    auto variance = square_sums / tape.leaf(Tensor<float>::filled({2}, 3.0f));
    auto shifted = variance + tape.leaf(Tensor<float>::filled({2}, 1e-5f));
    auto scale = shifted.rsqrt() * gamma;
    auto scaled = centred * scale.broadcast_along(0, 3);
    auto output = scaled + beta.broadcast_along(0, 3);
    const auto network = std::move(tape).into_network();
    const auto plan = network.entry({output}).lower();
    ASSERT_EQ(plan.patterns().size(), 1U);
    ASSERT_EQ(plan.patterns()[0].kind(), PatternKind::BatchNormTraining);
    const std::string text = plan.emit_stablehlo();
    EXPECT_EQ(occurrences(text, "stablehlo.batch_norm_training"), 0U);
    EXPECT_EQ(occurrences(text, "stablehlo.reduce("), 2U);
    EXPECT_THAT(text, HasSubstr("dense<4.0> : tensor<2xf32>"));
}

// A Map election is a loop fusion: no named operation stands for it, so its
// members are written as their own operations.
TEST(EmitStablehloRaises, MapElectionEmitsItsMembersOriginalOperations) {
    Tape<float> tape;
    auto x = tape.input(Tensor<float>::filled({64, 32}, 0.5f));
    auto y = tape.parameter(Tensor<float>::filled({64, 32}, 2.0f));
    auto z = tape.parameter(Tensor<float>::filled({64, 32}, -1.0f));
    auto product = x * y;
    auto shifted = product + z;
    auto squashed = shifted.tanh();
    const auto network = std::move(tape).into_network();
    const auto plan = network.entry({squashed}).lower();
    ASSERT_EQ(plan.patterns().size(), 1U);
    ASSERT_EQ(plan.patterns()[0].kind(), PatternKind::Map);
    const std::string text = plan.emit_stablehlo();
    EXPECT_THAT(text, HasSubstr("%v3 = stablehlo.multiply %arg0, %arg1 : tensor<64x32xf32>"));
    EXPECT_THAT(text, HasSubstr("%v4 = stablehlo.add %v3, %arg2 : tensor<64x32xf32>"));
    EXPECT_THAT(text, HasSubstr("%v5 = stablehlo.tanh %v4 : tensor<64x32xf32>"));
}

// Batch norm inference of [N, C] written by hand with an epsilon that differs
// per channel: elected (the structure matches), but no named operation takes
// such an epsilon, so it emits its original operations.
TEST(EmitStablehloRaises, BatchNormWithAnEpsilonPerChannelEmitsItsOriginalOperations) {
    Tape<float> tape;
    auto x = tape.input(Tensor<float>({2, 2}, {1.0f, 2.0f, 3.0f, 5.0f}));
    auto gamma = tape.parameter(Tensor<float>({2}, {1.0f, 2.0f}));
    auto beta = tape.parameter(Tensor<float>({2}, {0.5f, -0.5f}));
    auto mean = tape.input(Tensor<float>({2}, {2.0f, 3.5f}));
    auto variance = tape.input(Tensor<float>({2}, {1.0f, 2.25f}));
    auto epsilon = tape.leaf(Tensor<float>({2}, {1e-5f, 1e-3f}));
    auto centred = x - mean.broadcast_along(0, 2);
    auto shifted = variance + epsilon;
    auto scale = shifted.rsqrt() * gamma;
    auto scaled = centred * scale.broadcast_along(0, 2);
    auto output = scaled + beta.broadcast_along(0, 2);
    const auto network = std::move(tape).into_network();
    const auto plan = network.entry({output}).lower();
    ASSERT_EQ(plan.patterns().size(), 1U);
    ASSERT_EQ(plan.patterns()[0].kind(), PatternKind::BatchNormInference);
    const std::string text = plan.emit_stablehlo();
    EXPECT_EQ(occurrences(text, "stablehlo.batch_norm_inference"), 0U);
    EXPECT_EQ(occurrences(text, "stablehlo.rsqrt"), 1U);
    EXPECT_EQ(occurrences(text, "stablehlo.broadcast_in_dim"), 3U);
}

// ---- goldens ----

std::filesystem::path golden_path(const std::string& name) {
    return std::filesystem::path(TOPOS_SOURCE_DIR) / "tests/golden/stablehlo" / (name + ".mlir");
}

void expect_golden(const std::string& name, const std::string& text) {
    const std::filesystem::path path = golden_path(name);
    if (const char* update = std::getenv("TOPOS_UPDATE_GOLDEN");
        update && std::string(update) == "1") {
        std::ofstream(path) << text;
        return;
    }
    std::ifstream in(path);
    ASSERT_TRUE(in) << path << " is missing (run with TOPOS_UPDATE_GOLDEN=1 to write it)";
    std::stringstream expected;
    expected << in.rdbuf();
    EXPECT_EQ(text, expected.str()) << "the emission differs from " << path
                                    << " (rerun with TOPOS_UPDATE_GOLDEN=1 after reviewing)";
}

TEST(EmitStablehloGolden, WalkthroughTrainingPlan) {
    Tape<float> tape;
    auto weights = tape.parameter(Tensor<float>({2, 2}, {0.5f, -0.25f, 0.25f, 0.4f}));
    auto input = tape.input(Tensor<float>({1, 2}, {1.0f, 2.0f}));
    auto hidden = input.matmul(weights).tanh();
    auto loss = (hidden * hidden).sum();
    const auto adjoints = tape.differentiate(loss, {weights});
    const auto network = std::move(tape).into_network();
    expect_golden("walkthrough_training", network.entry(adjoints.roots()).lower().emit_stablehlo());
}

// The walk-through converted to bf16: arguments, constants and every node's
// value bf16, each operation in f32 between converts (the bf16 contract), the
// literal 0.1 written as bf16's shortest decimal.
TEST(EmitStablehloGolden, WalkthroughTrainingPlanInBf16) {
    Tape<float> tape;
    auto weights = tape.parameter(Tensor<float>({2, 2}, {0.5f, -0.25f, 0.25f, 0.4f}));
    auto input = tape.input(Tensor<float>({1, 2}, {1.0f, 2.0f}));
    auto product = input.matmul(weights);  // one statement each: operands' order is unspecified
    auto shift = tape.leaf(Tensor<float>(0.1f));
    auto hidden = (product + shift).tanh();
    auto loss = (hidden * hidden).sum();
    const auto adjoints = tape.differentiate(loss, {weights});
    const auto network = std::move(tape).into_network().convert<bf16>();
    expect_golden("walkthrough_training_bf16",
                  network.entry(adjoints.roots()).lower().emit_stablehlo());
}

TEST(EmitStablehloGolden, CrossEntropyOverGatheredEmbeddings) {
    Tape<double> tape;
    auto table = tape.parameter(Tensor<double>({3, 2}, {0.1, -0.2, 0.3, 0.4, -0.5, 0.6}));
    auto tokens = tape.indices(Shape{2}, {2, 0});
    auto labels = tape.indices(Shape{2}, {1, 0});
    auto logits = gather(table, tokens);
    auto targets = labels.one_hot(2);  // one statement each: operands' order is unspecified
    auto log_probabilities = logits.log_softmax(1);
    auto loss = -(targets * log_probabilities).sum();
    const auto adjoints = tape.differentiate(loss, {table});
    const auto network = std::move(tape).into_network();
    expect_golden("cross_entropy_training",
                  network.entry(adjoints.roots()).lower().emit_stablehlo());
}

TEST(EmitStablehloGolden, UnfoldAndItsAdjointFold) {
    Tape<double> tape;
    auto signal = tape.parameter(Tensor<double>({1, 6}, {1, 2, 3, 4, 5, 6}));
    auto windows = signal.unfold(1, 2, 2, 2);
    auto loss = (windows * windows).sum();
    const auto adjoints = tape.differentiate(loss, {signal});
    const auto network = std::move(tape).into_network();
    expect_golden("unfold_training", network.entry(adjoints.roots()).lower().emit_stablehlo());
}

// Reviewed against the StableHLO specification: the convolution's operands,
// dimension numbers and window, the reduce_window's window and body.
TEST(EmitStablehloGolden, SeedsConvExampleRaised) {
    const SeedsConvNet net = seeds_conv_net();
    expect_golden("seeds_conv_raised", net.network.entry({net.loss}).lower().emit_stablehlo());
}

TEST(EmitStablehloGolden, ErfInGenericForm) {
    Tape<float> tape;
    auto error_function = tape.input(Tensor<float>({2}, {-1.0f, 0.5f})).erf();
    const auto network = std::move(tape).into_network();
    expect_golden("erf_generic",
                  network.entry({error_function}).lower().emit_stablehlo(MlirForm::Generic));
}

}  // namespace
}  // namespace topos
