// show::Plot and show::live_volume: the builder's checks, the SVG's structure,
// the braille text's geometry, and the live-volume charts of the seeds' plans.
#include "show/plot_values.hpp"
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

// The text with each legend line that continues a note (indented by two)
// joined to the line before it.
std::string unwrapped(std::string text) {
    for (std::size_t at = text.find("\n  "); at != std::string::npos; at = text.find("\n  ", at)) {
        text.replace(at, 3, " ");
    }
    return text;
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

TEST(Plot, ANonFiniteXOrMarkerIsRefusedButANonFiniteYIsKept) {
    Plot plot;
    EXPECT_THROW(plot.line("inf", {0, HUGE_VAL}, {1, 2}), ShowError);
    EXPECT_THROW(plot.steps("nan", {0, std::nan("")}, {1, 2}), ShowError);
    EXPECT_THROW(plot.mark(std::nan(""), 1, "marker"), ShowError);
    EXPECT_NO_THROW(plot.line("nan", {1, std::nan(""), 3}));
    EXPECT_NO_THROW(plot.steps("-inf", {1, -HUGE_VAL}));
    EXPECT_EQ(plot.series().size(), 2U);
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

TEST(Plot, ALogAxisSkipsValuesAtOrBelowZeroWithANoteInBothRenderings) {
    Plot plot;
    plot.y_axis(Axis::Log).line("loss", {1, 0.1, 0, -1, 0.01});
    const std::string svg = plot.svg();
    const std::string text = plot.text(72, 12);
    const std::string note =
        "loss: 2 values <= 0 not drawn on the log axis (0 at x = 2, -1 at x = 3)";
    EXPECT_NE(svg.find(std::regex_replace(note, std::regex("<"), "&lt;")), std::string::npos)
        << svg;
    EXPECT_NE(text.find(note), std::string::npos) << text;
    EXPECT_EQ(well_formedness_error(svg), "");
    expect_text_geometry(text, 72, 12);
    EXPECT_EQ(tick_values(svg, "ticks y-ticks"), (std::vector<double>{0.01, 0.1, 1}));
}

TEST(Plot, ALogAxisSkipsANegativeXOrMarkerWithANote) {
    Plot on_x;
    on_x.x_axis(Axis::Log).x_label("rate").line("a", {-1, 1, 10}, {1, 2, 3});
    EXPECT_NE(on_x.svg().find("a: 1 value &lt;= 0 not drawn on the log axis (rate -1)"),
              std::string::npos);
    EXPECT_NE(on_x.text().find("a: 1 value <= 0 not drawn on the log axis (rate -1)"),
              std::string::npos);
    Plot marked;
    marked.y_axis(Axis::Log).line("a", {1, 2}).mark(0, -3, "below zero");
    const std::string svg = marked.svg();
    EXPECT_EQ(count(svg, "<circle class=\"marker\""), 0U);
    EXPECT_NE(svg.find("marker below zero: at (0, -3), &lt;= 0, not drawn on the log axis"),
              std::string::npos);
    EXPECT_NE(marked.text().find("marker below zero: at (0, -3), <= 0, not drawn on the log axis"),
              std::string::npos);
}

TEST(Plot, ASeriesWithNothingDrawableDrawsAnEmptyFrameWithItsNote) {
    Plot diverged;
    diverged.x_label("step").line("loss", {std::nan(""), std::nan(""), HUGE_VAL});
    const std::string svg = diverged.svg();
    EXPECT_EQ(well_formedness_error(svg), "");
    EXPECT_NE(svg.find("d=\"\""), std::string::npos);  // the series' path is empty
    EXPECT_NE(svg.find("loss: 3 points not finite (NaN at step 0 to 1, +inf at step 2)"),
              std::string::npos)
        << svg;
    const std::string text = diverged.text(60, 12);
    expect_text_geometry(text, 60, 12);
    const std::string chart = text.substr(0, text.find("\u2514"));
    EXPECT_EQ(braille_cells(chart), 0U) << text;
    EXPECT_NE(
        unwrapped(text).find("loss: 3 points not finite (NaN at step 0 to 1, +inf at step 2)"),
        std::string::npos)
        << text;
    Plot on_log;
    on_log.y_axis(Axis::Log).line("zero", {0, 0});
    EXPECT_EQ(well_formedness_error(on_log.svg()), "");
    EXPECT_NE(on_log.text().find("zero: 2 values <= 0"), std::string::npos);
}

TEST(Plot, APlotWithoutASeriesIsNotDrawn) {
    Plot plot;
    plot.title("nothing");
    EXPECT_THROW((void)plot.svg(), ShowError);
    EXPECT_THROW((void)plot.text(), ShowError);
}

// --- the tick rule both renderings share ------------------------------------------

void expect_ticks(const detail::Scale& scale, const std::vector<double>& expected) {
    ASSERT_EQ(scale.ticks.size(), expected.size()) << ::testing::PrintToString(scale.ticks);
    for (std::size_t i = 0; i < expected.size(); ++i) {
        EXPECT_NEAR(scale.ticks[i], expected[i], std::fabs(expected[i]) * 1e-9 + 1e-12) << i;
    }
}

std::vector<std::string> labels_of(const detail::Scale& scale) {
    std::vector<std::string> labels;
    for (const double tick : scale.ticks) {
        labels.push_back(scale.tick_label(tick));
    }
    return labels;
}

TEST(PlotTicks, LinearTicksAreRoundMultiplesInsideTheRange) {
    const detail::Scale tenths = detail::round_scale(0.13, 0.87, Axis::Linear, 4);
    expect_ticks(tenths, {0.2, 0.4, 0.6, 0.8});
    EXPECT_EQ(labels_of(tenths), (std::vector<std::string>{"0.2", "0.4", "0.6", "0.8"}));
    EXPECT_DOUBLE_EQ(tenths.low, 0.13);  // the range is the values', not widened
    EXPECT_DOUBLE_EQ(tenths.high, 0.87);
    expect_ticks(detail::round_scale(-17, 1234, Axis::Linear, 4), {0, 500, 1000});
    expect_ticks(detail::round_scale(0, 50, Axis::Linear, 5), {0, 10, 20, 30, 40, 50});
    expect_ticks(detail::round_scale(-0.003, -0.0012, Axis::Linear, 3),
                 {-0.003, -0.0025, -0.002, -0.0015});
    // At least two ticks, however few the target: a step of 1 (nearest 0.74)
    // holds none here, 0.5 one, so the step is 0.2.
    expect_ticks(detail::round_scale(0.13, 0.87, Axis::Linear, 1), {0.2, 0.4, 0.6, 0.8});
}

TEST(PlotTicks, LogTicksArePowersOfTenOrEveryKthPowerOverManyDecades) {
    const detail::Scale decades = detail::round_scale(1, 1000, Axis::Log, 4);
    expect_ticks(decades, {1, 10, 100, 1000});
    EXPECT_EQ(labels_of(decades), (std::vector<std::string>{"1", "10", "100", "1000"}));
    const detail::Scale many = detail::round_scale(4e-31, 0.108, Axis::Log, 3);
    expect_ticks(many, {1e-30, 1e-20, 1e-10});
    EXPECT_EQ(labels_of(many), (std::vector<std::string>{"1e-30", "1e-20", "1e-10"}));
}

TEST(PlotTicks, NarrowLogRangeTicksOneTwoAndFiveTimesAPowerOfTen) {
    const detail::Scale narrow = detail::round_scale(0.02, 0.9, Axis::Log, 6);
    expect_ticks(narrow, {0.02, 0.05, 0.1, 0.2, 0.5});
    EXPECT_EQ(labels_of(narrow), (std::vector<std::string>{"0.02", "0.05", "0.1", "0.2", "0.5"}));
    // Within one decade and without a 1, 2 or 5 pair: round linear steps.
    expect_ticks(detail::round_scale(3, 4, Axis::Log, 2), {3, 3.5, 4});
}

TEST(PlotTicks, ARangeOfOneValueIsWidenedAroundIt) {
    const detail::Scale five = detail::round_scale(5, 5, Axis::Linear, 4);
    EXPECT_DOUBLE_EQ(five.low, 2.5);
    EXPECT_DOUBLE_EQ(five.high, 7.5);
    expect_ticks(five, {3, 4, 5, 6, 7});
    expect_ticks(detail::round_scale(0, 0, Axis::Linear, 4), {-1, -0.5, 0, 0.5, 1});
    const detail::Scale hundred = detail::round_scale(100, 100, Axis::Log, 4);
    expect_ticks(hundred, {50, 100, 200});
    EXPECT_EQ(labels_of(hundred), (std::vector<std::string>{"50", "100", "200"}));
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
    // Inside the values' range, which is not widened to the ticks.
    EXPECT_EQ(tick_values(svg, "ticks y-ticks"),
              (std::vector<double>{0, 200, 400, 600, 800, 1000, 1200}));
    EXPECT_EQ(tick_values(svg, "ticks x-ticks"),
              (std::vector<double>{0.5, 1, 1.5, 2, 2.5, 3, 3.5}));
}

TEST(PlotSvg, PutsLogTicksAtPowersOfTen) {
    Plot plot;
    plot.y_axis(Axis::Log).line("loss", {2.5, 0.3, 0.04, 0.002});
    const std::vector<double> ticks = tick_values(plot.svg(), "ticks y-ticks");
    EXPECT_EQ(ticks, (std::vector<double>{0.01, 0.1, 1}));
}

TEST(PlotSvg, BreaksTheLineAtNaNAndInfinityAndMarksEachGap) {
    Plot plot;
    plot.x_label("step").line("loss", {1, 2, std::nan(""), std::nan(""), 3, HUGE_VAL, 2, 1});
    const std::string svg = plot.svg();
    EXPECT_EQ(well_formedness_error(svg), "");
    const std::regex path(R"re(class="series series-0" stroke="[^"]+" d="([^"]+)")re");
    std::smatch match;
    ASSERT_TRUE(std::regex_search(svg, match, path));
    const std::string d = match[1];
    EXPECT_EQ(d.find("nan"), std::string::npos) << d;
    EXPECT_EQ(d.find("inf"), std::string::npos) << d;
    // Three pieces: steps 0-1, step 4 alone (a ring), steps 6-7.
    EXPECT_EQ(count(d, "M"), 3U) << d;
    EXPECT_EQ(count(d, " a3,3"), 2U) << d;  // one ring: two arcs
    EXPECT_EQ(count(svg, "class=\"gap\""), 2U);
    EXPECT_NE(svg.find("\u00D7 loss: 3 points not finite (NaN at step 2 to 3, +inf at step 5)"),
              std::string::npos)
        << svg;
    // The range is the finite values': 1 to 3.
    const std::vector<double> ticks = tick_values(svg, "ticks y-ticks");
    EXPECT_GE(ticks.front(), 1);
    EXPECT_LE(ticks.back(), 3);
}

TEST(PlotSvg, NamesAtMostThreePlacesInANote) {
    Plot plot;
    plot.line("a", {std::nan(""), 1, HUGE_VAL, 1, -HUGE_VAL, 1, std::nan(""), 1});
    EXPECT_NE(plot.svg().find("a: 4 points not finite (NaN at x = 0, +inf at x = 2, -inf at "
                              "x = 4, ...)"),
              std::string::npos);
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

// The y axis's tick labels, top to bottom: the text before each "┤".
std::vector<std::string> y_tick_labels(const std::string& text) {
    std::vector<std::string> labels;
    for (const std::string& line : lines_of(text)) {
        const std::size_t axis = line.find(" \u2524");
        if (axis != std::string::npos) {
            labels.push_back(
                line.substr(line.find_first_not_of(' '), axis - line.find_first_not_of(' ')));
        }
    }
    return labels;
}

// The words of the line under the x axis's rule.
std::vector<std::string> x_tick_line(const std::string& text) {
    const std::vector<std::string> lines = lines_of(text);
    for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
        if (lines[i].find("\u2514") != std::string::npos) {
            std::istringstream words(lines[i + 1]);
            std::vector<std::string> found;
            for (std::string word; words >> word;) {
                found.push_back(word);
            }
            return found;
        }
    }
    return {};
}

TEST(PlotText, ShowsTheTitleAndRoundTicksOnBothAxes) {
    Plot plot;
    plot.title("loss").x_label("step").line("a", {10, 20, 30}, {7, 3, 5});
    const std::string text = plot.text(40, 16);
    const std::vector<std::string> lines = lines_of(text);
    EXPECT_EQ(lines.front(), "loss");
    EXPECT_EQ(y_tick_labels(text), (std::vector<std::string>{"7", "6", "5", "4", "3"})) << text;
    // As many x ticks as leave room for the x label between two of them.
    EXPECT_EQ(x_tick_line(text), (std::vector<std::string>{"10", "step", "20", "30"})) << text;
    // The rule is ticked under each x tick.
    EXPECT_EQ(count(lines[lines.size() - 3], "\u252C"), 3U) << text;
    Plot unlabelled;
    unlabelled.line("a", {10, 20, 30}, {7, 3, 5});
    EXPECT_EQ(x_tick_line(unlabelled.text(40, 16)),
              (std::vector<std::string>{"10", "15", "20", "25", "30"}))
        << unlabelled.text(40, 16);
}

TEST(PlotText, PutsYTicksAtRoundNumbersNotAtTheExtremes) {
    Plot plot;
    plot.line("a", {0.13, 0.5, 0.87});
    const std::string text = plot.text(40, 12);
    EXPECT_EQ(y_tick_labels(text), (std::vector<std::string>{"0.8", "0.6", "0.4", "0.2"})) << text;
    EXPECT_EQ(text.find("0.87"), std::string::npos) << text;
    EXPECT_EQ(text.find("0.13"), std::string::npos) << text;
}

TEST(PlotText, PutsLogTicksAtPowersOfTen) {
    Plot plot;
    plot.y_axis(Axis::Log).line("b", {1, 10, 100, 1000});
    const std::string text = plot.text(40, 12);
    EXPECT_EQ(y_tick_labels(text), (std::vector<std::string>{"1000", "100", "10", "1"})) << text;
}

TEST(PlotText, LabelsEachTickOnTheLineItsValueIsDrawnOn) {
    Plot plot;
    plot.line("slope", {0, 1}, {0.13, 0.87}).line("at 0.4", {0, 1}, {0.4, 0.4});
    const std::string text = plot.text(40, 14);
    for (const std::string& line : lines_of(text)) {
        if (line.find("0.4 \u2524") != std::string::npos) {
            EXPECT_GE(braille_cells(line), 15U) << text;  // the flat series at 0.4
            return;
        }
    }
    FAIL() << "no tick labelled 0.4\n" << text;
}

TEST(PlotText, SpacesYTicksALineApartOrMore) {
    Plot plot;
    plot.line("a", {-17, 230, 1234});
    for (const std::size_t height : {6U, 9U, 16U, 40U}) {
        const std::vector<std::string> lines = lines_of(plot.text(40, height));
        std::size_t previous = 0;
        bool first = true;
        std::size_t labelled = 0;
        for (std::size_t i = 0; i < lines.size(); ++i) {
            if (lines[i].find("\u2524") == std::string::npos) {
                continue;
            }
            EXPECT_TRUE(first || i >= previous + 2) << plot.text(40, height);
            previous = i;
            first = false;
            ++labelled;
        }
        EXPECT_GE(labelled, 2U) << plot.text(40, height);
    }
}

TEST(PlotText, BreaksTheLineAtNaNAndInfinityWithACrossAndANote) {
    Plot plot;
    plot.x_label("step").line("loss", {1, 1, 1, 1, std::nan(""), std::nan(""), 1, 1, HUGE_VAL, 1});
    const std::string text = plot.text(72, 10);
    expect_text_geometry(text, 72, 10);
    EXPECT_NE(text.find("\u00D7 loss: 3 points not finite (NaN at step 4 to 5, +inf at step 8)"),
              std::string::npos)
        << text;
    // On the chart: the flat line, broken by a gap, and two crosses.
    std::size_t crosses = 0;
    bool broken = false;
    for (const std::string& line : lines_of(text)) {
        if (line.find('\xE2') == std::string::npos || line.find(" loss:") != std::string::npos) {
            continue;
        }
        crosses += count(line, "\u00D7");
        const std::size_t first = line.find("\xE2\xA0");
        const std::size_t last = line.rfind("\xE2\xA0");
        broken = broken || (braille_cells(line) > 4 && first != std::string::npos &&
                            line.substr(first, last - first).find(' ') != std::string::npos);
    }
    EXPECT_EQ(crosses, 2U) << text;
    EXPECT_TRUE(broken) << text;
}

TEST(PlotText, WrapsALongNoteOntoLinesOfItsOwn) {
    Plot plot;
    plot.x_label("training step")
        .line("validation loss", {1, std::nan(""), 2, HUGE_VAL, 3, -HUGE_VAL, 2});
    const std::string text = plot.text(40, 16);
    expect_text_geometry(text, 40, 16);
    std::string notes;
    for (const std::string& line : lines_of(text)) {
        if (line.rfind("\u00D7 validation", 0) == 0 ||
            (!notes.empty() && line.rfind("  ", 0) == 0)) {
            notes += line.substr(line.rfind("  ", 0) == 0 ? 1 : 0);
        }
    }
    EXPECT_EQ(notes,
              "\u00D7 validation loss: 3 points not finite (NaN at training step 1, +inf at "
              "training step 3, -inf at training step 5)")
        << text;
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
    const std::string text = plot.text(40, 12);
    expect_text_geometry(text, 40, 12);
    EXPECT_EQ(y_tick_labels(text), (std::vector<std::string>{"100", "10", "1", "0.1"})) << text;
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
