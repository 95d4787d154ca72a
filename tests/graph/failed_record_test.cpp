// A failed record appends nothing: every public call that records several
// nodes (broadcasting, matmul, joins, losses, compositions, modules) leaves the
// tape exactly as it found it when it throws, and the tape stays usable. The
// messages name the user's call and nodes, never an internal node.
#include <topos/topos.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace topos {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

Value<double> parameter_of(Tape<double>& tape, const Shape& shape) {
    return tape.parameter(Tensor<double>::filled(shape, 0.5));
}

// Runs `call`, which must throw a topos::Error; returns its message after
// checking the tape holds the same nodes as before and still records and runs.
std::string expect_appends_nothing(Tape<double>& tape, const std::function<void()>& call) {
    const std::vector<Node> before(tape.nodes().begin(), tape.nodes().end());
    std::string message;
    try {
        call();
        ADD_FAILURE() << "the call was recorded:\n" << tape.describe();
    } catch (const Error& error) {
        message = error.what();
    }
    EXPECT_EQ(tape.nodes().size(), before.size()) << message << '\n' << tape.describe();
    for (std::size_t i = 0; i < std::min(before.size(), tape.nodes().size()); ++i) {
        EXPECT_EQ(tape.nodes()[i].opcode(), before[i].opcode());
        EXPECT_EQ(tape.nodes()[i].shape(), before[i].shape());
    }
    const Value<double> probe = tape.input(Tensor<double>::filled({2}, 1.5));
    EXPECT_EQ(probe.index(), before.size());
    return message;
}

// A call that must fail: `prepare` records its operands and returns the call.
struct FailedCall {
    const char* name;
    std::function<std::function<void()>(Tape<double>&)> prepare;
};

void PrintTo(const FailedCall& call, std::ostream* out) {
    *out << call.name;
}

const std::vector<FailedCall>& failed_calls() {
    using Call = std::function<void()>;
    static const std::vector<FailedCall> calls = {
        {"conflicting_broadcast",
         [](Tape<double>& t) -> Call {
             return [a = parameter_of(t, {2, 3}), b = parameter_of(t, {4})] { (void)(a + b); };
         }},
        {"scalar_times_indices",
         [](Tape<double>& t) -> Call {
             return [a = t.indices(Shape{2, 3}, {0, 1, 2, 0, 1, 2})] { (void)(a * 2.0); };
         }},
        {"indices_plus_broadcast_reals",
         [](Tape<double>& t) -> Call {
             return [a = t.indices(Shape{2, 3}, {0, 1, 2, 0, 1, 2}), b = parameter_of(t, {3})] {
                 (void)(a + b);
             };
         }},
        {"where_with_conflicting_branches",
         [](Tape<double>& t) -> Call {
             return [m = parameter_of(t, {2, 3}),
                     a = parameter_of(t, {2, 3}),
                     b = parameter_of(t, {4, 3})] { (void)where(m, a, b); };
         }},
        {"broadcast_to_a_conflicting_shape",
         [](Tape<double>& t) -> Call {
             return [a = parameter_of(t, {2, 3})] { (void)a.broadcast_to({4, 3}); };
         }},
        {"broadcast_into_too_many_elements",  // empty operands, but strides past 2^60
         [](Tape<double>& t) -> Call {
             return [a = parameter_of(t, {std::size_t{1} << 30, 1, 0}),
                     b = parameter_of(t, {1, std::size_t{1} << 31, 0})] { (void)(a * b); };
         }},
        {"max_pool_window_wider_than_its_bound",  // an empty batch, so the image is free
         [](Tape<double>& t) -> Call {
             return [x = parameter_of(t, {0, 1, 300, 300})] { (void)max_pool(x, 257, 1); };
         }},
        {"matmul_batches_that_conflict",
         [](Tape<double>& t) -> Call {
             return [a = parameter_of(t, {2, 3, 4}), b = parameter_of(t, {5, 4, 2})] {
                 (void)a.matmul(b);
             };
         }},
        {"matmul_rows_through_a_wrong_matrix",
         [](Tape<double>& t) -> Call {
             return [a = parameter_of(t, {2, 3, 4}), b = parameter_of(t, {5, 2})] {
                 (void)a.matmul(b);
             };
         }},
        {"matmul_of_a_vector",
         [](Tape<double>& t) -> Call {
             return [a = parameter_of(t, {4}), b = parameter_of(t, {4, 2})] { (void)a.matmul(b); };
         }},
        {"concat_whose_last_join_fails",
         [](Tape<double>& t) -> Call {
             return [values = std::vector{parameter_of(t, {2, 3}),
                                          parameter_of(t, {2, 3}),
                                          parameter_of(t, {2, 4})}] { (void)concat(values, 0); };
         }},
        {"stack_of_unequal_shapes",
         [](Tape<double>& t) -> Call {
             return [values = std::vector{
                         parameter_of(t, {2}), parameter_of(t, {2}), parameter_of(t, {3})}] {
                 (void)stack(values, 0);
             };
         }},
        {"cross_entropy_of_real_labels",
         [](Tape<double>& t) -> Call {
             return [logits = parameter_of(t, {2, 5}), labels = parameter_of(t, {2})] {
                 (void)cross_entropy(logits, labels);
             };
         }},
        {"smoothed_cross_entropy_of_real_labels",
         [](Tape<double>& t) -> Call {
             return [logits = parameter_of(t, {2, 5}), labels = parameter_of(t, {2})] {
                 (void)cross_entropy(logits, labels, {.label_smoothing = 0.1});
             };
         }},
        {"mse_of_unequal_shapes",
         [](Tape<double>& t) -> Call {
             return [a = parameter_of(t, {2, 3}), b = parameter_of(t, {4})] { (void)mse(a, b); };
         }},
        {"conv2d_of_an_index_image",
         [](Tape<double>& t) -> Call {
             return [image = t.indices(Tensor<double>::filled({1, 1, 4, 4}, 1.0)),
                     filters = parameter_of(t, {2, 1, 3, 3}),
                     bias = parameter_of(t, {2})] { (void)conv2d(image, filters, bias); };
         }},
        {"linear_of_a_wrong_width",
         [](Tape<double>& t) -> Call {
             return [layer = Linear<double>(t, 4, 2, init::xavier(1)),
                     x = parameter_of(t, {3, 5})] { (void)layer.express(x); };
         }},
        {"linear_of_indices",
         [](Tape<double>& t) -> Call {
             return [layer = Linear<double>(t, 3, 2, init::xavier(1)),
                     x = t.indices(Shape{1, 3}, {0, 1, 2})] { (void)layer.express(x); };
         }},
        {"layer_norm_of_a_wrong_width",
         [](Tape<double>& t) -> Call {
             return [norm = LayerNorm<double>(t, 4), x = parameter_of(t, {2, 3})] {
                 (void)norm.express(x);
             };
         }},
        {"transformer_block_of_indices",
         [](Tape<double>& t) -> Call {
             return [block = TransformerBlock<double>(t, 4, 2, 8, init::xavier(4)),
                     x = t.indices(Tensor<double>::filled({1, 3, 4}, 1.0))] {
                 (void)block.express(x);
             };
         }},
    };
    return calls;
}

class FailedRecord : public ::testing::TestWithParam<FailedCall> {};

TEST_P(FailedRecord, AppendsNothingAndLeavesTheTapeUsable) {
    Tape<double> tape;
    const std::function<void()> call = GetParam().prepare(tape);
    const std::string message = expect_appends_nothing(tape, call);
    EXPECT_FALSE(message.empty());
}

INSTANTIATE_TEST_SUITE_P(EveryMultiNodeCall,
                         FailedRecord,
                         ::testing::ValuesIn(failed_calls()),
                         [](const auto& info) { return std::string(info.param.name); });

// ---- messages in the user's terms ----

std::string message_of(const std::function<void()>& call) {
    try {
        call();
    } catch (const Error& error) {
        return error.what();
    }
    return "(no error)";
}

TEST(FailedRecordMessage, ABatchedMatmulNamesBothOperandsWithTheirOwnShapes) {
    Tape<double> tape;
    const auto a = parameter_of(tape, {2, 3, 4});
    const auto b = parameter_of(tape, {5, 4, 2});
    const std::string message = message_of([&] { (void)a.matmul(b); });
    EXPECT_THAT(message, HasSubstr("node 0 [2, 3, 4], node 1 [5, 4, 2]"));
    EXPECT_THAT(message, HasSubstr("the batch axes [2] and [5] do not broadcast"));
    EXPECT_THAT(message, Not(HasSubstr("node 0 [2],")));
}

TEST(FailedRecordMessage, RowsThroughAWrongMatrixNameTheUsersNodesNotAReshape) {
    Tape<double> tape;
    const auto a = parameter_of(tape, {2, 3, 4});
    const auto b = parameter_of(tape, {5, 2});
    const std::string message = message_of([&] { (void)a.matmul(b); });
    EXPECT_THAT(message, HasSubstr("MatMul of node 0 [2, 3, 4], node 1 [5, 2]"));
    EXPECT_THAT(message, HasSubstr("inner extents differ (4 vs 5)"));
    EXPECT_THAT(message, Not(HasSubstr("[6, 4]")));
}

TEST(FailedRecordMessage, WhereNamesTheMaskAndBothBranches) {
    Tape<double> tape;
    const auto mask = parameter_of(tape, {2, 3});
    const auto a = parameter_of(tape, {2, 3});
    const auto b = parameter_of(tape, {4, 3});
    const std::string message = message_of([&] { (void)where(mask, a, b); });
    EXPECT_THAT(message,
                HasSubstr("where of node 0 [2, 3] (the mask), node 1 [2, 3], node 2 [4, 3]"));
}

TEST(FailedRecordMessage, BroadcastToNamesTheSourceAndTheTarget) {
    Tape<double> tape;
    const auto a = parameter_of(tape, {2, 3});
    const std::string message = message_of([&] { (void)a.broadcast_to({4, 3}); });
    EXPECT_THAT(message, HasSubstr("broadcast_to of node 0 [2, 3]: cannot broadcast to [4, 3]"));
}

TEST(FailedRecordMessage, AnOverflowingShapeIsAShapeErrorNamingTheOperationAndTheShape) {
    Tape<double> tape;
    const auto x = tape.leaf(Tensor<double>::filled({4}, 1.0));
    const std::string message =
        message_of([&] { (void)x.broadcast_along(0, std::size_t{1} << 62); });
    EXPECT_THAT(message, HasSubstr("BroadcastAlong of node 0 [4]"));
    EXPECT_THAT(message, HasSubstr("[4611686018427387904, 4] is too large"));
    EXPECT_EQ(tape.nodes().size(), 1u);
}

TEST(FailedRecordMessage, APoolingWindowPastItsBoundSaysWhyAndWhatToUseInstead) {
    Tape<double> tape;
    const auto x = parameter_of(tape, {0, 1, 1 << 20, 1 << 20});
    const std::string message = message_of([&] { (void)average_pool(x, 1 << 19, 1); });
    EXPECT_THAT(message, HasSubstr("records one node per tap"));
    EXPECT_THAT(message, HasSubstr("at most 256x256"));
    EXPECT_THAT(message, HasSubstr("unfold"));
    EXPECT_EQ(tape.nodes().size(), 1u);
    EXPECT_EQ(max_pool(parameter_of(tape, {1, 1, 256, 256}), 256, 1).shape(), (Shape{1, 1, 1, 1}));
}

TEST(FailedRecordMessage, AttributesThatWrapAreRefusedNotWrapped) {
    Tape<double> tape;
    const auto x = parameter_of(tape, {4, 3});
    const std::size_t huge = std::size_t{1} << 63;
    EXPECT_THAT(message_of([&] { (void)x.pad(0, huge, huge); }), HasSubstr("overflows"));
    EXPECT_THAT(message_of([&] { (void)x.pad(0, 0, 0, huge); }), HasSubstr("overflows"));
    EXPECT_THAT(message_of([&] { (void)x.unfold(0, 3, 1, huge); }), HasSubstr("overflows"));
    // 2^62 + 1 positions 4 apart would wrap to reach position 0.
    EXPECT_THAT(message_of([&] { (void)x.slice(0, 0, huge, 4); }), HasSubstr("do not fit"));
    EXPECT_THROW((void)conv2d(parameter_of(tape, {1, 1, 4, 4}),
                              parameter_of(tape, {1, 1, 3, 3}),
                              parameter_of(tape, {1}),
                              1,
                              huge),
                 ShapeError);
}

}  // namespace
}  // namespace topos
