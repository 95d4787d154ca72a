// show::Plot and show::live_volume: the builder's checks, the SVG's structure,
// the braille text's geometry, and the live-volume charts of the seeds' plans.
#include "show/seed_networks.hpp"
#include "show/well_formed.hpp"
#include <topos/show/plot.hpp>
#include <topos/topos.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace topos::show {
namespace {

using test::columns_of;
using test::external_reference;
using test::lines_of;
using test::repeated_id;
using test::training_and_inference;
using test::well_formedness_error;

// --- helpers -----------------------------------------------------------------

std::size_t count(const std::string& text, const std::string& needle) {
    return test::occurrences(text, needle);
}

// The whole element that starts at `start` (an opening tag), nested ones included.
std::string element_at(const std::string& markup, std::size_t start) {
    int depth = 0;
    std::size_t at = start;
    while ((at = markup.find('<', at)) != std::string::npos) {
        const std::size_t end = markup.find('>', at);
        if (markup[at + 1] == '/') {
            --depth;
        } else if (markup[end - 1] != '/') {
            ++depth;
        }
        at = end + 1;
        if (depth == 0) {
            return markup.substr(start, at - start);
        }
    }
    return "";
}

std::vector<std::string> text_contents(const std::string& markup) {
    std::vector<std::string> texts;
    const std::regex text(R"(<text[^>]*>([^<]*)</text>)");
    for (auto it = std::sregex_iterator(markup.begin(), markup.end(), text);
         it != std::sregex_iterator();
         ++it) {
        texts.push_back((*it)[1]);
    }
    return texts;
}

std::vector<double> tick_values(const std::string& svg, const std::string& group_class) {
    const std::string group = element_at(svg, svg.find("<g class=\"" + group_class + "\""));
    std::vector<double> values;
    for (const std::string& label : text_contents(group)) {
        values.push_back(std::stod(label));
    }
    return values;
}

// Whether `step` is 1, 2 or 5 times a power of ten.
bool is_round_step(double step) {
    const double mantissa = step / std::pow(10.0, std::floor(std::log10(step) + 1e-9));
    return std::fabs(mantissa - 1) < 1e-9 || std::fabs(mantissa - 2) < 1e-9 ||
           std::fabs(mantissa - 5) < 1e-9;
}

// Code points in U+2800..U+28FF, whose UTF-8 starts E2 A0..A3.
std::size_t braille_cells(const std::string& text) {
    std::size_t cells = 0;
    for (std::size_t i = 0; i + 2 < text.size(); ++i) {
        const auto lead = static_cast<unsigned char>(text[i]);
        const auto next = static_cast<unsigned char>(text[i + 1]);
        cells += lead == 0xE2 && next >= 0xA0 && next <= 0xA3 ? 1 : 0;
    }
    return cells;
}

void expect_text_geometry(const std::string& text, std::size_t width, std::size_t height) {
    ASSERT_EQ(count(text, "\n"), height) << text;
    for (const std::string& line : lines_of(text)) {
        EXPECT_LE(columns_of(line), width) << "\n" << text;
    }
}

Plot two_series_plot() {
    Plot plot;
    plot.title("loss").x_label("step").y_label("value");
    plot.line("train", {4, 3, 2.5, 2, 1.5, 1.2});
    plot.steps("valid", {4.2, 3.5, 3, 2.8, 2.7, 2.7});
    plot.mark(5, 1.2, "best");
    return plot;
}

double highest(const std::vector<std::size_t>& series) {
    return static_cast<double>(*std::max_element(series.begin(), series.end()));
}

// --- the builder ---------------------------------------------------------------

TEST(Plot, BuildersChainAndKeepSeriesInTheOrderAdded) {
    Plot plot;
    plot.title("t").line("a", {1, 2, 3}).steps("b", {0.5, 1.5}, {3, 4}).mark(1, 2, "m");
    ASSERT_EQ(plot.series().size(), 2U);
    EXPECT_EQ(plot.series()[0].label, "a");
    EXPECT_EQ(plot.series()[0].x, (std::vector<double>{0, 1, 2}));
    EXPECT_EQ(plot.series()[0].stroke, Stroke::Line);
    EXPECT_EQ(plot.series()[1].x, (std::vector<double>{0.5, 1.5}));
    EXPECT_EQ(plot.series()[1].stroke, Stroke::Steps);
    ASSERT_EQ(plot.markers().size(), 1U);
    EXPECT_EQ(plot.markers()[0].label, "m");
}

TEST(Plot, ASeriesWithoutAPointIsRefused) {
    Plot plot;
    EXPECT_THROW(plot.line("empty", {}), ShowError);
    EXPECT_THROW(plot.steps("empty", {}, {}), ShowError);
    EXPECT_TRUE(plot.series().empty());
}

TEST(Plot, ANonFiniteValueIsRefused) {
    Plot plot;
    EXPECT_THROW(plot.line("nan", {1, std::nan(""), 3}), ShowError);
    EXPECT_THROW(plot.line("inf", {0, HUGE_VAL}, {1, 2}), ShowError);
    EXPECT_THROW(plot.steps("-inf", {1, -HUGE_VAL}), ShowError);
    EXPECT_THROW(plot.mark(std::nan(""), 1, "marker"), ShowError);
}

TEST(Plot, XAndYOfDifferentSizesAreRefused) {
    Plot plot;
    EXPECT_THROW(plot.line("a", {1, 2, 3}, {1, 2}), ShowError);
    EXPECT_THROW(plot.steps("a", {1}, {1, 2}), ShowError);
}

TEST(Plot, XThatDoesNotIncreaseIsRefused) {
    Plot plot;
    EXPECT_THROW(plot.line("equal", {1, 1}, {1, 2}), ShowError);
    EXPECT_THROW(plot.line("decreasing", {2, 1}, {1, 2}), ShowError);
    EXPECT_NO_THROW(plot.line("increasing", {-1, 0.5}, {1, 2}));
}

TEST(Plot, AnErrorNamesTheSeries) {
    Plot plot;
    try {
        plot.line("validation loss", {1, 2}, {1});
        FAIL() << "no ShowError";
    } catch (const ShowError& error) {
        EXPECT_NE(std::string(error.what()).find("validation loss"), std::string::npos);
    }
}

TEST(Plot, ALogAxisRefusesAZeroValue) {
    Plot plot;
    plot.y_axis(Axis::Log).line("loss", {1, 0.1, 0});
    EXPECT_THROW((void)plot.svg(), ShowError);
    EXPECT_THROW((void)plot.text(), ShowError);
}

TEST(Plot, ALogAxisRefusesANegativeXOrMarker) {
    Plot on_x;
    on_x.x_axis(Axis::Log).line("a", {-1, 1}, {1, 2});
    EXPECT_THROW((void)on_x.svg(), ShowError);
    Plot marked;
    marked.y_axis(Axis::Log).line("a", {1, 2}).mark(0, -3, "below zero");
    EXPECT_THROW((void)marked.svg(), ShowError);
    EXPECT_THROW((void)marked.text(), ShowError);
}

TEST(Plot, APlotWithoutASeriesIsNotDrawn) {
    Plot plot;
    plot.title("nothing");
    EXPECT_THROW((void)plot.svg(), ShowError);
    EXPECT_THROW((void)plot.text(), ShowError);
}

// --- svg -----------------------------------------------------------------------

TEST(PlotSvg, IsAStandaloneWellFormedDocument) {
    const std::string svg = two_series_plot().svg();
    EXPECT_EQ(svg.rfind("<?xml", 0), 0U);
    EXPECT_NE(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
    EXPECT_NE(svg.find("viewBox=\"0 0 640 360\""), std::string::npos);
    EXPECT_EQ(well_formedness_error(svg), "");
    EXPECT_EQ(external_reference(svg), "");
    EXPECT_EQ(repeated_id(svg), "");
}

TEST(PlotSvg, RefusesASizeUnder160By120) {
    const Plot plot = two_series_plot();
    EXPECT_THROW((void)plot.svg(159, 360), ShowError);
    EXPECT_THROW((void)plot.svg(640, 119), ShowError);
    EXPECT_EQ(well_formedness_error(plot.svg(160, 120)), "");
}

TEST(PlotSvg, DrawsOneSeriesElementPerSeriesInDistinctColours) {
    Plot plot;
    for (int i = 0; i < 12; ++i) {
        plot.line(std::string("s").append(std::to_string(i)), {double(i), double(i + 1)});
    }
    const std::string svg = plot.svg();
    EXPECT_EQ(count(svg, "class=\"series series-"), 12U);
    EXPECT_EQ(count(svg, "class=\"series series-11\""), 1U);
    const std::regex stroke(R"re(class="series series-\d+" stroke="([^"]+)")re");
    std::set<std::string> colours;
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), stroke);
         it != std::sregex_iterator();
         ++it) {
        colours.insert((*it)[1]);
    }
    EXPECT_EQ(colours.size(), 12U);
}

TEST(PlotSvg, HasALegendEntryPerSeries) {
    const std::string svg = two_series_plot().svg();
    EXPECT_EQ(count(svg, "class=\"legend-entry\""), 2U);
    const std::string legend = element_at(svg, svg.find("<g class=\"legend\""));
    EXPECT_EQ(text_contents(legend), (std::vector<std::string>{"train", "valid"}));
}

TEST(PlotSvg, DrawsMarkersAsCirclesWithTheirLabels) {
    const std::string svg = two_series_plot().mark(0, 4, "start").svg();
    EXPECT_EQ(count(svg, "<circle class=\"marker\""), 2U);
    const std::string markers = element_at(svg, svg.find("<g class=\"markers\""));
    EXPECT_EQ(text_contents(markers), (std::vector<std::string>{"best", "start"}));
}

TEST(PlotSvg, PutsLinearTicksAtRoundNumbers) {
    Plot plot;
    plot.line("a", {0.13, 0.9, 3.7}, {-17, 230, 1234});
    const std::string svg = plot.svg();
    for (const char* axis : {"ticks x-ticks", "ticks y-ticks"}) {
        const std::vector<double> ticks = tick_values(svg, axis);
        ASSERT_GE(ticks.size(), 2U) << axis;
        const double step = ticks[1] - ticks[0];
        EXPECT_TRUE(is_round_step(step)) << axis << " step " << step;
        for (std::size_t i = 0; i < ticks.size(); ++i) {
            const double multiple = ticks[i] / step;
            EXPECT_NEAR(multiple, std::round(multiple), 1e-6) << axis << " tick " << ticks[i];
            if (i > 0) {
                EXPECT_NEAR(ticks[i] - ticks[i - 1], step, step * 1e-6) << axis;
            }
        }
    }
    EXPECT_LE(tick_values(svg, "ticks y-ticks").front(), -17);
    EXPECT_GE(tick_values(svg, "ticks y-ticks").back(), 1234);
}

TEST(PlotSvg, PutsLogTicksAtPowersOfTen) {
    Plot plot;
    plot.y_axis(Axis::Log).line("loss", {2.5, 0.3, 0.04, 0.002});
    const std::vector<double> ticks = tick_values(plot.svg(), "ticks y-ticks");
    EXPECT_EQ(ticks, (std::vector<double>{0.001, 0.01, 0.1, 1, 10}));
}

TEST(PlotSvg, EscapesTheTitleTheLabelsAndTheLegend) {
    Plot plot;
    plot.title("a < b & \"c\"").x_label("x<1>").y_label("it's").line("<s>", {1, 2});
    plot.mark(0, 1, "m&m");
    const std::string svg = plot.svg();
    EXPECT_NE(svg.find("a &lt; b &amp; &quot;c&quot;"), std::string::npos);
    EXPECT_NE(svg.find("x&lt;1&gt;"), std::string::npos);
    EXPECT_NE(svg.find("it&#39;s"), std::string::npos);
    EXPECT_NE(svg.find("&lt;s&gt;"), std::string::npos);
    EXPECT_NE(svg.find("m&amp;m"), std::string::npos);
    EXPECT_EQ(svg.find("<s>"), std::string::npos);
    EXPECT_EQ(well_formedness_error(svg), "");
}

TEST(PlotSvg, DrawsStepsAsHorizontalThenVerticalSegments) {
    Plot lines;
    lines.line("a", {1, 3, 2});
    Plot steps;
    steps.steps("a", {1, 3, 2});
    const std::regex path(R"re(class="series series-0" stroke="[^"]+" d="([^"]+)")re");
    std::smatch line_match;
    std::smatch step_match;
    const std::string line_svg = lines.svg();
    const std::string step_svg = steps.svg();
    ASSERT_TRUE(std::regex_search(line_svg, line_match, path));
    ASSERT_TRUE(std::regex_search(step_svg, step_match, path));
    EXPECT_NE(line_match.str(1), step_match.str(1));
    EXPECT_TRUE(std::regex_match(std::string(step_match[1]),
                                 std::regex(R"(M[-\d.]+,[-\d.]+( H[-\d.]+ V[-\d.]+){2})")))
        << step_match[1];
    EXPECT_TRUE(std::regex_match(std::string(line_match[1]),
                                 std::regex(R"(M[-\d.]+,[-\d.]+( L[-\d.]+,[-\d.]+){2})")))
        << line_match[1];
}

TEST(PlotSvg, DrawsAConstantSeriesAndASinglePointInsideTheFrame) {
    Plot constant;
    constant.line("flat", {3, 3, 3, 3});
    Plot single;
    single.steps("one", {0.0}).mark(0, 0, "here");
    for (const Plot* plot : {&constant, &single}) {
        const std::string svg = plot->svg();
        EXPECT_EQ(well_formedness_error(svg), "");
        EXPECT_EQ(svg.find("nan"), std::string::npos);
        EXPECT_EQ(svg.find("inf"), std::string::npos);
        EXPECT_EQ(count(svg, "class=\"series series-0\""), 1U);
        EXPECT_GE(tick_values(svg, "ticks y-ticks").size(), 2U);
    }
}

TEST(PlotSvg, IsTheSameOnEveryCall) {
    const Plot plot = two_series_plot();
    EXPECT_EQ(plot.svg(), plot.svg());
    EXPECT_EQ(plot.svg(300, 200), plot.svg(300, 200));
}

TEST(PlotSvg, HtmlIsTheSvgInADivWithoutTheXmlProlog) {
    const Plot plot = two_series_plot();
    const std::string html = plot.html().html();
    EXPECT_EQ(html.rfind("<div class=\"topos-plot\"><svg xmlns=", 0), 0U);
    EXPECT_EQ(html.find("<?xml"), std::string::npos);
    const std::string prefix = "<div class=\"topos-plot\">";
    const std::string suffix = "</div>";
    ASSERT_EQ(html.substr(html.size() - suffix.size()), suffix);
    const std::string inner =
        html.substr(prefix.size(), html.size() - prefix.size() - suffix.size());
    EXPECT_EQ(plot.svg().substr(plot.svg().find("<svg")), inner);
    EXPECT_EQ(well_formedness_error(html), "");
}

// --- text ----------------------------------------------------------------------

TEST(PlotText, HasExactlyHeightLinesOfAtMostWidthColumns) {
    Plot untitled;
    untitled.line("only", {1, 5, 2, 8});
    for (const Plot& plot : {two_series_plot(), untitled}) {
        for (const auto& [width, height] : std::vector<std::pair<std::size_t, std::size_t>>{
                 {20, 5}, {21, 6}, {60, 12}, {72, 16}, {120, 40}}) {
            SCOPED_TRACE(std::to_string(width) + " by " + std::to_string(height));
            expect_text_geometry(plot.text(width, height), width, height);
        }
    }
}

TEST(PlotText, RefusesASizeUnder20By5) {
    const Plot plot = two_series_plot();
    EXPECT_THROW((void)plot.text(19, 16), ShowError);
    EXPECT_THROW((void)plot.text(72, 4), ShowError);
}

TEST(PlotText, DrawsTheSeriesInBraille) {
    const std::string text = two_series_plot().text(60, 12);
    EXPECT_GT(braille_cells(text), 10U) << text;
}

TEST(PlotText, ShowsTheTitleAndTheAxisRanges) {
    Plot plot;
    plot.title("loss").x_label("step").line("a", {10, 20, 30}, {7, 3, 5});
    const std::vector<std::string> lines = lines_of(plot.text(40, 8));
    EXPECT_EQ(lines.front(), "loss");
    const auto labelled = [](const std::string& line, const std::string& label) {
        return line.substr(line.find_first_not_of(' ')).rfind(label + " \u2524", 0) == 0;
    };
    EXPECT_TRUE(labelled(lines[1], "7")) << lines[1];  // the top row: y's maximum
    EXPECT_TRUE(labelled(lines[lines.size() - 4], "3")) << lines[lines.size() - 4];  // its minimum
    EXPECT_NE(lines[lines.size() - 3].find("\u2514\u2500"), std::string::npos);
    const std::string& range = lines[lines.size() - 2];
    EXPECT_NE(range.find("10"), std::string::npos);
    EXPECT_NE(range.find("step"), std::string::npos);
    EXPECT_NE(range.find("30"), std::string::npos);
}

TEST(PlotText, HasALegendNamingEverySeriesAndMarker) {
    const std::string text = two_series_plot().text(72, 16);
    const std::string legend = lines_of(text).back();
    EXPECT_NE(legend.find("A train"), std::string::npos) << text;
    EXPECT_NE(legend.find("B valid"), std::string::npos) << text;
    EXPECT_NE(legend.find("\u25CF best"), std::string::npos) << text;
}

TEST(PlotText, ShowsEachMarkerAsItsOwnCharacter) {
    Plot plot;
    plot.line("a", {1, 4, 2, 3}).mark(1, 4, "high").mark(2, 2, "low");
    const std::string text = plot.text(40, 10);
    EXPECT_EQ(count(text, "\u25CF"), 2U) << text;  // on the plot and in the legend
    EXPECT_EQ(count(text, "\u25C6"), 2U) << text;
}

TEST(PlotText, TagsEachOfSeveralSeriesAtItsEnd) {
    const std::string text = two_series_plot().text(72, 16);
    const std::vector<std::string> lines = lines_of(text);
    std::size_t tags = 0;
    for (std::size_t row = 1; row + 3 < lines.size(); ++row) {
        tags += count(lines[row], "A") + count(lines[row], "B");
    }
    EXPECT_EQ(tags, 2U) << text;
}

TEST(PlotText, DrawsStepsAndLinesDifferently) {
    Plot lines;
    lines.line("a", {1, 8, 2, 6});
    Plot steps;
    steps.steps("a", {1, 8, 2, 6});
    EXPECT_NE(lines.text(40, 10), steps.text(40, 10));
}

TEST(PlotText, DrawsAConstantSeriesAndASinglePoint) {
    Plot constant;
    constant.line("flat", {2, 2, 2});
    Plot single;
    single.line("one", {5.0});
    for (const Plot* plot : {&constant, &single}) {
        const std::string text = plot->text(30, 6);
        expect_text_geometry(text, 30, 6);
        EXPECT_GE(braille_cells(text), 1U) << text;
    }
}

TEST(PlotText, DrawsALogAxis) {
    Plot plot;
    plot.y_axis(Axis::Log).line("loss", {100, 10, 1, 0.1});
    const std::string text = plot.text(40, 9);
    expect_text_geometry(text, 40, 9);
    EXPECT_NE(text.find("100"), std::string::npos) << text;
    EXPECT_NE(text.find("0.1"), std::string::npos) << text;
}

TEST(PlotText, FitsALongLegendIntoItsLines) {
    Plot plot;
    for (int i = 0; i < 8; ++i) {
        plot.line(std::string("a rather long series label ").append(std::to_string(i)),
                  {double(i), 1.0 + i});
    }
    expect_text_geometry(plot.text(24, 6), 24, 6);
    expect_text_geometry(plot.text(60, 12), 60, 12);
}

// --- live volume ---------------------------------------------------------------

TEST(PlotLiveVolume, MarksTheWalkthroughPeakOf8ElementsAtNode2) {
    const test::Walkthrough<float> graph = test::walkthrough<float>();
    const Plan<float> plan = graph.network.entry({graph.loss}).lower();
    ASSERT_NE(plan.describe().find("live volume: peak 8 elements at node 2"), std::string::npos);
    const Plot plot = live_volume(plan);
    ASSERT_EQ(plot.series().size(), 1U);
    EXPECT_EQ(plot.series()[0].stroke, Stroke::Steps);
    EXPECT_EQ(plot.series()[0].y.size(), plan.live_series().size());
    ASSERT_EQ(plot.markers().size(), 1U);
    const Marker& peak = plot.markers()[0];
    EXPECT_EQ(peak.y, 8);
    EXPECT_EQ(peak.label, "peak 8 at node 2");
    EXPECT_EQ(plan.nodes()[static_cast<std::size_t>(peak.x)].index(), 2U);
    const std::string svg = plot.svg();
    EXPECT_NE(svg.find("peak 8 at node 2"), std::string::npos);
    EXPECT_NE(svg.find(">live volume<"), std::string::npos);
    EXPECT_NE(svg.find(">scheduled position<"), std::string::npos);
    EXPECT_NE(svg.find(">elements alive<"), std::string::npos);
    EXPECT_EQ(well_formedness_error(svg), "");
}

TEST(PlotLiveVolume, DrawsTheSeriesThePlanAccountsFor) {
    const test::Walkthrough<double> graph = test::walkthrough<double>();
    const Plan<double> plan = graph.network.entry({graph.loss}).lower();
    const Plot plot = live_volume(plan);
    const std::vector<std::size_t>& series = plan.live_series();
    EXPECT_EQ(plot.series()[0].y, std::vector<double>(series.begin(), series.end()));
    EXPECT_EQ(plot.markers()[0].label, "peak 8 at node 2");
}

TEST(PlotLiveVolume, PutsTrainingAboveInference) {
    const auto [training, inference] = training_and_inference();
    const Plot plot = live_volume({{"training", training}, {"inference", inference}});
    ASSERT_EQ(plot.series().size(), 2U);
    EXPECT_EQ(plot.series()[0].label, "training");
    EXPECT_EQ(plot.series()[1].label, "inference");
    ASSERT_EQ(plot.markers().size(), 2U);
    EXPECT_GT(plot.markers()[0].y, plot.markers()[1].y);
    EXPECT_EQ(plot.markers()[0].y, highest(training.live_series()));
    EXPECT_EQ(plot.markers()[1].y, highest(inference.live_series()));
    EXPECT_EQ(plot.markers()[0].label.rfind("training peak ", 0), 0U);
    EXPECT_EQ(plot.markers()[1].label.rfind("inference peak ", 0), 0U);

    const std::string svg = plot.svg();
    EXPECT_EQ(count(svg, "class=\"series series-"), 2U);
    EXPECT_EQ(count(svg, "class=\"legend-entry\""), 2U);
    EXPECT_EQ(count(svg, "<circle class=\"marker\""), 2U);
    EXPECT_EQ(well_formedness_error(svg), "");
    expect_text_geometry(plot.text(60, 12), 60, 12);
}

TEST(PlotLiveVolume, AgreesWithEachPlansDescribe) {
    const auto [training, inference] = training_and_inference();
    const Plot plot = live_volume({{"training", training}, {"inference", inference}});
    const std::regex summary(R"(live volume: peak (\d+) elements at node (\d+))");
    for (std::size_t i = 0; i < 2; ++i) {
        const std::string described = (i == 0 ? training : inference).describe();
        std::smatch match;
        ASSERT_TRUE(std::regex_search(described, match, summary));
        const std::string expected =
            "peak " + std::string(match[1]) + " at node " + std::string(match[2]);
        EXPECT_NE(plot.markers()[i].label.find(expected), std::string::npos)
            << plot.markers()[i].label << " against " << expected;
    }
}

TEST(PlotLiveVolume, RefusesAComparisonOfNoPlan) {
    EXPECT_THROW((void)live_volume(std::initializer_list<Labelled<float>>{}), ShowError);
}

TEST(PlotLiveVolume, ComparesDoublePlansToo) {
    const test::Walkthrough<double> graph = test::walkthrough<double>();
    const Plan<double> plan = graph.network.entry({graph.loss}).lower();
    const Plot plot = live_volume({{"one", plan}, {"again", plan}});
    EXPECT_EQ(plot.series().size(), 2U);
    EXPECT_EQ(plot.markers()[1].label, "again peak 8 at node 2");
}

}  // namespace
}  // namespace topos::show
