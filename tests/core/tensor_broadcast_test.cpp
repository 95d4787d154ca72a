// Tensor<T> broadcasting: arithmetic and comparisons take numpy's shapes, as
// the recorded operators do, and give the recorded graph's bits: each pair of
// shapes is computed eagerly and by a Tape and Network::forward, and the two
// results are compared bit for bit.
#include "support/bit_equal.hpp"
#include "support/error_message.hpp"
#include <topos/topos.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

namespace topos::broadcast_test {
namespace {

using test::shape_error_of;
using ::testing::HasSubstr;

template <class T>
class TensorBroadcast : public ::testing::Test {};

using Elements = ::testing::Types<float, double>;
TYPED_TEST_SUITE(TensorBroadcast, Elements);

// Thirds between -2 and 2 (so some are inexact, some zero and some shared by
// both operands, which the comparisons need), seeded so two operands differ.
template <Element T>
Tensor<T> thirds(const Shape& shape, std::size_t seed) {
    return Tensor<T>::generate(shape, [seed](std::span<T> out) {
        for (std::size_t k = 0; k < out.size(); ++k) {
            out[k] = static_cast<T>((k * 37 + seed * 11) % 13) / T{3} - T{2};
        }
    });
}

struct ShapePair {
    Shape a;
    Shape b;
    Shape result;
};

// Ranks 0 to 4, extents 1 stretching on either side and to 0, and axes missing.
const std::vector<ShapePair>& shape_pairs() {
    static const std::vector<ShapePair> pairs = {
        {{}, {}, {}},
        {{}, {3}, {3}},
        {{2, 3}, {}, {2, 3}},
        {{4}, {4}, {4}},
        {{8, 30}, {30}, {8, 30}},
        {{8, 30}, {1, 30}, {8, 30}},
        {{8, 1}, {8, 30}, {8, 30}},
        {{2, 1}, {1, 3}, {2, 3}},
        {{2, 1, 4}, {3, 1}, {2, 3, 4}},
        {{1, 3, 1, 2}, {1, 4, 1}, {1, 3, 4, 2}},
        {{3, 1, 2, 1}, {1, 4, 1, 5}, {3, 4, 2, 5}},
        {{0, 3}, {3}, {0, 3}},
        {{0, 3}, {1, 3}, {0, 3}},
        {{2, 1}, {2, 0}, {2, 0}},
        {{1}, {0}, {0}},
        {{0}, {}, {0}},
        {{2, 0, 1, 3}, {1, 4, 1}, {2, 0, 4, 3}},
    };
    return pairs;
}

template <Element T>
using EagerOp = std::function<Tensor<T>(const Tensor<T>&, const Tensor<T>&)>;
template <Element T>
using RecordedOp = std::function<Value<T>(const Value<T>&, const Value<T>&)>;

template <Element T>
struct NamedOp {
    std::string name;
    EagerOp<T> eager;
    RecordedOp<T> recorded;
};

template <Element T>
std::vector<NamedOp<T>> operations() {
    using E = const Tensor<T>&;
    using V = const Value<T>&;
    return {
        {"+", [](E a, E b) { return a + b; }, [](V a, V b) { return a + b; }},
        {"-", [](E a, E b) { return a - b; }, [](V a, V b) { return a - b; }},
        {"*", [](E a, E b) { return a * b; }, [](V a, V b) { return a * b; }},
        {"/", [](E a, E b) { return a / b; }, [](V a, V b) { return a / b; }},
        {"equal", [](E a, E b) { return a.equal(b); }, [](V a, V b) { return a.equal(b); }},
        {"not_equal",
         [](E a, E b) { return a.not_equal(b); },
         [](V a, V b) { return a.not_equal(b); }},
        {"less", [](E a, E b) { return a.less(b); }, [](V a, V b) { return a.less(b); }},
        {"less_equal",
         [](E a, E b) { return a.less_equal(b); },
         [](V a, V b) { return a.less_equal(b); }},
        {"greater", [](E a, E b) { return a.greater(b); }, [](V a, V b) { return a.greater(b); }},
        {"greater_equal",
         [](E a, E b) { return a.greater_equal(b); },
         [](V a, V b) { return a.greater_equal(b); }},
    };
}

TYPED_TEST(TensorBroadcast, GivesTheRecordedGraphsBitsForEveryOperatorAndShapePair) {
    using T = TypeParam;
    for (const ShapePair& pair : shape_pairs()) {
        const Tensor<T> a = thirds<T>(pair.a, 1);
        const Tensor<T> b = thirds<T>(pair.b, 2);
        for (const NamedOp<T>& op : operations<T>()) {
            for (const bool swapped : {false, true}) {
                const Tensor<T>& left = swapped ? b : a;
                const Tensor<T>& right = swapped ? a : b;
                SCOPED_TRACE(left.shape().str() + ' ' + op.name + ' ' + right.shape().str());
                Tape<T> tape;
                const Value<T> x = tape.parameter(left);
                const Value<T> y = tape.parameter(right);
                const Symbol result = op.recorded(x, y).symbol();
                const Network<T> network = std::move(tape).into_network();
                const Tensor<T> recorded = network.forward(network.parameters()).of(result);
                const Tensor<T> eager = op.eager(left, right);
                EXPECT_EQ(eager.shape(), pair.result);
                EXPECT_TRUE(test::bit_equal(eager, recorded));
            }
        }
    }
}

TYPED_TEST(TensorBroadcast, StretchesExtentsOfOneAlongTheOtherOperand) {
    using T = TypeParam;
    const Tensor<T> column({2, 1}, {T{10}, T{20}});
    const Tensor<T> row({3}, {T{1}, T{2}, T{3}});
    EXPECT_EQ(column + row, (Tensor<T>({2, 3}, {T{11}, T{12}, T{13}, T{21}, T{22}, T{23}})));
    EXPECT_EQ(row - column, (Tensor<T>({2, 3}, {T{-9}, T{-8}, T{-7}, T{-19}, T{-18}, T{-17}})));
    EXPECT_EQ(column.less(Tensor<T>({1, 2}, {T{15}, T{25}})),
              (Tensor<T>({2, 2}, {T{1}, T{1}, T{0}, T{1}})));
    // The finding's table: [8, 30] - [30], the column means subtracted.
    const Tensor<T> table = thirds<T>({8, 30}, 3);
    const Tensor<T> centred = table - table.mean(0);
    ASSERT_EQ(centred.shape(), (Shape{8, 30}));
    for (std::size_t i = 0; i < 8; ++i) {
        for (std::size_t j = 0; j < 30; ++j) {
            EXPECT_EQ(centred(i, j), table(i, j) - table.mean(0)(j));
        }
    }
}

TYPED_TEST(TensorBroadcast, StretchesOneToZeroButNeverZeroToOne) {
    using T = TypeParam;
    EXPECT_EQ((Tensor<T>::filled({0, 3}, 1) + Tensor<T>::filled({1, 3}, 2)).shape(), (Shape{0, 3}));
    EXPECT_EQ((Tensor<T>::filled({2, 1}, 1) * Tensor<T>::filled({2, 0}, 2)).shape(), (Shape{2, 0}));
    EXPECT_EQ(Tensor<T>::filled({1}, 1).equal(Tensor<T>::filled({0}, 1)).shape(), (Shape{0}));
    EXPECT_EQ(shape_error_of([] {
                  (void)(Tensor<T>::filled({0, 3}, 1) + Tensor<T>::filled({2, 3}, 1));
              }),
              "tensor addition of [0, 3] and [2, 3]: the shapes do not broadcast (axis 0 of the "
              "result: 0 vs 2); aligned from the last axis, extents must be equal or 1");
}

TYPED_TEST(TensorBroadcast, RefusesShapesThatDoNotBroadcastNamingBothAndTheAxis) {
    using T = TypeParam;
    const Tensor<T> table = Tensor<T>::filled({8, 30}, 1);
    const Tensor<T> wrong = Tensor<T>::filled({8}, 1);
    EXPECT_EQ(shape_error_of([&] { (void)(table - wrong); }),
              "tensor subtraction of [8, 30] and [8]: the shapes do not broadcast (axis 1 of the "
              "result: 30 vs 8); aligned from the last axis, extents must be equal or 1");
    EXPECT_EQ(shape_error_of([&] { (void)(wrong / table); }),
              "tensor division of [8] and [8, 30]: the shapes do not broadcast (axis 1 of the "
              "result: 8 vs 30); aligned from the last axis, extents must be equal or 1");
    EXPECT_THAT(shape_error_of([&] { (void)(table * wrong); }),
                HasSubstr("tensor multiplication of [8, 30] and [8]"));
    EXPECT_THAT(shape_error_of([&] { (void)(table + wrong); }),
                HasSubstr("tensor addition of [8, 30] and [8]"));
    EXPECT_EQ(shape_error_of([&] { (void)table.greater(wrong); }),
              "tensor comparison greater of [8, 30] and [8]: the shapes do not broadcast (axis 1 "
              "of the result: 30 vs 8); aligned from the last axis, extents must be equal or 1");
    for (const auto& compare : {&Tensor<T>::equal,
                                &Tensor<T>::not_equal,
                                &Tensor<T>::less,
                                &Tensor<T>::less_equal,
                                &Tensor<T>::greater_equal}) {
        EXPECT_THAT(shape_error_of([&] { (void)(table.*compare)(wrong); }),
                    HasSubstr("[8, 30] and [8]: the shapes do not broadcast (axis 1"));
    }
}

TYPED_TEST(TensorBroadcast, RefusesACommonShapeTooLargeToAddressNamingBoth) {
    using T = TypeParam;
    // Both operands are empty, but their common shape [0, 2^31, 2^31] counts
    // 2^62 along its nonzero extents, past Shape::max_elements.
    const std::size_t big = std::size_t{1} << 31;
    if constexpr (sizeof(std::size_t) == 8) {
        const Tensor<T> a = Tensor<T>::filled({0, big, 1}, 0);
        const Tensor<T> b = Tensor<T>::filled({0, 1, big}, 0);
        const std::string message = shape_error_of([&] { (void)(a * b); });
        EXPECT_THAT(message,
                    HasSubstr("tensor multiplication of [0, 2147483648, 1] and "
                              "[0, 1, 2147483648]: "));
        EXPECT_NE(message, "no ShapeError");
    } else {
        GTEST_SKIP() << "a 32-bit size_t refuses the operands themselves";
    }
}

}  // namespace
}  // namespace topos::broadcast_test
