// What a program computes is what the same computation written directly with
// the topos C++ API computes, bit for bit: the values through Network::forward
// and the gradients through the engine's reverse scan (Run::backward), a road
// independent of the recorded derivative the program's readings run. Sources
// are made by the documented rule: uniform in [-1, 1), seeded by their line.
#include "program_files.hpp"
#include <topos/lang/readings.hpp>
#include <topos/topos.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace topos::lang {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Tensor<float> seeded(std::uint64_t line, Shape shape) {
    return init::uniform(line, -1.0, 1.0)(shape);
}

// A program's analysis, and its values and gradients read by name.
struct Analysed {
    Analysis analysis;

    const Tensor<float>& value(const std::string& name) const {
        return analysis.run.of(statement(name).symbol);
    }

    const Tensor<float>& gradient(const std::string& parameter) const {
        return analysis.run.of(analysis.adjoints.of(statement(parameter).symbol));
    }

    // Any statement's value, through the whole-spec oracle (Network::forward).
    Tensor<float> any_value(const std::string& name) const {
        const Network<float>& network = analysis.network;
        return network.forward(network.parameters()).of(statement(name).symbol);
    }

    const Statement& statement(const std::string& name) const {
        for (const Statement& statement : analysis.statements) {
            if (statement.name == name) {
                return statement;
            }
        }
        throw OptionError("no statement " + name);
    }
};

Analysed analysed(const std::string& program, const ReadingOptions& options = {}) {
    return {analyse(compile(test::program_text(program)), options)};
}

// The direct computation: its network's forward run and the reverse scan from `loss`.
struct Direct {
    Network<float> network;
    Run<float> run;
    Field<float> field;

    Direct(Tape<float>&& tape, Symbol loss)
        : network(std::move(tape).into_network()),
          run(network.forward(network.parameters())),
          field(run.backward(loss)) {}
};

#define EXPECT_BITS(from_program, direct)         \
    EXPECT_TRUE((from_program).bit_equal(direct)) \
        << "the program computed " << (from_program) << ", the API " << (direct)

TEST(ProgramValues, TheWalkthroughComputesWhatTheApiComputes) {
    const Analysed program = analysed("walkthrough", {.observed = "hidden"});
    Tape<float> tape;
    auto weights = tape.parameter(seeded(4, {2, 2}));
    auto x = tape.input(seeded(5, {1, 2}));
    auto hidden = x.matmul(weights).tanh();
    auto loss = (hidden * hidden).sum();
    const Direct direct(std::move(tape), loss);
    EXPECT_BITS(program.value("hidden"), direct.run.of(hidden));
    EXPECT_BITS(program.value("loss"), direct.run.of(loss));
    EXPECT_BITS(program.gradient("weights"), direct.field.of(weights));
}

TEST(ProgramValues, TheValuesReadingPrintsTheDirectlyComputedTensors) {
    const Analysed program = analysed("walkthrough", {.observed = "hidden"});
    const std::string values = read(program.analysis).values;
    Tape<float> tape;
    auto weights = tape.parameter(seeded(4, {2, 2}));
    auto hidden = tape.input(seeded(5, {1, 2})).matmul(weights).tanh();
    auto loss = (hidden * hidden).sum();
    const Direct direct(std::move(tape), loss);
    EXPECT_THAT(values, HasSubstr("hidden = " + direct.run.of(hidden).describe()));
    EXPECT_THAT(values, HasSubstr("loss = " + direct.run.of(loss).describe()));
    EXPECT_THAT(values, HasSubstr("d loss / d weights = " + direct.field.of(weights).describe()));
}

// The labels of the values reading: what stands before ` = Tensor<float>`.
std::vector<std::string> labels_of(const std::string& values) {
    std::vector<std::string> labels;
    std::istringstream lines(values);
    for (std::string line; std::getline(lines, line);) {
        if (const std::size_t at = line.find(" = Tensor<float>"); at != std::string::npos) {
            labels.push_back(line.substr(0, at));
        }
    }
    return labels;
}

TEST(ProgramValues, OnlyWhatTheEntryDeclaresIsShown) {
    EXPECT_THAT(labels_of(read(analysed("walkthrough").analysis).values),
                ElementsAre("loss", "d loss / d weights"));
    EXPECT_THAT(labels_of(read(analysed("walkthrough", {.observed = "x"}).analysis).values),
                ElementsAre("x", "loss", "d loss / d weights"));
}

TEST(ProgramValues, TheMlpComputesWhatTheApiComputes) {
    const Analysed program = analysed("mlp");
    Tape<float> tape;
    auto x = tape.input(seeded(3, {4, 3}));
    auto w1 = tape.parameter(seeded(4, {3, 5}));
    auto b1 = tape.parameter(seeded(5, {5}));
    auto h = (x.matmul(w1) + b1).relu();
    auto w2 = tape.parameter(seeded(7, {5, 2}));
    auto b2 = tape.parameter(seeded(8, {2}));
    auto out = h.matmul(w2) + b2;
    auto loss = (out * out).sum() / 8.0F;
    const Direct direct(std::move(tape), loss);
    EXPECT_BITS(program.value("loss"), direct.run.of(loss));
    EXPECT_BITS(program.gradient("w1"), direct.field.of(w1));
    EXPECT_BITS(program.gradient("b1"), direct.field.of(b1));
    EXPECT_BITS(program.gradient("w2"), direct.field.of(w2));
    EXPECT_BITS(program.gradient("b2"), direct.field.of(b2));
}

TEST(ProgramValues, LiteralsAreRankZeroLeaves) {
    const Analysed program = analysed("scalar");
    Tape<float> tape;
    auto w = tape.parameter(seeded(2, {}));
    auto x = tape.leaf(Tensor<float>(2.0F));
    auto y = tape.leaf(Tensor<float>(4.0F));
    auto error = w * x - y;
    auto loss = error * error;
    const Direct direct(std::move(tape), loss);
    EXPECT_BITS(program.value("loss"), direct.run.of(loss));
    EXPECT_BITS(program.gradient("w"), direct.field.of(w));
    const float w0 = seeded(2, {}).item();
    EXPECT_FLOAT_EQ(program.gradient("w").item(), 2 * (w0 * 2 - 4) * 2);
}

TEST(ProgramValues, BroadcastingReshapingAndBroadcastComputeWhatTheApiComputes) {
    const Analysed program = analysed("broadcasting");
    Tape<float> tape;
    auto column = tape.parameter(seeded(2, {3, 1}));
    auto row = tape.input(seeded(3, {1, 4}));
    auto grid = column * row + column;
    auto stacked = row.broadcast_to(Shape{2, 3, 4});
    auto flat = grid.reshape(Shape{12});
    auto left = (stacked * grid).sum();
    auto right = (flat * flat).sum();
    auto loss = left + right;
    const Direct direct(std::move(tape), loss);
    EXPECT_BITS(program.value("loss"), direct.run.of(loss));
    EXPECT_BITS(program.gradient("column"), direct.field.of(column));
}

TEST(ProgramValues, ReductionsAlongAxesComputeWhatTheApiComputes) {
    const Analysed program = analysed("reductions");
    Tape<float> tape;
    auto scores = tape.parameter(seeded(2, {3, 4}));
    auto per_row = scores.sum(1);
    auto per_column = scores.mean(0);
    auto soft = scores.logsumexp(1);
    auto rows = per_row.sum();
    auto columns = (per_column * per_column).sum();
    auto both = rows + columns;
    auto softs = soft.sum();
    auto loss = both + softs;
    const Direct direct(std::move(tape), loss);
    EXPECT_BITS(program.value("loss"), direct.run.of(loss));
    EXPECT_BITS(program.gradient("scores"), direct.field.of(scores));
}

TEST(ProgramValues, AttentionComputesWhatTheApiComputes) {
    const Analysed program = analysed("attention");
    Tape<float> tape;
    auto tokens = tape.input(seeded(2, {3, 4}));
    auto wq = tape.parameter(seeded(3, {4, 4}));
    auto wk = tape.parameter(seeded(4, {4, 4}));
    auto wv = tape.parameter(seeded(5, {4, 4}));
    auto q = tokens.matmul(wq);
    auto k = tokens.matmul(wk);
    auto v = tokens.matmul(wv);
    auto scores = q.matmul(k.transpose()) / 2.0F;
    auto weights = scores.softmax(1);
    auto attended = weights.matmul(v);
    auto loss = (attended.log_softmax(1) * -1.0F).sum() / 3.0F;
    const Direct direct(std::move(tape), loss);
    EXPECT_BITS(program.value("loss"), direct.run.of(loss));
    EXPECT_BITS(program.gradient("wq"), direct.field.of(wq));
    EXPECT_BITS(program.gradient("wk"), direct.field.of(wk));
    EXPECT_BITS(program.gradient("wv"), direct.field.of(wv));
}

TEST(ProgramValues, AnUnusedParametersGradientIsZeros) {
    const Analysed program =
        analysed("unused_parameter", {.target = "partial", .numerics = Numerics::Fast});
    Tape<float> tape;
    auto used = tape.parameter(seeded(3, {2}));
    auto unused = tape.parameter(seeded(4, {2}));
    auto partial = (used * used).sum();
    const Direct direct(std::move(tape), partial);
    EXPECT_BITS(program.value("partial"), direct.run.of(partial));
    EXPECT_BITS(program.gradient("used"), direct.field.of(used));
    EXPECT_BITS(program.gradient("unused"), direct.field.of(unused));
    EXPECT_BITS(program.gradient("unused"), Tensor<float>({2}, {0.0F, 0.0F}));
}

TEST(ProgramValues, AProgramWithoutParametersComputesItsTarget) {
    const Analysed program = analysed("no_parameters");
    Tape<float> tape;
    auto x = tape.input(seeded(3, {2, 2}));
    auto table = tape.leaf(seeded(4, {2, 2}));
    auto total = x.matmul(table).sum() + 1.0F;
    const Direct direct(std::move(tape), total);
    EXPECT_BITS(program.value("total"), direct.run.of(total));
    EXPECT_TRUE(program.analysis.adjoints.gradients().empty());
}

TEST(ProgramValues, EmptyTensorsComputeWhatTheApiComputes) {
    const Analysed program = analysed("zero_extent");
    Tape<float> tape;
    auto batch = tape.input(seeded(2, {0, 3}));
    auto w = tape.parameter(seeded(3, {3, 2}));
    auto out = batch.matmul(w);
    auto left = out.sum();
    auto right = (w * w).sum();
    auto loss = left + right;
    const Direct direct(std::move(tape), loss);
    EXPECT_BITS(program.value("loss"), direct.run.of(loss));
    EXPECT_BITS(program.gradient("w"), direct.field.of(w));
}

TEST(ProgramValues, PrecedenceFollowsArithmetic) {
    const Analysed program = analysed("precedence");
    const float a = seeded(3, {}).item();
    const float b = -a * 2 + 3.0F / 4 - 1e-1F;
    const float c = -(a - b) / (a + 0.5F);
    const float d = 2.0F - 3 - 4 + a * a * a;
    EXPECT_FLOAT_EQ(program.any_value("b").item(), b);
    EXPECT_FLOAT_EQ(program.any_value("c").item(), c);
    EXPECT_FLOAT_EQ(program.any_value("d").item(), d);
    EXPECT_FLOAT_EQ(program.value("loss").item(), b * c + d);
}

TEST(ProgramValues, LiteralsReadAsTheNearestFloat) {
    const Program program = compile("a = 0.1\nb = 1e-400\nc = -2.5E+3\nd = .5\ne = 7.\n");
    const topos::Run<float> run = program.network().forward(program.network().parameters());
    const auto value = [&](const char* name) { return run.of(program.find(name)->symbol).item(); };
    EXPECT_EQ(value("a"), 0.1F);
    EXPECT_EQ(value("b"), 0.0F);
    EXPECT_EQ(value("c"), -2500.0F);
    EXPECT_EQ(value("d"), 0.5F);
    EXPECT_EQ(value("e"), 7.0F);
}

TEST(ProgramValues, LiteralsRoundOnceToFloat) {
    // Just above the midpoint of 1 and the next float: a double reads it as
    // the midpoint itself, which a cast to float rounds to even (1).
    const Program program = compile("a = 1.0000000596046447754\nb = 3.4028235e38\n");
    const topos::Run<float> run = program.network().forward(program.network().parameters());
    const auto value = [&](const char* name) { return run.of(program.find(name)->symbol).item(); };
    EXPECT_EQ(value("a"), std::nextafter(1.0F, 2.0F));
    EXPECT_EQ(value("b"), std::numeric_limits<float>::max());
}

}  // namespace
}  // namespace topos::lang
