// Network::forward on the layout and indexing opcodes: each on tiny hand-checked
// inputs with exact expected values (strides, dilation, interior padding,
// repeated picks), and Fold's documented accumulation order (ascending windows
// from +0) proved with inputs where another order gives other bits.
#include "support/bit_equal.hpp"
#include "support/forward_oracle.hpp"
#include <topos/core/threads.hpp>
#include <topos/graph/network.hpp>
#include <topos/graph/tape.hpp>
#include <topos/run/run.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <functional>
#include <span>
#include <utility>
#include <vector>

namespace topos {
namespace {

using test::apply;
using test::bit_equal;
using test::evaluate_f64;
using test::iota;

// ---- layout ----

TEST(Forward, ReshapesWithoutMovingElements) {
    const Tensor<double> out =
        apply(Opcode::Reshape, {iota({2, 3})}, ReshapeAttributes{Shape{3, 1, 2}});
    EXPECT_EQ(out, (Tensor<double>({3, 1, 2}, {0, 1, 2, 3, 4, 5})));
}

TEST(Forward, PermutesAxesSoOutputAxisIReadsOperandAxisOrderI) {
    EXPECT_EQ(apply(Opcode::Permute, {iota({2, 3})}, PermuteAttributes{Axes{1, 0}}),
              (Tensor<double>({3, 2}, {0, 3, 1, 4, 2, 5})));
    // [2, 3, 4] with order [2, 0, 1]: out[k][i][j] = in[i][j][k].
    const Tensor<double> in = iota({2, 3, 4});
    const Tensor<double> out = apply(Opcode::Permute, {in}, PermuteAttributes{Axes{2, 0, 1}});
    ASSERT_EQ(out.shape(), (Shape{4, 2, 3}));
    for (std::size_t i = 0; i < 2; ++i) {
        for (std::size_t j = 0; j < 3; ++j) {
            for (std::size_t k = 0; k < 4; ++k) {
                EXPECT_EQ(out.data()[k * 6 + i * 3 + j], in.data()[i * 12 + j * 4 + k]);
            }
        }
    }
}

// out[i0..ik] = in[j] where input axis order[a] is output axis a: an index
// loop, element by element, to hold the blocked and threaded kernel against.
Tensor<double> permuted_by_index(const Tensor<double>& in, const std::vector<std::size_t>& order) {
    const Shape& shape = in.shape();
    std::vector<std::size_t> extents(order.size());
    for (std::size_t a = 0; a < order.size(); ++a) {
        extents[a] = shape[order[a]];
    }
    std::vector<std::size_t> input_stride(order.size(), 1);
    for (std::size_t axis = order.size() - 1; axis-- > 0;) {
        input_stride[axis] = input_stride[axis + 1] * shape[axis + 1];
    }
    std::vector<double> out(in.data().size());
    for (std::size_t flat = 0; flat < out.size(); ++flat) {
        std::size_t rest = flat;
        std::size_t source = 0;
        for (std::size_t a = order.size(); a-- > 0;) {
            source += rest % extents[a] * input_stride[order[a]];
            rest /= extents[a];
        }
        out[flat] = in.data()[source];
    }
    return Tensor<double>(Shape(std::span<const std::size_t>(extents)), out);
}

TEST(Forward, LongPermutesSharedAmongThreadsMoveEveryElementOnce) {
    const std::vector<std::pair<Shape, std::vector<std::size_t>>> cases = {
        {Shape{3, 150, 200}, {0, 2, 1}},       // a batch of transposes
        {Shape{1, 600, 170}, {0, 2, 1}},       // one long transpose
        {Shape{6, 20, 30, 25}, {2, 0, 3, 1}},  // strided runs
        {Shape{4, 50, 20, 23}, {0, 2, 1, 3}},  // contiguous runs
    };
    const std::size_t saved = threads();
    for (const std::size_t count : {1, 2}) {
        set_threads(count);
        for (const auto& [shape, order] : cases) {
            const Tensor<double> in = iota(shape);
            const Tensor<double> out = apply(
                Opcode::Permute,
                {in},
                PermuteAttributes{Axes(std::span<const std::size_t>(order.data(), order.size()))});
            EXPECT_TRUE(bit_equal(out, permuted_by_index(in, order)))
                << shape.str() << " on " << count << " threads";
        }
    }
    set_threads(saved);
}

TEST(Forward, BroadcastsAlongANewAxis) {
    const Tensor<double> x({2}, {1, 2});
    EXPECT_EQ(apply(Opcode::BroadcastAlong, {x}, BroadcastAttributes{0, 3}),
              (Tensor<double>({3, 2}, {1, 2, 1, 2, 1, 2})));
    EXPECT_EQ(apply(Opcode::BroadcastAlong, {x}, BroadcastAttributes{1, 2}),
              (Tensor<double>({2, 2}, {1, 1, 2, 2})));
    EXPECT_EQ(apply(Opcode::BroadcastAlong, {Tensor<double>(7.0)}, BroadcastAttributes{0, 2}),
              (Tensor<double>({2}, {7, 7})));
    EXPECT_EQ(apply(Opcode::BroadcastAlong, {iota({2, 2})}, BroadcastAttributes{1, 2}),
              (Tensor<double>({2, 2, 2}, {0, 1, 0, 1, 2, 3, 2, 3})));
}

TEST(Forward, UnfoldsSlidingWindows) {
    const Tensor<double> x = iota({5});
    EXPECT_EQ(apply(Opcode::Unfold, {x}, WindowAttributes{0, 3, 1, 1}),
              (Tensor<double>({3, 3}, {0, 1, 2, 1, 2, 3, 2, 3, 4})));
    EXPECT_EQ(apply(Opcode::Unfold, {x}, WindowAttributes{0, 3, 2, 1}),
              (Tensor<double>({2, 3}, {0, 1, 2, 2, 3, 4})));
    // Dilation 2: element w of window c reads c + 2 w.
    EXPECT_EQ(apply(Opcode::Unfold, {x}, WindowAttributes{0, 2, 1, 2}),
              (Tensor<double>({3, 2}, {0, 2, 1, 3, 2, 4})));
    // Along a leading axis the window axis comes right after it: out[c][w][j] = in[c + w][j].
    EXPECT_EQ(apply(Opcode::Unfold, {iota({3, 2})}, WindowAttributes{0, 2, 1, 1}),
              (Tensor<double>({2, 2, 2}, {0, 1, 2, 3, 2, 3, 4, 5})));
}

TEST(Forward, FoldsWindowsBackBySumming) {
    EXPECT_EQ(
        apply(Opcode::Fold, {Tensor<double>::filled({3, 3}, 1.0)}, FoldAttributes{0, 3, 1, 1, 5}),
        (Tensor<double>({5}, {1, 2, 3, 2, 1})));
    // Step 2 over 5 positions: windows [0, 1, 2] and [2, 3, 4] overlap at 2.
    EXPECT_EQ(apply(Opcode::Fold,
                    {Tensor<double>({2, 3}, {1, 2, 3, 4, 5, 6})},
                    FoldAttributes{0, 3, 2, 1, 5}),
              (Tensor<double>({5}, {1, 2, 7, 5, 6})));
    // Step 3 over 5 positions with windows of 2: position 2 receives nothing.
    EXPECT_EQ(
        apply(Opcode::Fold, {Tensor<double>({2, 2}, {1, 2, 3, 4})}, FoldAttributes{0, 2, 3, 1, 5}),
        (Tensor<double>({5}, {1, 2, 0, 3, 4})));
    // Along a leading axis: [count 2, size 2, 2] into [3, 2].
    EXPECT_EQ(apply(Opcode::Fold, {iota({2, 2, 2})}, FoldAttributes{0, 2, 1, 1, 3}),
              (Tensor<double>({3, 2}, {0, 1, 6, 8, 6, 7})));
}

TEST(Forward, FoldsInAscendingWindowOrderFromPositiveZero) {
    // Windows of 3, step 1 over 5 positions: position 2 reads (c0 w2), (c1 w1),
    // (c2 w0) in that order. ((+0 + 1e8) - 1e8) + 1 = 1; reversed, 1 is absorbed.
    std::vector<float> windows(9, 0.0f);
    windows[0 * 3 + 2] = 1e8f;
    windows[1 * 3 + 1] = -1e8f;
    windows[2 * 3 + 0] = 1.0f;
    const Tensor<float> out =
        apply(Opcode::Fold, {Tensor<float>(Shape{3, 3}, windows)}, FoldAttributes{0, 3, 1, 1, 5});
    EXPECT_EQ(out.data()[2], 1.0f);
    // +0 + -0 = +0: a position that reads only negative zeros is +0.
    const Tensor<float> zeros =
        apply(Opcode::Fold, {Tensor<float>::filled({2, 2}, -0.0f)}, FoldAttributes{0, 2, 1, 1, 3});
    EXPECT_TRUE(bit_equal(zeros, Tensor<float>({3}, {0.0f, 0.0f, 0.0f})));
}

TEST(Forward, NarrowsToAWindowOfOneAxis) {
    EXPECT_EQ(apply(Opcode::Narrow, {iota({6})}, NarrowAttributes{0, 1, 3}),
              (Tensor<double>({3}, {1, 2, 3})));
    EXPECT_EQ(apply(Opcode::Narrow, {iota({2, 3})}, NarrowAttributes{1, 1, 2}),
              (Tensor<double>({2, 2}, {1, 2, 4, 5})));
    EXPECT_EQ(apply(Opcode::Narrow, {iota({3, 2})}, NarrowAttributes{0, 2, 1}),
              (Tensor<double>({1, 2}, {4, 5})));
}

TEST(Forward, PadsOneAxisWithZeros) {
    EXPECT_EQ(apply(Opcode::Pad, {Tensor<double>({2}, {1, 2})}, PadAttributes{0, 1, 2}),
              (Tensor<double>({5}, {0, 1, 2, 0, 0})));
    EXPECT_EQ(apply(Opcode::Pad, {Tensor<double>({2, 2}, {1, 2, 3, 4})}, PadAttributes{1, 1, 0}),
              (Tensor<double>({2, 3}, {0, 1, 2, 0, 3, 4})));
    EXPECT_EQ(apply(Opcode::Pad, {Tensor<double>({1, 2}, {1, 2})}, PadAttributes{0, 0, 1}),
              (Tensor<double>({2, 2}, {1, 2, 0, 0})));
}

// ---- the rest of the catalog ----

TEST(Forward, SlicesEveryStepThPosition) {
    EXPECT_EQ(apply(Opcode::Slice, {iota({7})}, SliceAttributes{0, 1, 3, 2}),
              (Tensor<double>({3}, {1, 3, 5})));
    EXPECT_EQ(apply(Opcode::Slice, {iota({3, 2})}, SliceAttributes{0, 0, 2, 2}),
              (Tensor<double>({2, 2}, {0, 1, 4, 5})));
}

TEST(Forward, PadsWithInteriorZeros) {
    EXPECT_EQ(apply(Opcode::Pad, {Tensor<double>({3}, {1, 2, 3})}, PadAttributes{0, 1, 0, 1}),
              (Tensor<double>({6}, {0, 1, 0, 2, 0, 3})));
}

TEST(Forward, ConcatenatesAlongAnAxis) {
    EXPECT_EQ(apply(Opcode::Concat,
                    {Tensor<double>({2}, {1, 2}), Tensor<double>({1}, {3})},
                    AxisAttributes{0}),
              (Tensor<double>({3}, {1, 2, 3})));
    EXPECT_EQ(apply(Opcode::Concat,
                    {Tensor<double>({2, 1}, {1, 2}), Tensor<double>({2, 2}, {3, 4, 5, 6})},
                    AxisAttributes{1}),
              (Tensor<double>({2, 3}, {1, 3, 4, 2, 5, 6})));
}

// The value of f(tape, indices) with `indices` recorded by tape.indices.
Tensor<double> with_indices(const Tensor<double>& indices,
                            const std::function<Value<double>(Tape<double>&, Value<double>)>& f) {
    return evaluate_f64([&](Tape<double>& tape) { return f(tape, tape.indices(indices)); });
}

TEST(Forward, GathersRowsByIndex) {
    const Tensor<double> table({3, 2}, {1, 2, 3, 4, 5, 6});
    const auto gather_from = [&](Tape<double>& tape, Value<double> picks) {
        const Value<double> t = tape.parameter(table);
        return t.apply(Opcode::Gather, {t, picks});
    };
    EXPECT_EQ(with_indices(Tensor<double>({3}, {2, 0, 2}), gather_from),
              (Tensor<double>({3, 2}, {5, 6, 1, 2, 5, 6})));
    EXPECT_EQ(with_indices(Tensor<double>(1.0), gather_from), (Tensor<double>({2}, {3, 4})));
}

TEST(Forward, ScatterAddsRowsInAscendingPickOrder) {
    const Tensor<double> out =
        with_indices(Tensor<double>({3}, {2, 0, 2}), [](Tape<double>& tape, Value<double> picks) {
            const Value<double> updates =
                tape.parameter(Tensor<double>({3, 2}, {1, 2, 3, 4, 5, 6}));
            return picks.apply(Opcode::ScatterAdd, {picks, updates}, RowsAttributes{3});
        });
    EXPECT_EQ(out, (Tensor<double>({3, 2}, {3, 4, 0, 0, 6, 8})));
}

TEST(Forward, EncodesIndicesOneHot) {
    const Tensor<double> out =
        with_indices(Tensor<double>({2}, {2, 0}),
                     [](Tape<double>&, Value<double> picks) { return picks.one_hot(3); });
    EXPECT_EQ(out, (Tensor<double>({2, 3}, {0, 0, 1, 1, 0, 0})));
}

}  // namespace
}  // namespace topos
