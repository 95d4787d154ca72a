// Name scopes: nodes recorded inside a NameScope carry it, nested scopes
// record their parent, each opening is its own scope, closing one ends only
// it, a failed record leaves no scope behind on its nodes, networks and
// reopened tapes keep the scopes, another thread records at the top level,
// and sources give back their payloads.
#include <topos/topos.hpp>

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace topos {
namespace {

// The names from the top level down to the scope of `symbol`, joined by '/'.
template <class Graph>
std::string path_of(const Graph& graph, Symbol symbol) {
    std::string path;
    for (std::uint32_t scope = graph.scope_of(symbol); scope != 0;
         scope = graph.scopes()[scope].parent) {
        path = graph.scopes()[scope].name + (path.empty() ? "" : "/" + path);
    }
    return path;
}

TEST(NameScope, NodesRecordedOutsideAnyScopeAreAtTheTopLevel) {
    Tape<float> tape;
    const auto x = tape.input(1.0f);
    const auto y = x.tanh();
    EXPECT_EQ(tape.scopes().size(), 1u);
    EXPECT_EQ(tape.scopes()[0], (Scope{"", 0}));
    EXPECT_EQ(tape.scope_of(x), 0u);
    EXPECT_EQ(tape.scope_of(y), 0u);
}

TEST(NameScope, NodesCarryTheScopesOpenWhenTheyWereRecordedNestedAsOpened) {
    Tape<float> tape;
    const auto x = tape.input(1.0f);
    Symbol inner;
    Symbol outer;
    {
        const NameScope block("block");
        const auto tanh = x.tanh();
        outer = tanh;
        {
            const NameScope layer("layer");
            inner = tanh * tanh;
        }
    }
    const auto after = tape.value(inner) + x;
    EXPECT_EQ(path_of(tape, outer), "block");
    EXPECT_EQ(path_of(tape, inner), "block/layer");
    EXPECT_EQ(path_of(tape, after), "");
}

TEST(NameScope, TwoOpeningsOfOneNameAreTwoScopes) {
    Tape<float> tape;
    const auto x = tape.input(1.0f);
    Symbol first;
    Symbol second;
    {
        const NameScope scope("Linear");
        first = x.tanh();
    }
    {
        const NameScope scope("Linear");
        second = tape.value(first).tanh();
    }
    EXPECT_NE(tape.scope_of(first), tape.scope_of(second));
    EXPECT_EQ(tape.scopes()[tape.scope_of(first)].name, "Linear");
    EXPECT_EQ(tape.scopes()[tape.scope_of(second)].name, "Linear");
}

TEST(NameScope, ModulesRecordTheirExpressionInAScopeNamedForTheirKind) {
    Tape<float> tape;
    const Mlp<float> mlp(tape, {3, 4, 2}, Activation::Tanh, init::xavier(1));
    const auto x = tape.input(Tensor<float>::filled(Shape{5, 3}, 0.0F));
    const auto y = mlp.express(x);
    EXPECT_EQ(path_of(tape, y), "Mlp/Linear");
    // The weights were recorded when the layers were built, outside any scope.
    EXPECT_EQ(path_of(tape, mlp.parameters()[0]), "");
}

TEST(NameScope, AFailedRecordLeavesItsScopesOffTheTape) {
    Tape<float> tape;
    const auto x = tape.input(Tensor<float>::filled(Shape{2, 3}, 0.0F));
    const Linear<float> layer(tape, 4, 2, init::xavier(2));
    const std::size_t nodes = tape.nodes().size();
    EXPECT_THROW(layer.express(x), ShapeError);
    ASSERT_EQ(tape.nodes().size(), nodes);
    const auto y = x.tanh();
    EXPECT_EQ(path_of(tape, y), "");
}

TEST(NameScope, ANetworkAndATapeReopenedFromItKeepTheScopes) {
    Tape<float> tape;
    const auto x = tape.input(1.0f);
    Symbol recorded;
    {
        const NameScope scope("head");
        recorded = x.tanh();
    }
    const Network<float> network = std::move(tape).into_network();
    EXPECT_EQ(path_of(network, recorded), "head");
    Tape<float> reopened = network.reopen();
    const auto z = [&] {
        const NameScope scope("tail");
        return reopened.value(recorded).tanh();
    }();
    EXPECT_EQ(path_of(reopened, recorded), "head");
    EXPECT_EQ(path_of(reopened, z), "tail");
}

TEST(NameScope, AScopeBelongsToTheThreadThatOpenedIt) {
    Tape<float> tape;
    const auto x = tape.input(1.0f);
    const NameScope scope("main thread");
    Symbol recorded_elsewhere;
    std::thread other([&] { recorded_elsewhere = x.tanh(); });
    other.join();
    EXPECT_EQ(path_of(tape, recorded_elsewhere), "");
    EXPECT_EQ(path_of(tape, x.exp()), "main thread");
}

TEST(NameScope, ClosingOutOfOrderEndsOnlyItsOwnScope) {
    Tape<float> tape;
    const auto x = tape.input(1.0f);
    std::optional<NameScope> outer(std::in_place, "outer");
    std::optional<NameScope> inner(std::in_place, "inner");
    outer.reset();
    const Symbol in_inner = x.tanh();
    inner.reset();
    const Symbol after = x.exp();
    EXPECT_EQ(path_of(tape, in_inner), "inner");
    EXPECT_EQ(path_of(tape, after), "");
}

TEST(NameScope, RefusesAnEmptyName) {
    EXPECT_THROW(NameScope(""), Error);
}

TEST(NameScope, ReadingTheScopeOfAnotherNetworksSymbolThrows) {
    Tape<float> one;
    const Symbol elsewhere = one.input(1.0f).tanh();
    Tape<float> other;
    other.input(1.0f);
    other.input(2.0f);
    EXPECT_THROW((void)other.scope_of(elsewhere), SymbolError);
}

TEST(SourcePayload, GivesBackWhatEachSourceWasRecordedWith) {
    Tape<double> tape;
    const auto weight = tape.parameter(Tensor<double>(Shape{2}, {1.5, -2.0}));
    const auto x = tape.input(Tensor<double>(Shape{2}, {3.0, 4.0}));
    const auto scale = tape.leaf(50.0);
    const auto y = (weight * x).sum() * scale;
    EXPECT_EQ(tape.payload(weight).data()[1], -2.0);
    EXPECT_EQ(tape.payload(x).data()[0], 3.0);
    EXPECT_EQ(tape.payload(scale).data()[0], 50.0);
    EXPECT_THROW((void)tape.payload(y), Error);
    const Symbol leaf = scale;
    const Network<double> network = std::move(tape).into_network();
    EXPECT_EQ(network.payload(leaf).data()[0], 50.0);
}

}  // namespace
}  // namespace topos
