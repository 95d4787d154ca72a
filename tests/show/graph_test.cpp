// show::graph: one labelled box per node, sources drawn apart, edges from
// operand to reader in operand order, derived nodes shaded, a plan's
// unscheduled nodes faded and declared values doubled, marked nodes thick,
// elected patterns as clusters or collapsed boxes, modules' name scopes as
// nested clusters, parameters named, scalar leaves valued, escaped titles, the same
// text for the same graph, large graphs laid out quickly, and the classes
// reaching the SVG where Graphviz is built in.
#include "show/seed_networks.hpp"
#include <topos/show/graph.hpp>
#include <topos/topos.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace topos::show {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A chain of `length` nodes: an input, then tanh after tanh.
Network<double> chain(std::size_t length) {
    Tape<double> tape;
    auto value = tape.input(0.5);
    for (std::size_t i = 1; i < length; ++i) {
        value = value.tanh();
    }
    return std::move(tape).into_network();
}

// The DOT line declaring box `name` ("n3", "p0"); empty when there is none.
std::string box_line(const std::string& dot, const std::string& name) {
    for (const std::string& line : test::lines_of(dot)) {
        if (line.starts_with("  " + name + " [")) {
            return line;
        }
    }
    return "";
}

// The names of the boxes the DOT declares, in order.
std::vector<std::string> boxes_of(const std::string& dot) {
    std::vector<std::string> boxes;
    for (const std::string& line : test::lines_of(dot)) {
        const bool box = line.starts_with("  n") || line.starts_with("  p");
        const bool edge = line.find(" -> ") != std::string::npos;
        if (box && !edge && line.find(" [label=") != std::string::npos) {
            boxes.push_back(line.substr(2, line.find(' ', 2) - 2));
        }
    }
    return boxes;
}

// (source, reader) of every edge, in order.
std::vector<std::pair<std::string, std::string>> edges_of(const std::string& dot) {
    std::vector<std::pair<std::string, std::string>> edges;
    for (const std::string& line : test::lines_of(dot)) {
        const std::size_t arrow = line.find(" -> ");
        if (arrow != std::string::npos) {
            const std::size_t end = line.find_first_of(" ;", arrow + 4);
            edges.emplace_back(line.substr(2, arrow - 2), line.substr(arrow + 4, end - arrow - 4));
        }
    }
    return edges;
}

// How many declared boxes carry the class word `word`.
std::size_t boxes_with_class(const std::string& dot, const std::string& word) {
    std::size_t count = 0;
    for (const std::string& box : boxes_of(dot)) {
        const std::string line = box_line(dot, box);
        const std::size_t start = line.find("class=\"") + 7;
        std::istringstream words(line.substr(start, line.find('"', start) - start));
        for (std::string each; words >> each;) {
            count += each == word ? 1 : 0;
        }
    }
    return count;
}

// "n3": the DOT name of node 3's box.
std::string node_box(std::uint32_t index) {
    std::string name(1, 'n');
    name += std::to_string(index);
    return name;
}

std::size_t occurrences(const std::string& text, const std::string& part) {
    std::size_t count = 0;
    for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) {
        ++count;
    }
    return count;
}

TEST(Graph, DrawsOneBoxPerTapeNodeLabelledWithIndexOpcodeAndShape) {
    Tape<float> tape;
    auto weights = tape.parameter(Tensor<float>({2, 2}, {0.5f, -0.25f, 0.25f, 0.4f}));
    auto hidden = tape.input(Tensor<float>({1, 2}, {1.0f, 2.0f})).matmul(weights).tanh();
    (void)(hidden * hidden).sum();
    const Picture picture = graph(tape);
    EXPECT_EQ(picture.nodes(), 6u);
    EXPECT_EQ(boxes_of(picture.dot()).size(), 6u);
    EXPECT_THAT(picture.dot(), HasSubstr("label=\"2 MatMul [1, 2]\""));
    EXPECT_THAT(picture.dot(), HasSubstr("label=\"5 Sum []\""));
    EXPECT_THAT(picture.dot(), HasSubstr("digraph"));
}

TEST(Graph, DrawsATapeAsRecordedSoFar) {
    Tape<float> tape;
    auto x = tape.input(1.0f);
    EXPECT_EQ(graph(tape).nodes(), 1u);
    (void)x.exp().log();
    EXPECT_EQ(graph(tape).nodes(), 3u);
}

TEST(Graph, DrawsParametersInputsIndicesAndLeavesApartFromOperations) {
    Tape<double> tape;
    auto table = tape.parameter(Tensor<double>({3, 2}, {1, 2, 3, 4, 5, 6}));
    auto rows = tape.indices({2}, {0, 2});
    auto scale = tape.leaf(Tensor<double>(2.0));
    auto input = tape.input(1.0);
    (void)(gather(table, rows).sum() * scale * input);
    const std::string dot = graph(tape).dot();
    EXPECT_THAT(box_line(dot, "n0"), HasSubstr("class=\"parameter\""));
    EXPECT_THAT(box_line(dot, "n1"), HasSubstr("class=\"input indices\""));
    EXPECT_THAT(box_line(dot, "n1"), HasSubstr("label=\"1 Input [2]\\nindices\""));
    EXPECT_THAT(box_line(dot, "n2"), HasSubstr("class=\"leaf\""));
    EXPECT_THAT(box_line(dot, "n3"), HasSubstr("class=\"input\""));
    EXPECT_THAT(box_line(dot, "n4"), HasSubstr("class=\"op\""));
    std::set<std::string> shapes;
    for (const std::string box : {"n0", "n2", "n3", "n4"}) {
        const std::string line = box_line(dot, box);
        const std::size_t start = line.find("shape=") + 6;
        shapes.insert(line.substr(start, line.find(',', start) - start));
    }
    EXPECT_EQ(shapes.size(), 4u) << dot;
}

TEST(Graph, DrawsEdgesFromOperandToReaderInOperandOrderLabelledWithThePosition) {
    const std::string dot = graph(test::walkthrough().network).dot();
    const std::vector<std::pair<std::string, std::string>> expected = {
        {"n1", "n2"}, {"n0", "n2"}, {"n2", "n3"}, {"n3", "n4"}, {"n3", "n4"}, {"n4", "n5"}};
    EXPECT_EQ(edges_of(dot), expected);
    EXPECT_LT(dot.find("n1 -> n2 [label=\"0\"]"), dot.find("n0 -> n2 [label=\"1\"]"));
    EXPECT_THAT(dot, HasSubstr("n3 -> n4 [label=\"0\"]"));
    EXPECT_THAT(dot, HasSubstr("n3 -> n4 [label=\"1\"]"));
    EXPECT_THAT(dot, HasSubstr("n2 -> n3;"));  // a single operand needs no position
}

TEST(Graph, ShadesExactlyTheNodesDifferentiationAppended) {
    const test::Walkthrough<float> trained = test::walkthrough(true);
    ASSERT_GT(trained.appended, 0u);
    const std::string dot = graph(trained.network, *trained.adjoints).dot();
    EXPECT_EQ(boxes_with_class(dot, "derived"), trained.appended);
    EXPECT_THAT(box_line(dot, "n5"), Not(HasSubstr("derived")));  // the target
    EXPECT_THAT(box_line(dot, "n6"), HasSubstr("derived"));
    EXPECT_THAT(box_line(dot, "n6"), HasSubstr("fillcolor="));
}

TEST(Graph, ShadesFromDerivedFromWhenGivenAndNothingOtherwise) {
    const test::Walkthrough<float> trained = test::walkthrough(true);
    EXPECT_EQ(boxes_with_class(graph(trained.network).dot(), "derived"), 0u);
    GraphOptions options;
    options.derived_from = 6;
    EXPECT_EQ(boxes_with_class(graph(trained.network, options).dot(), "derived"), trained.appended);
}

TEST(Graph, APlanFadesTheNodesItDoesNotSchedule) {
    const test::Walkthrough<float> trained = test::walkthrough(true);
    const Plan<float> plan = trained.network.entry(trained.adjoints->roots()).lower();
    const std::string dot = graph(plan).dot();
    std::set<std::uint32_t> scheduled;
    for (const Node& node : plan.nodes()) {
        scheduled.insert(node.index());
    }
    // The entry declares the loss and d loss / d weights: the input's gradient
    // that differentiate also recorded is never scheduled.
    const std::size_t unscheduled = trained.network.nodes().size() - scheduled.size();
    ASSERT_GT(unscheduled, 0u);
    EXPECT_EQ(boxes_with_class(dot, "unscheduled"), unscheduled);
    for (const Node& node : trained.network.nodes()) {
        const std::string line = box_line(dot, node_box(node.index()));
        const bool faded = line.find("unscheduled") != std::string::npos;
        EXPECT_EQ(faded, !scheduled.contains(node.index())) << line;
        EXPECT_EQ(line.find("dashed") != std::string::npos, faded) << line;
    }
    EXPECT_EQ(graph(plan).nodes(), trained.network.nodes().size());
}

TEST(Graph, APlanDoublesTheBorderOfItsDeclaredValues) {
    const test::Walkthrough<float> trained = test::walkthrough(true);
    const auto entry = trained.network.entry(trained.adjoints->roots()).observe({trained.hidden});
    const std::string dot = graph(entry.lower()).dot();
    EXPECT_EQ(boxes_with_class(dot, "declared"), 3u);
    EXPECT_EQ(occurrences(dot, "peripheries=2"), 3u);
    for (const Symbol& symbol : entry.declared()) {
        const std::string line = box_line(dot, node_box(symbol.index()));
        EXPECT_THAT(line, HasSubstr("declared"));
        EXPECT_THAT(line, HasSubstr("peripheries=2"));
    }
}

TEST(Graph, DrawsMarkedNodesWithAThickBorder) {
    const test::Walkthrough<float> net = test::walkthrough();
    GraphOptions options;
    options.marked = {net.hidden, net.weights};
    const std::string dot = graph(net.network, options).dot();
    EXPECT_EQ(boxes_with_class(dot, "marked"), 2u);
    EXPECT_THAT(box_line(dot, "n3"), HasSubstr("penwidth=3"));
    EXPECT_THAT(box_line(dot, "n0"), HasSubstr("penwidth=3"));
    EXPECT_THAT(box_line(dot, "n2"), Not(HasSubstr("penwidth")));
}

TEST(Graph, RefusesToMarkANodeTheGraphDoesNotHave) {
    GraphOptions options;
    options.marked = {Symbol(99, 0)};
    EXPECT_THROW((void)graph(test::walkthrough().network, options), ShowError);
}

TEST(Graph, DrawsEachElectedPatternAsAClusterLabelledWithItsKind) {
    const Plan<float> plan = test::convolution_plan();
    ASSERT_EQ(plan.patterns().size(), 2u);
    const std::string dot = graph(plan).dot();
    EXPECT_EQ(occurrences(dot, "subgraph cluster_"), 2u);
    EXPECT_THAT(dot, HasSubstr("label=\"WindowProduct\""));
    EXPECT_THAT(dot, HasSubstr("label=\"ReduceWindow\""));
    const std::vector<std::string> lines = test::lines_of(dot);
    for (std::size_t k = 0; k < plan.patterns().size(); ++k) {
        std::string cluster = "  subgraph cluster_";
        cluster += std::to_string(k);
        cluster += " {";
        const auto opening = std::find(lines.begin(), lines.end(), cluster);
        ASSERT_NE(opening, lines.end());
        std::string members;
        for (const Symbol& symbol : plan.patterns()[k].nodes()) {
            members += ' ';
            members += node_box(symbol.index());
            members += ';';
        }
        EXPECT_EQ(*(opening + 2), "   " + members);
    }
    EXPECT_EQ(graph(plan).nodes(), plan.entry().network().nodes().size());
}

TEST(Graph, CollapsingPatternsDrawsOneBoxPerPatternJoinedToItsNeighbours) {
    const Plan<float> plan = test::convolution_plan();
    GraphOptions options;
    options.collapse_patterns = true;
    const Picture collapsed = graph(plan, options);
    std::size_t covered = 0;
    for (const Pattern& pattern : plan.patterns()) {
        covered += pattern.nodes().size();
    }
    const std::size_t all = plan.entry().network().nodes().size();
    EXPECT_EQ(collapsed.nodes(), all - covered + plan.patterns().size());
    EXPECT_LT(collapsed.nodes(), graph(plan).nodes());
    const std::string& dot = collapsed.dot();
    EXPECT_THAT(dot, Not(HasSubstr("cluster")));
    EXPECT_EQ(boxes_with_class(dot, "pattern"), 2u);
    EXPECT_THAT(box_line(dot, "p0"), HasSubstr("WindowProduct"));
    EXPECT_THAT(box_line(dot, "p1"), HasSubstr("ReduceWindow"));
    const std::vector<std::string> boxes = boxes_of(dot);
    const std::set<std::string> drawn(boxes.begin(), boxes.end());
    EXPECT_EQ(drawn.size(), collapsed.nodes());
    std::set<std::string> joined;
    for (const auto& [source, reader] : edges_of(dot)) {
        EXPECT_TRUE(drawn.contains(source)) << source;
        EXPECT_TRUE(drawn.contains(reader)) << reader;
        EXPECT_NE(source, reader);
        joined.insert(source);
        joined.insert(reader);
    }
    // The image feeds the convolution's box; the pool's box feeds the sum.
    EXPECT_THAT(dot, HasSubstr("n0 -> p0;"));
    const std::string sum = node_box(plan.entry().roots()[0].index());
    EXPECT_THAT(dot, HasSubstr("p1 -> " + sum + ";"));
    EXPECT_TRUE(joined.contains("p0") && joined.contains("p1"));
}

// A [5, 3] batch through Mlp{3, 4, 2} and a mean: the module's scopes and names.
struct MlpGraph {
    Network<float> network;
    std::vector<NamedParameter> names;
};

MlpGraph mlp_graph() {
    Tape<float> tape;
    const Mlp<float> mlp(tape, {3, 4, 2}, Activation::Tanh, init::xavier(3));
    const auto x = tape.input(Tensor<float>::filled(Shape{5, 3}, 1.0F));
    mlp.express(x).mean();
    return {std::move(tape).into_network(), mlp.named_parameters()};
}

// The lines of the cluster labelled `label`, its opening line first and its
// closing brace last; empty when there is none.
std::vector<std::string> cluster_lines(const std::string& dot, const std::string& label) {
    const std::vector<std::string> lines = test::lines_of(dot);
    for (std::size_t i = 1; i < lines.size(); ++i) {
        if (lines[i].find("graph [label=\"" + label + "\"") == std::string::npos) {
            continue;
        }
        const std::size_t indent = lines[i - 1].find_first_not_of(' ');
        std::vector<std::string> cluster{lines[i - 1]};
        for (std::size_t j = i; j < lines.size(); ++j) {
            cluster.push_back(lines[j]);
            if (lines[j] == std::string(indent, ' ') + "}") {
                return cluster;
            }
        }
    }
    return {};
}

// The boxes a cluster lists as its own members (not those of clusters within it).
std::set<std::string> own_members(const std::vector<std::string>& cluster) {
    std::set<std::string> members;
    if (cluster.size() > 2 && cluster[2].find("subgraph") == std::string::npos &&
        cluster[2].find_first_not_of(' ') != std::string::npos && cluster[2] != cluster.back()) {
        std::istringstream words(cluster[2]);
        for (std::string word; words >> word;) {
            members.insert(word.substr(0, word.size() - 1));
        }
    }
    return members;
}

TEST(Graph, NamesEachParameterBoxWhenGivenTheModelsNames) {
    const MlpGraph model = mlp_graph();
    GraphOptions options;
    options.names = model.names;
    const std::string dot = graph(model.network, options).dot();
    for (const NamedParameter& named : model.names) {
        EXPECT_THAT(box_line(dot, node_box(named.symbol.index())),
                    HasSubstr("\\n" + named.name + "\""))
            << named.name;
    }
    EXPECT_THAT(graph(model.network).dot(), Not(HasSubstr("0.weight")));
}

TEST(Graph, ClustersEachModuleLabelledWithTheNameItsParametersShare) {
    const MlpGraph model = mlp_graph();
    GraphOptions options;
    options.names = model.names;
    const std::string dot = graph(model.network, options).dot();
    const std::vector<std::string> mlp = cluster_lines(dot, "Mlp");
    const std::vector<std::string> first = cluster_lines(dot, "0: Linear");
    const std::vector<std::string> second = cluster_lines(dot, "2: Linear");
    ASSERT_FALSE(mlp.empty());
    ASSERT_FALSE(first.empty());
    ASSERT_FALSE(second.empty());
    EXPECT_THAT(mlp[1], HasSubstr("class=\"scope\""));
    // Both layers nest in the Mlp's cluster, one level deeper.
    const std::size_t mlp_indent = mlp[0].find_first_not_of(' ');
    EXPECT_EQ(first[0].find_first_not_of(' '), mlp_indent + 2);
    EXPECT_NE(std::find(mlp.begin(), mlp.end(), first[0]), mlp.end());
    EXPECT_NE(std::find(mlp.begin(), mlp.end(), second[0]), mlp.end());
    // A layer holds its weight, its bias, its product, the bias broadcast and the sum.
    const std::set<std::string> members = own_members(first);
    EXPECT_EQ(members.size(), 5u);
    EXPECT_TRUE(members.contains(node_box(model.names[0].symbol.index())));
    EXPECT_TRUE(members.contains(node_box(model.names[1].symbol.index())));
    // The tanh between the layers is the Mlp's own; the input and the mean are outside.
    EXPECT_EQ(own_members(mlp).size(), 1u);
    EXPECT_EQ(occurrences(dot, "subgraph cluster_s"), 3u);
}

TEST(Graph, LabelsModuleClustersByKindWhenNoNamesAreGiven) {
    const std::string dot = graph(mlp_graph().network).dot();
    EXPECT_EQ(cluster_lines(dot, "0: Linear").size(), 0u);
    EXPECT_EQ(occurrences(dot, "label=\"Linear\""), 2u);
    EXPECT_EQ(occurrences(dot, "label=\"Mlp\""), 1u);
}

TEST(Graph, DrawsEveryBoxAtTheTopLevelWhenScopesAreNotGrouped) {
    GraphOptions options;
    options.group_scopes = false;
    const MlpGraph model = mlp_graph();
    const std::string dot = graph(model.network, options).dot();
    EXPECT_THAT(dot, Not(HasSubstr("subgraph")));
    EXPECT_EQ(boxes_of(dot).size(), model.network.nodes().size());
}

TEST(Graph, RefusesANameForANodeThatIsNotAParameterOfTheGraph) {
    const MlpGraph model = mlp_graph();
    GraphOptions options;
    options.names = {{"input", model.network.nodes()[model.names.size()].symbol(), false}};
    EXPECT_THROW(graph(model.network, options), ShowError);
    Tape<float> other;
    other.input(1.0F);
    options.names = {{"0.weight", other.parameter(2.0F), false}};
    EXPECT_THROW(graph(model.network, options), ShowError);
}

TEST(Graph, ShowsTheValueOfScalarLeaves) {
    Tape<double> tape;
    const auto x = tape.input(Tensor<double>(Shape{2}, {1.0, 2.0}));
    const auto batch = tape.leaf(50.0);
    const auto scale = tape.leaf(Tensor<double>(Shape{2}, {0.5, 0.25}));
    ((x * scale).sum() / batch).tanh();
    const std::string dot = graph(tape).dot();
    EXPECT_THAT(box_line(dot, node_box(batch.index())), HasSubstr("Leaf [] = 50\""));
    EXPECT_THAT(box_line(dot, node_box(scale.index())), HasSubstr("Leaf [2]\""));
}

TEST(Graph, DrawsAPatternInsideTheScopeThatHoldsAllItsNodes) {
    Tape<float> tape;
    const Conv2d<float> convolution(tape, {1, 2, 3}, init::normal(2, 0.3));
    const MaxPool2d<float> pool(2, 2);
    const auto image = tape.input(init::normal(1, 1.0)(Shape{1, 1, 6, 6}));
    const Symbol loss = pool.express(convolution.express(image)).sum();
    const Plan<float> plan = std::move(tape).into_network().entry({loss}).lower();
    ASSERT_EQ(plan.patterns().size(), 2u);
    GraphOptions options;
    options.names = named_parameters({{"conv", convolution}});
    const std::string dot = graph(plan, options).dot();
    const std::vector<std::string> conv = cluster_lines(dot, "conv: Conv2d");
    const std::vector<std::string> window = cluster_lines(dot, "WindowProduct");
    ASSERT_FALSE(conv.empty());
    ASSERT_FALSE(window.empty());
    EXPECT_NE(std::find(conv.begin(), conv.end(), window[0]), conv.end()) << dot;
    EXPECT_FALSE(cluster_lines(dot, "MaxPool2d").empty());
}

TEST(Graph, EscapesQuotesBackslashesAndLineBreaksInTheTitle) {
    GraphOptions options;
    options.title = "say \"hi\" \\ then\nleave";
    const Picture picture = graph(test::walkthrough().network, options);
    EXPECT_THAT(picture.dot(), HasSubstr("label=\"say \\\"hi\\\" \\\\ then\\nleave\""));
    if (Picture::can_lay_out()) {
        EXPECT_THAT(picture.svg(), HasSubstr("say &quot;hi&quot; \\ then"));
    }
}

TEST(Graph, DrawsNoTitleWhenNoneIsGiven) {
    const std::string dot = graph(test::walkthrough().network).dot();
    EXPECT_THAT(test::lines_of(dot)[1], Not(HasSubstr("label=")));
}

TEST(Graph, WritesTheSameTextForTheSameGraph) {
    const test::Walkthrough<float> trained = test::walkthrough(true);
    const Plan<float> plan = trained.network.entry(trained.adjoints->roots()).lower();
    EXPECT_EQ(graph(plan).dot(), graph(plan).dot());
    EXPECT_EQ(graph(trained.network, *trained.adjoints).dot(),
              graph(test::walkthrough(true).network, *trained.adjoints).dot());
    GraphOptions collapse;
    collapse.collapse_patterns = true;
    EXPECT_EQ(graph(test::convolution_plan(), collapse).dot(),
              graph(test::convolution_plan(), collapse).dot());
}

TEST(Graph, DrawsFloatAndDoubleGraphsAlike) {
    const test::Walkthrough<double> twice = test::walkthrough<double>();
    const test::Walkthrough<float> single = test::walkthrough();
    EXPECT_EQ(graph(twice.network).dot(), graph(single.network).dot());
    EXPECT_EQ(graph(twice.network.entry({twice.loss}).lower()).dot(),
              graph(single.network.entry({single.loss}).lower()).dot());
}

TEST(Graph, RunsLeftToRightWhenAsked) {
    GraphOptions options;
    options.left_to_right = true;
    EXPECT_THAT(graph(test::walkthrough().network, options).dot(), HasSubstr("rankdir=LR"));
    EXPECT_THAT(graph(test::walkthrough().network).dot(), HasSubstr("rankdir=TB"));
}

TEST(Graph, DrawsAFiveHundredNodeChainQuickly) {
    const Network<double> network = chain(500);
    const auto start = std::chrono::steady_clock::now();
    const Picture picture = graph(network);
    std::string svg;
    if (Picture::can_lay_out()) {
        svg = picture.svg();
    }
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    EXPECT_EQ(picture.nodes(), 500u);
    EXPECT_EQ(edges_of(picture.dot()).size(), 499u);
    EXPECT_LT(took.count(), 5.0);  // about 0.1 s: the bound only catches a runaway layout
    if (Picture::can_lay_out()) {
        EXPECT_EQ(occurrences(svg, "class=\"node op\""), 499u);
    }
}

// A training graph of some 400 nodes took dot minutes with its default
// placement and spline routing; large graphs trade those for speed.
TEST(Graph, LaysOutALargeTrainingGraphQuickly) {
    if (!Picture::can_lay_out()) {
        GTEST_SKIP() << "this build has no Graphviz library";
    }
    Tape<float> tape;
    auto hidden = tape.input(init::normal(5, 1.0)(Shape{4, 8}));
    std::vector<Symbol> parameters;
    for (std::uint64_t layer = 0; layer < 25; ++layer) {
        auto weights = tape.parameter(init::normal(layer, 0.3)(Shape{8, 8}));
        auto bias = tape.parameter(init::normal(layer + 100, 0.3)(Shape{8}));
        parameters.insert(parameters.end(), {weights, bias});
        hidden = (hidden.matmul(weights) + bias).tanh();
    }
    auto loss = (hidden * hidden).sum();
    const auto adjoints = tape.differentiate(loss, parameters);
    const auto network = std::move(tape).into_network();
    const auto start = std::chrono::steady_clock::now();
    const Picture picture = graph(network.entry(adjoints.roots()).lower());
    const std::string svg = picture.svg();
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    EXPECT_GT(picture.nodes(), 400u);
    EXPECT_THAT(svg, HasSubstr("</svg>"));
    EXPECT_LT(took.count(), 10.0);  // about 0.2 s
}

TEST(Graph, CarriesItsClassesIntoTheSvg) {
    if (!Picture::can_lay_out()) {
        GTEST_SKIP() << "this build has no Graphviz library";
    }
    const test::Walkthrough<float> trained = test::walkthrough(true);
    GraphOptions options;
    options.marked = {trained.hidden};
    options.derived_from = 6;
    const std::string svg =
        graph(trained.network.entry(trained.adjoints->roots()).lower(), options).svg();
    EXPECT_THAT(svg, HasSubstr("<svg"));
    EXPECT_THAT(svg, HasSubstr("class=\"node parameter\""));
    EXPECT_THAT(svg, HasSubstr("class=\"node input\""));
    EXPECT_THAT(svg, HasSubstr("class=\"node op marked\""));
    EXPECT_THAT(svg, HasSubstr("class=\"node op derived unscheduled\""));
    EXPECT_THAT(svg, HasSubstr("class=\"node op derived declared\""));
    EXPECT_THAT(graph(test::convolution_plan()).svg(), HasSubstr("class=\"cluster pattern\""));
    EXPECT_THAT(graph(mlp_graph().network).svg(), HasSubstr("class=\"cluster scope\""));
}

TEST(Graph, SaysHowToGetSvgWhenGraphvizIsMissing) {
    if (Picture::can_lay_out()) {
        GTEST_SKIP() << "this build lays out pictures with Graphviz";
    }
    const Picture picture = graph(test::walkthrough().network);
    EXPECT_THROW((void)picture.svg(), GraphvizUnavailable);
    EXPECT_THAT(picture.html().html(), HasSubstr("2 MatMul [1, 2]"));
}

}  // namespace
}  // namespace topos::show
