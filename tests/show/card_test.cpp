// show::card: what each card shows of its object, on the walkthrough network
// (loss = sum(tanh(input weights)^2)) and on tensors at the edges (rank 0,
// empty, non-finite, millions of elements); every card well-formed, its links
// resolved within it, nothing external named.
#include "show/seed_networks.hpp"
#include "show/well_formed.hpp"
#include <topos/show/card.hpp>
#include <topos/show/plot.hpp>
#include <topos/topos.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <charconv>
#include <cstddef>
#include <limits>
#include <set>
#include <string>
#include <vector>

namespace topos::show {
namespace {

using test::attribute_values;
using test::dangling_link;
using test::external_reference;
using test::occurrences;
using test::repeated_id;
using test::well_formedness_error;
using ::testing::HasSubstr;
using ::testing::Not;

// A chain of `count` nodes: a parameter, then tanh after tanh.
Network<float> parameter_chain(std::size_t count) {
    Tape<float> tape;
    auto value = tape.parameter(Tensor<float>({2}, {0.5f, 1.0f}));
    for (std::size_t i = 1; i < count; ++i) {
        value = value.tanh();
    }
    return std::move(tape).into_network();
}

// What every card must be: well-formed, self-contained, one topos-card div.
void expect_sound(const Html& card) {
    const std::string& html = card.html();
    EXPECT_EQ(well_formedness_error(html), "");
    EXPECT_EQ(external_reference(html), "");
    EXPECT_EQ(dangling_link(html), "");
    EXPECT_EQ(repeated_id(html), "");
    EXPECT_EQ(html.rfind("<div class=\"topos-card ", 0), 0u) << html.substr(0, 80);
}

TEST(TensorCard, HeaderNamesElementTypeAndShapeThenExtremesAndMean) {
    const Html card = show::card(Tensor<float>({2, 3}, {1, -1, 2, 5, 0, 3}));
    expect_sound(card);
    EXPECT_THAT(card.html(), HasSubstr("topos-tensor"));
    EXPECT_THAT(card.html(), HasSubstr("Tensor&lt;float&gt; [2, 3]"));
    EXPECT_THAT(card.html(), HasSubstr("min <b>-1</b>"));
    EXPECT_THAT(card.html(), HasSubstr("max <b>5</b>"));
    EXPECT_THAT(card.html(), HasSubstr("mean <b>1.66667</b>"));
    EXPECT_THAT(card.html(), Not(HasSubstr("NaN")));
    EXPECT_THAT(card.html(), Not(HasSubstr("infinite")));
}

// The colour a card paints the cell of `text` with: "blue", "red", "none", or
// what the style says when it is neither.
std::string cell_colour(const std::string& html, const std::string& text) {
    const std::string end = "\">" + text + "</td>";
    const std::size_t close = html.find(end);
    if (close == std::string::npos) {
        return "no cell " + text;
    }
    const std::size_t open = html.rfind("<td style=\"", close);
    const std::string style = html.substr(open + 11, close - open - 11);
    if (style == "background:none") {
        return "none";
    }
    if (style.rfind("background:rgba(33,102,172,", 0) == 0) {
        return "blue";
    }
    if (style.rfind("background:rgba(178,24,43,", 0) == 0) {
        return "red";
    }
    return style;
}

// The opacity of the cell of `text`.
double cell_opacity(const std::string& html, const std::string& text) {
    const std::size_t close = html.find("\">" + text + "</td>");
    const std::size_t comma = html.rfind(',', close);
    return std::stod(html.substr(comma + 1, close - 1 - comma - 1));
}

TEST(TensorCard, SmallMatrixIsATableShadedBlueBelowZeroAndRedAboveIt) {
    const Html card = show::card(Tensor<double>({2, 3}, {1, -1, 2, 5, 0, 3}));
    expect_sound(card);
    EXPECT_THAT(card.html(), HasSubstr("Tensor&lt;double&gt; [2, 3]"));
    EXPECT_EQ(occurrences(card.html(), "<table"), 1u);
    EXPECT_EQ(occurrences(card.html(), "<td style=\"background:rgba("), 5u);
    EXPECT_THAT(card.html(), HasSubstr("<td style=\"background:rgba(178,24,43,0.60)\">5</td>"));
    EXPECT_EQ(cell_colour(card.html(), "-1"), "blue");
    EXPECT_EQ(cell_colour(card.html(), "0"), "none");
    for (const char* positive : {"1", "2", "3", "5"}) {
        EXPECT_EQ(cell_colour(card.html(), positive), "red") << positive;
    }
}

TEST(TensorCard, SignedDataDivergesFromZeroSoASmallNegativeIsPaintedNegative) {
    const std::string html = show::card(Tensor<double>({2}, {-0.01, 5})).html();
    EXPECT_EQ(cell_colour(html, "-0.01"), "blue") << html;
    EXPECT_EQ(cell_colour(html, "5"), "red") << html;
    EXPECT_GT(cell_opacity(html, "-0.01"), 0);  // faint, but visible
    EXPECT_LT(cell_opacity(html, "-0.01"), cell_opacity(html, "5"));
    const std::string mixed =
        show::card(Tensor<float>({6}, {-3.0f, -0.5f, -0.001f, 0.002f, 0.4f, 1.0f})).html();
    for (const char* negative : {"-3", "-0.5", "-0.001"}) {
        EXPECT_EQ(cell_colour(mixed, negative), "blue") << negative;
    }
    for (const char* positive : {"0.002", "0.4", "1"}) {
        EXPECT_EQ(cell_colour(mixed, positive), "red") << positive;
    }
}

TEST(TensorCard, SignedDataSharesOneScaleSetByTheLargerMagnitude) {
    const std::string html = show::card(Tensor<double>({4}, {-4, -2, 2, 8})).html();
    EXPECT_DOUBLE_EQ(cell_opacity(html, "8"), 0.60);
    EXPECT_DOUBLE_EQ(cell_opacity(html, "-2"), cell_opacity(html, "2"));
    EXPECT_LT(cell_opacity(html, "-4"), 0.60);  // -4 is half the larger magnitude
    EXPECT_LT(cell_opacity(html, "-2"), cell_opacity(html, "-4"));
}

TEST(TensorCard, DataOfOneSignIsShadedFromZeroInItsOwnColour) {
    const std::string positive = show::card(Tensor<double>({3}, {0.9, 0.95, 1})).html();
    for (const char* value : {"0.9", "0.95", "1"}) {
        EXPECT_EQ(cell_colour(positive, value), "red") << value;
    }
    EXPECT_GT(cell_opacity(positive, "0.9"), 0.5);  // a magnitude near the largest
    const std::string negative = show::card(Tensor<double>({3}, {-6, -3, -1})).html();
    for (const char* value : {"-6", "-3", "-1"}) {
        EXPECT_EQ(cell_colour(negative, value), "blue") << value;
    }
    EXPECT_DOUBLE_EQ(cell_opacity(negative, "-6"), 0.60);
}

TEST(TensorCard, CountsNaNAndInfinitiesAndShadesOnlyFiniteCells) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    const Html card = show::card(Tensor<float>({2, 3}, {1, nan, inf, -inf, 2, 3}));
    expect_sound(card);
    EXPECT_THAT(card.html(), HasSubstr("NaN <b>1</b>"));
    EXPECT_THAT(card.html(), HasSubstr("infinite <b>2</b>"));
    EXPECT_THAT(card.html(), HasSubstr("min <b>1</b>"));
    EXPECT_THAT(card.html(), HasSubstr("max <b>3</b>"));
    EXPECT_THAT(card.html(), HasSubstr("mean <b>2</b>"));
    EXPECT_EQ(occurrences(card.html(), "<td class=\"nonfinite\">"), 3u);
    EXPECT_EQ(occurrences(card.html(), "<td style=\"background:"), 3u);
}

TEST(TensorCard, RankZeroShowsTheValueAlone) {
    const Html card = show::card(Tensor<double>(2.5));
    expect_sound(card);
    EXPECT_THAT(card.html(), HasSubstr("Tensor&lt;double&gt; []"));
    EXPECT_THAT(card.html(), HasSubstr(">2.5</p>"));
    EXPECT_THAT(card.html(), Not(HasSubstr("<table")));
    EXPECT_THAT(card.html(), Not(HasSubstr("min")));
}

TEST(TensorCard, RankZeroNonFiniteValueIsMarkedNonFinite) {
    const Html card = show::card(Tensor<float>(-std::numeric_limits<float>::infinity()));
    expect_sound(card);
    EXPECT_THAT(card.html(), HasSubstr("<p class=\"topos-scalar nonfinite\">-inf</p>"));
}

TEST(TensorCard, RankOneIsASingleShadedRow) {
    const Html card = show::card(Tensor<double>({4}, {3, 1, 4, 1}));
    expect_sound(card);
    EXPECT_EQ(occurrences(card.html(), "<tr>"), 2u);  // the column indices, then the values
    EXPECT_EQ(occurrences(card.html(), "<td style="), 4u);
}

TEST(TensorCard, EmptyTensorShowsItsHeaderAndNoElements) {
    const Html card = show::card(Tensor<float>::filled(Shape{2, 0, 3}, 1.0f));
    expect_sound(card);
    EXPECT_THAT(card.html(), HasSubstr("Tensor&lt;float&gt; [2, 0, 3]"));
    EXPECT_THAT(card.html(), HasSubstr("no elements"));
    EXPECT_THAT(card.html(), Not(HasSubstr("<table")));
    EXPECT_THAT(card.html(), Not(HasSubstr("<svg")));
}

TEST(TensorCard, SmallTensorOfRankThreeShowsItsFirstMatrixUnderACaption) {
    const Html card = show::card(Tensor<float>::generate(Shape{3, 2, 4}, [](std::span<float> all) {
        for (std::size_t i = 0; i < all.size(); ++i) {
            all[i] = static_cast<float>(i);
        }
    }));
    expect_sound(card);
    EXPECT_THAT(card.html(), HasSubstr("<caption>the first matrix, [0, :, :], of 3</caption>"));
    EXPECT_EQ(occurrences(card.html(), "<td "), 8u);
    EXPECT_THAT(card.html(), HasSubstr("max <b>23</b>"));
}

TEST(TensorCard, HugeTensorStaysSmallAndShowsAHistogramOfTwentyBarsWithItsRange) {
    const Html card =
        show::card(Tensor<float>::generate(Shape{2000, 1000}, [](std::span<float> all) {
            for (std::size_t i = 0; i < all.size(); ++i) {
                all[i] = static_cast<float>(i % 1000) - 250.0f;
            }
        }));
    expect_sound(card);
    EXPECT_LT(card.html().size(), 100'000u);
    EXPECT_THAT(card.html(), HasSubstr("elements <b>2000000</b>"));
    EXPECT_EQ(occurrences(card.html(), "<svg class=\"topos-histogram\""), 1u);
    EXPECT_EQ(occurrences(card.html(), "<rect class=\"topos-bar\""), 20u);
    EXPECT_THAT(card.html(),
                HasSubstr("<div class=\"topos-range\"><span>-250</span><span>749</span>"));
    EXPECT_THAT(card.html(), Not(HasSubstr("<table")));
}

TEST(TensorCard, LargeTensorWithoutFiniteValuesSaysSoInsteadOfAHistogram) {
    const Html card =
        show::card(Tensor<double>::filled(Shape{1000}, std::numeric_limits<double>::quiet_NaN()));
    expect_sound(card);
    EXPECT_THAT(card.html(), HasSubstr("NaN <b>1000</b>"));
    EXPECT_THAT(card.html(), HasSubstr("no finite elements"));
    EXPECT_THAT(card.html(), Not(HasSubstr("<rect")));
}

TEST(GraphCard, TapeHasOneRowPerNodeAndEachOperandLinksToAnExistingRow) {
    Tape<float> tape;
    auto weights = tape.parameter(Tensor<float>({2, 2}, {0.5f, -0.25f, 0.25f, 0.4f}));
    auto input = tape.input(Tensor<float>({1, 2}, {1.0f, 2.0f}));
    auto hidden = input.matmul(weights).tanh();
    (void)(hidden * hidden).sum();
    const Html card = show::card(tape);
    expect_sound(card);
    EXPECT_THAT(card.html(), HasSubstr("topos-tape"));
    EXPECT_EQ(occurrences(card.html(), "<tr id=\""), 6u);
    const std::vector<std::string> links = attribute_values(card.html(), "href");
    EXPECT_EQ(links.size(), 6u);  // MatMul 1, 0; Tanh 2; Mul 3, 3; Sum 4
    EXPECT_THAT(card.html(), HasSubstr("<td class=\"topos-op\">MatMul</td>"));
    EXPECT_THAT(card.html(), HasSubstr("tape: 6 nodes, 1 parameter, 1 input"));
}

TEST(GraphCard, NetworkShowsAttributesBesideOperandsAndEndsWithTheDescribeSummary) {
    Tape<float> tape;
    auto weights = tape.parameter(Tensor<float>({2, 2}, {0.5f, -0.25f, 0.25f, 0.4f}));
    auto input = tape.input(Tensor<float>({1, 2}, {1.0f, 2.0f}));
    auto hidden = input.matmul(weights).tanh();
    auto loss = (hidden * hidden).sum();
    (void)tape.differentiate(loss, {weights});
    const Network<float> network = std::move(tape).into_network();
    const Html card = show::card(network);
    expect_sound(card);
    EXPECT_EQ(occurrences(card.html(), "<tr id=\""), network.nodes().size());
    EXPECT_THAT(card.html(), HasSubstr("axis=0 extent=1"));
    EXPECT_THAT(card.html(), HasSubstr("order=[1, 0]"));
    EXPECT_THAT(card.html(), HasSubstr("network: 22 nodes, 1 parameter, 1 input, 2 leaves"));
}

TEST(GraphCard, TwoCardsOfOneNetworkShareNoId) {
    const test::Walkthrough<float> graph = test::walkthrough();
    const std::string both = show::card(graph.network).html() + show::card(graph.network).html();
    EXPECT_EQ(repeated_id(both), "");
    EXPECT_EQ(dangling_link(both), "");
}

TEST(GraphCard, ElidesTheMiddlePastTwoHundredNodesKeepingTheFirstAndLastHundred) {
    const Html card = show::card(parameter_chain(250));
    expect_sound(card);
    EXPECT_EQ(occurrences(card.html(), "<tr id=\""), 200u);
    EXPECT_THAT(card.html(), HasSubstr("50 nodes elided"));
    const std::vector<std::string> ids = attribute_values(card.html(), "id");
    const auto has_row = [&](std::size_t node) {
        const std::string suffix = std::string("-node-").append(std::to_string(node));
        for (const std::string& id : ids) {
            if (id.size() > suffix.size() && id.ends_with(suffix)) {
                return true;
            }
        }
        return false;
    };
    EXPECT_TRUE(has_row(99));
    EXPECT_FALSE(has_row(100));
    EXPECT_FALSE(has_row(149));
    EXPECT_TRUE(has_row(150));
    EXPECT_TRUE(has_row(249));
    EXPECT_THAT(card.html(), HasSubstr("network: 250 nodes"));
}

TEST(GraphCard, TwoHundredNodesAreAllShown) {
    const Html card = show::card(parameter_chain(200));
    expect_sound(card);
    EXPECT_EQ(occurrences(card.html(), "<tr id=\""), 200u);
    EXPECT_THAT(card.html(), Not(HasSubstr("elided")));
}

TEST(PlanCard, ShowsTheScheduleWithItsLivenessWordsAndTheLiveVolumeCurve) {
    const test::Walkthrough<float> graph = test::walkthrough();
    const Plan<float> plan = graph.network.entry({graph.loss}).lower();
    const Html card = show::card(plan);
    expect_sound(card);
    EXPECT_THAT(card.html(), HasSubstr("topos-plan"));
    EXPECT_EQ(occurrences(card.html(), "<tr id=\""), 6u);
    EXPECT_THAT(card.html(), HasSubstr(">freed after 2</td>"));
    EXPECT_THAT(card.html(), HasSubstr(">kept</td>"));
    EXPECT_THAT(card.html(), HasSubstr("no patterns elected"));
    EXPECT_THAT(card.html(), HasSubstr("plan: forward; 6 of 6 nodes evaluated, 1 readable"));
    EXPECT_THAT(card.html(), HasSubstr("live volume: peak 8 elements at node 2, retain-all 13"));
    EXPECT_THAT(card.html(), HasSubstr(live_volume(plan).html(640, 240).html()));
}

TEST(PlanCard, ElidesTheMiddleOfALongScheduleAndLinksOnlyToRowsShown) {
    const Network<float> network = parameter_chain(250);
    const Html card = show::card(network.entry({network.nodes().back().symbol()}).lower());
    expect_sound(card);
    EXPECT_EQ(occurrences(card.html(), "<tr id=\""), 200u);
    EXPECT_THAT(card.html(), HasSubstr("50 nodes elided"));
    EXPECT_THAT(card.html(), HasSubstr("<span class=\"topos-elided-ref\">149</span>"));
}

TEST(PlanCard, BackwardPostureShowsRetainedAndReleasableValues) {
    const test::Walkthrough<float> graph = test::walkthrough();
    const Html card = show::card(graph.network.entry({graph.loss}).backward().lower());
    expect_sound(card);
    EXPECT_THAT(card.html(), HasSubstr(">retained</td>"));
    EXPECT_THAT(card.html(), HasSubstr(">releasable after 3</td>"));
}

TEST(PlanCard, ElectedPatternsAreListedAndTheirInteriorNodesMarkedFused) {
    Tape<double> tape;
    auto image = tape.input(init::normal(1, 1.0)(Shape{1, 1, 6, 6}));
    auto filters = tape.parameter(init::normal(2, 0.3)(Shape{2, 1, 3, 3}));
    auto bias = tape.parameter(Tensor<double>::filled(Shape{2}, 0.0));
    auto loss = max_pool(conv2d(image, filters, bias, 1, 0).relu(), 2, 2).sum();
    const Network<double> network = std::move(tape).into_network();
    const Html card = show::card(network.entry({loss}).lower());
    expect_sound(card);
    EXPECT_THAT(card.html(),
                HasSubstr("<li>WindowProduct rooted at node 9, covering 5 nodes, served as "
                          "WindowProduct</li>"));
    EXPECT_EQ(occurrences(card.html(), ">fused</td>"), 15u);
    EXPECT_THAT(card.html(), HasSubstr("fused 2 groups, 15 nodes replaced"));
}

TEST(EntryCard, ShowsRootsObservedValuesNumericsPostureAndElection) {
    const test::Walkthrough<float> graph = test::walkthrough();
    const Entry<float> entry = graph.network.entry({graph.loss})
                                   .observe({graph.hidden})
                                   .numerics(Numerics::Exact)
                                   .backward()
                                   .elect_patterns(false);
    const Html card = show::card(entry);
    expect_sound(card);
    EXPECT_THAT(card.html(), HasSubstr("<th>roots</th><td>node 5 (Sum, [])</td>"));
    EXPECT_THAT(card.html(), HasSubstr("<th>observed</th><td>node 3 (Tanh, [1, 2])</td>"));
    EXPECT_THAT(card.html(), HasSubstr("<th>numerics</th><td>Exact</td>"));
    EXPECT_THAT(card.html(), HasSubstr("<th>posture</th><td>backward"));
    EXPECT_THAT(card.html(), HasSubstr("<th>elects patterns</th><td>no</td>"));
}

TEST(EntryCard, DefaultEntryIsForwardFastAndElectsWithNothingObserved) {
    const test::Walkthrough<float> graph = test::walkthrough();
    const Html card = show::card(graph.network.entry({graph.loss}));
    expect_sound(card);
    EXPECT_THAT(card.html(), HasSubstr("<th>observed</th><td>none</td>"));
    EXPECT_THAT(card.html(), HasSubstr("<th>numerics</th><td>Fast</td>"));
    EXPECT_THAT(card.html(), HasSubstr("<th>posture</th><td>forward</td>"));
    EXPECT_THAT(card.html(), HasSubstr("<th>elects patterns</th><td>yes</td>"));
}

TEST(RunCard, NetworkForwardShowsEveryNodeWithItsValueSummarised) {
    const test::Walkthrough<float> graph = test::walkthrough();
    const topos::Run<float> run = graph.network.forward(graph.network.parameters());
    const Html card = show::card(run);
    expect_sound(card);
    EXPECT_THAT(card.html(), HasSubstr("topos-run"));
    EXPECT_EQ(occurrences(card.html(), "<tr><td class=\"topos-index\">"), 6u);
    EXPECT_THAT(card.html(), HasSubstr("min -0.25 max 0.5 [0.5, -0.25, 0.25, 0.4]"));
    EXPECT_THAT(card.html(), HasSubstr("min 1 max 2 [1, 2]"));
}

TEST(RunCard, PlanRunShowsOnlyTheDeclaredValues) {
    const test::Walkthrough<float> graph = test::walkthrough();
    const Plan<float> plan = graph.network.entry({graph.loss}).observe({graph.hidden}).lower();
    const topos::Run<float> run = plan.forward();
    const Html card = show::card(run);
    expect_sound(card);
    EXPECT_EQ(occurrences(card.html(), "<tr><td class=\"topos-index\">"), 2u);
    EXPECT_THAT(card.html(), HasSubstr("<td class=\"topos-op\">Tanh</td>"));
    EXPECT_THAT(card.html(), HasSubstr("<td class=\"topos-op\">Sum</td>"));
    std::array<char, 32> loss{};
    const auto end =
        std::to_chars(loss.data(), loss.data() + loss.size(), run.of(graph.loss).item());
    EXPECT_THAT(card.html(),
                HasSubstr(std::string(">").append(loss.data(), end.ptr).append("</td>")));
}

TEST(FieldCard, ShowsTheAdjointOfEveryNodeTheReverseScanReached) {
    const test::Walkthrough<float> graph = test::walkthrough();
    const Field<float> field =
        graph.network.forward(graph.network.parameters()).backward(graph.loss);
    const Html card = show::card(field);
    expect_sound(card);
    EXPECT_THAT(card.html(), HasSubstr("topos-field"));
    EXPECT_THAT(card.html(), HasSubstr("<th>adjoint</th>"));
    EXPECT_EQ(occurrences(card.html(), "<tr><td class=\"topos-index\">"), 6u);
    const float first = field.of(graph.weights).data()[0];
    std::array<char, 32> text{};
    const auto end = std::to_chars(text.data(), text.data() + text.size(), first);
    EXPECT_THAT(card.html(), HasSubstr(std::string("[").append(text.data(), end.ptr).append(", ")));
    EXPECT_THAT(card.html(),
                HasSubstr("<td class=\"topos-summary-cell\">1</td>"));  // d loss/d loss
}

TEST(ParametersCard, ShowsOneRowPerSlotWithNodeShapeAndExtremes) {
    const test::Walkthrough<float> graph = test::walkthrough();
    const Html card = show::card(graph.network.parameters());
    expect_sound(card);
    EXPECT_THAT(card.html(), HasSubstr("topos-parameters"));
    EXPECT_THAT(card.html(),
                HasSubstr("<tr><td class=\"topos-index\">0</td><td class=\"topos-index\">0</td>"
                          "<td class=\"topos-shape\">[2, 2]</td><td>-0.25</td><td>0.5</td>"
                          "<td>0.225</td></tr>"));
}

// An Mlp{2, 3, 1} on its own tape, and the network sealed from it.
struct SmallModel {
    Network<float> network;
    Mlp<float> mlp;
};

SmallModel small_model() {
    Tape<float> tape;
    Mlp<float> mlp(tape, {2, 3, 1}, Activation::Tanh, init::xavier(5));
    return {std::move(tape).into_network(), std::move(mlp)};
}

TEST(ParametersCard, NamesEachSlotWhenGivenTheModelsNames) {
    const SmallModel model = small_model();
    const Html card = show::card(model.network.parameters(), model.mlp.named_parameters());
    expect_sound(card);
    EXPECT_THAT(card.html(), HasSubstr("<th>name</th>"));
    EXPECT_THAT(card.html(),
                HasSubstr("<tr><td class=\"topos-index\">2</td><td class=\"topos-name\">"
                          "2.weight</td><td class=\"topos-index\">2</td>"
                          "<td class=\"topos-shape\">[3, 1]</td>"));
    EXPECT_THAT(show::card(model.network.parameters()).html(), Not(HasSubstr("2.weight")));
}

TEST(ParametersCard, RefusesANameForANodeThatIsNotOneOfItsSlots) {
    const SmallModel model = small_model();
    Tape<float> other;
    const std::vector<NamedParameter> names{{"stray", other.parameter(1.0F), false}};
    EXPECT_THROW(show::card(model.network.parameters(), names), ShowError);
}

TEST(ModuleCard, ShowsTheDescriptionAndOneRowPerNamedParameter) {
    const SmallModel model = small_model();
    const Html card = show::card(model.mlp);
    expect_sound(card);
    EXPECT_THAT(card.html(), HasSubstr("topos-module"));
    EXPECT_THAT(card.html(), HasSubstr("Mlp&lt;float&gt;"));
    EXPECT_THAT(card.html(), HasSubstr(escape(model.mlp.describe())));
    for (const NamedParameter& named : model.mlp.named_parameters()) {
        EXPECT_THAT(card.html(), HasSubstr("<td class=\"topos-name\">" + named.name + "</td>"));
    }
    EXPECT_THAT(card.html(),
                HasSubstr("<tr><td class=\"topos-name\">0.weight</td><td class=\"topos-index\">"
                          "0</td><td class=\"topos-shape\">[2, 3]</td><td>6</td></tr>"));
    EXPECT_THAT(card.html(), HasSubstr("4 parameters, 13 elements"));
}

TEST(ModuleCard, ShowsEachParametersStatisticsWhenGivenItsPayloads) {
    const SmallModel model = small_model();
    const Parameters<float> values = model.network.parameters();
    const Html card = show::card(model.mlp, values);
    expect_sound(card);
    EXPECT_THAT(card.html(), HasSubstr("<th>mean</th>"));
    // The biases start at zero.
    EXPECT_THAT(card.html(),
                HasSubstr("<td class=\"topos-name\">2.bias</td><td class=\"topos-index\">3</td>"
                          "<td class=\"topos-shape\">[1]</td><td>1</td><td>0</td><td>0</td>"
                          "<td>0</td></tr>"));
}

TEST(ModuleCard, EveryModuleHasACard) {
    Tape<float> tape;
    const Linear<float> linear(tape, 2, 3, init::xavier(1));
    const Conv2d<float> conv(tape, {1, 2, 3}, init::kaiming(2));
    const BatchNorm<float> norm(tape, 2);
    const LayerNorm<float> layer_norm(tape, 4);
    const Embedding<float> embedding(tape, 5, 4, init::normal(3, 0.1));
    const CausalSelfAttention<float> attention(tape, 4, 2, init::xavier(4));
    const TransformerBlock<float> block(tape, 4, 2, 8, init::xavier(6));
    const Dropout<float> dropout(tape, Shape{2, 3}, 0.5);
    const MaxPool2d<float> pool(2);
    EXPECT_THAT(show::card(linear).html(), HasSubstr("Linear&lt;float&gt;"));
    EXPECT_THAT(show::card(conv).html(), HasSubstr("Conv2d&lt;float&gt;"));
    EXPECT_THAT(show::card(norm).html(), HasSubstr("BatchNorm"));
    EXPECT_THAT(show::card(layer_norm).html(), HasSubstr("LayerNorm&lt;float&gt;"));
    EXPECT_THAT(show::card(embedding).html(), HasSubstr("Embedding&lt;float&gt;"));
    EXPECT_THAT(show::card(attention).html(), HasSubstr("query.weight"));
    EXPECT_THAT(show::card(block).html(), HasSubstr("attention.query.weight"));
    EXPECT_THAT(show::card(dropout).html(), HasSubstr("no parameters"));
    EXPECT_THAT(show::card(pool).html(), HasSubstr("MaxPool2d&lt;float&gt;"));
    for (const Html& card : {show::card(linear), show::card(block), show::card(pool)}) {
        expect_sound(card);
    }
}

TEST(FunctionCard, ShowsItsArgumentsAndOneRowPerCompiledPlan) {
    SmallModel model = small_model();
    const Mlp<float>& mlp = model.mlp;
    const Function<float> loss(
        model.network, [&](const Value<float>& x) { return mlp.express(x).square().mean(); });
    const Html empty = show::card(loss);
    expect_sound(empty);
    EXPECT_THAT(empty.html(), HasSubstr("Function(real) over 4 parameters, 0 plans"));
    EXPECT_THAT(empty.html(), HasSubstr("no plan compiled yet"));
    const Parameters<float> parameters = model.network.parameters();
    (void)loss(parameters, Tensor<float>::filled(Shape{7, 2}, 1.0F));
    (void)loss.value_and_gradients(parameters, Tensor<float>::filled(Shape{5, 2}, 1.0F));
    const Html card = show::card(loss);
    expect_sound(card);
    EXPECT_THAT(card.html(), HasSubstr("Function(real) over 4 parameters, 2 plans</p>"));
    const std::vector<CompiledPlan<float>> plans = loss.compiled_plans();
    ASSERT_EQ(plans.size(), 2u);
    EXPECT_FALSE(plans[0].gradients);
    EXPECT_TRUE(plans[1].gradients);
    EXPECT_EQ(plans[1].shapes, std::vector<Shape>{Shape({5, 2})});
    EXPECT_THAT(card.html(),
                HasSubstr("<tr><td class=\"topos-op\">value</td><td class=\"topos-shape\">"
                          "[7, 2]</td><td>" +
                          std::to_string(plans[0].plan.nodes().size()) + "</td>"));
    EXPECT_THAT(card.html(),
                HasSubstr("<tr><td class=\"topos-op\">gradients</td><td class=\"topos-shape\">"
                          "[5, 2]</td><td>" +
                          std::to_string(plans[1].plan.nodes().size()) + "</td>"));
}

TEST(AdjointsCard, ShowsTheTargetAndEachValueWithItsGradientNode) {
    Tape<float> tape;
    auto weights = tape.parameter(Tensor<float>({2, 2}, {0.5f, -0.25f, 0.25f, 0.4f}));
    auto input = tape.input(Tensor<float>({1, 2}, {1.0f, 2.0f}));
    auto hidden = input.matmul(weights).tanh();
    auto loss = (hidden * hidden).sum();
    const Adjoints<float> adjoints = tape.differentiate(loss, {weights, input});
    const Html card = show::card(adjoints);
    expect_sound(card);
    EXPECT_THAT(card.html(), HasSubstr("target: node 5"));
    EXPECT_THAT(card.html(),
                HasSubstr("<tr><td>node 0</td><td>node " +
                          std::to_string(adjoints.of(weights).index()) + "</td></tr>"));
    EXPECT_THAT(card.html(),
                HasSubstr("<tr><td>node 1</td><td>node " +
                          std::to_string(adjoints.of(input).index()) + "</td></tr>"));
}

}  // namespace
}  // namespace topos::show
