// show::escape, Text, StableHlo and Picture: the five special characters as
// entities, preformatted text, a real plan's StableHLO coloured token by token
// without losing a character, and pictures laid out by Graphviz (or, in a
// build without it, the DOT text and how to get the library), all well-formed.
#include "show/seed_networks.hpp"
#include <topos/show/graph.hpp>
#include <topos/show/html.hpp>
#include <topos/show/picture.hpp>
#include <topos/topos.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cctype>
#include <cstddef>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace topos::show {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// Whether `markup` is well-formed as XML: elements closed in order, attribute
// values quoted, every & an entity, no < in text or attribute values.
::testing::AssertionResult well_formed(std::string_view markup) {
    std::vector<std::string> open;
    std::size_t at = 0;
    const auto fail = [&](const std::string& why) {
        return ::testing::AssertionFailure()
               << why << " at offset " << at << ": " << markup.substr(at, 60);
    };
    const auto skip_past = [&](std::string_view end) {
        const std::size_t found = markup.find(end, at);
        at = found == std::string_view::npos ? markup.size() : found + end.size();
        return found != std::string_view::npos;
    };
    const auto is_name_char = [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == ':' ||
               c == '_' || c == '.';
    };
    const auto name = [&] {
        const std::size_t start = at;
        while (at < markup.size() && is_name_char(markup[at])) {
            ++at;
        }
        return std::string(markup.substr(start, at - start));
    };
    const auto entity_ok = [&](std::size_t amp) {
        const std::size_t semicolon = markup.find(';', amp);
        if (semicolon == std::string_view::npos || semicolon - amp > 10 || semicolon == amp + 1) {
            return false;
        }
        const std::string_view body = markup.substr(amp + 1, semicolon - amp - 1);
        return body.find_first_of(" <&\"'") == std::string_view::npos;
    };
    while (at < markup.size()) {
        const char c = markup[at];
        if (c == '&' && !entity_ok(at)) {
            return fail("a bare &");
        }
        if (c != '<') {
            ++at;
            continue;
        }
        const std::string_view rest = markup.substr(at);
        if (rest.starts_with("<!--")) {
            if (!skip_past("-->")) {
                return fail("an unclosed comment");
            }
        } else if (rest.starts_with("<?")) {
            if (!skip_past("?>")) {
                return fail("an unclosed declaration");
            }
        } else if (rest.starts_with("<!")) {
            if (!skip_past(">")) {
                return fail("an unclosed DOCTYPE");
            }
        } else if (rest.starts_with("</")) {
            at += 2;
            const std::string closing = name();
            if (open.empty() || open.back() != closing || markup[at] != '>') {
                return fail("</" + closing + "> closes nothing open");
            }
            open.pop_back();
            ++at;
        } else {
            ++at;
            const std::string element = name();
            if (element.empty()) {
                return fail("a bare <");
            }
            while (true) {
                while (at < markup.size() && std::isspace(static_cast<unsigned char>(markup[at]))) {
                    ++at;
                }
                if (markup.substr(at).starts_with("/>")) {
                    at += 2;
                    break;
                }
                if (at < markup.size() && markup[at] == '>') {
                    open.push_back(element);
                    ++at;
                    break;
                }
                const std::string attribute = name();
                if (attribute.empty() || markup[at] != '=' ||
                    (markup[at + 1] != '"' && markup[at + 1] != '\'')) {
                    return fail("an unquoted attribute in <" + element + ">");
                }
                const char quote = markup[at + 1];
                const std::size_t end = markup.find(quote, at + 2);
                if (end == std::string_view::npos ||
                    markup.substr(at + 2, end - at - 2).find('<') != std::string_view::npos) {
                    return fail("a broken attribute value");
                }
                for (std::size_t i = at + 2; i < end; ++i) {
                    if (markup[i] == '&' && !entity_ok(i)) {
                        return fail("a bare & in an attribute");
                    }
                }
                at = end + 1;
            }
        }
    }
    if (!open.empty()) {
        return ::testing::AssertionFailure() << "<" << open.back() << "> is never closed";
    }
    return ::testing::AssertionSuccess();
}

// The text a browser shows: tags dropped, the entities escape() writes read back.
std::string shown_text(std::string_view markup) {
    std::string text;
    for (std::size_t at = 0; at < markup.size(); ++at) {
        if (markup[at] == '<') {
            at = markup.find('>', at);
            continue;
        }
        if (markup[at] == '&') {
            const std::size_t end = markup.find(';', at);
            const std::string_view entity = markup.substr(at, end - at + 1);
            text += entity == "&amp;"    ? '&'
                    : entity == "&lt;"   ? '<'
                    : entity == "&gt;"   ? '>'
                    : entity == "&quot;" ? '"'
                                         : '\'';
            at = end;
            continue;
        }
        text += markup[at];
    }
    return text;
}

// The walk-through's training plan (loss and d loss / d weights).
Plan<double> training_plan() {
    const test::Walkthrough<double> walk = test::walkthrough<double>(true);
    return walk.network.entry(walk.adjoints->roots()).lower();
}

// `<span class="hlo-kind">text</span>`, text as escaped.
std::string span(std::string_view kind, std::string_view text) {
    return "<span class=\"hlo-" + std::string(kind) + "\">" + std::string(text) + "</span>";
}

// The checker the tests below lean on refuses what an XML parser refuses.
TEST(WellFormedCheck, RefusesUnclosedMisnestedUnquotedAndUnescapedMarkup) {
    EXPECT_TRUE(well_formed("<div a=\"1\"><br/>x &amp; y<!-- c --></div>"));
    EXPECT_FALSE(well_formed("<div><span></div></span>"));
    EXPECT_FALSE(well_formed("<div>"));
    EXPECT_FALSE(well_formed("<div a=1></div>"));
    EXPECT_FALSE(well_formed("<p>a & b</p>"));
    EXPECT_FALSE(well_formed("<p>a < b</p>"));
    EXPECT_FALSE(well_formed("<p title=\"<\"></p>"));
}

TEST(Escape, WritesTheFiveSpecialCharactersAsEntities) {
    EXPECT_EQ(escape("a < b && c > \"d\" 'e'"),
              "a &lt; b &amp;&amp; c &gt; &quot;d&quot; &#39;e&#39;");
}

TEST(Escape, LeavesOtherTextLineBreaksAndUtf8AsTheyAre) {
    EXPECT_EQ(escape("plain text\n\ttabbed, ∂loss/∂w"), "plain text\n\ttabbed, ∂loss/∂w");
    EXPECT_EQ(escape(""), "");
}

TEST(Escape, ReplacesControlCharactersXmlCannotHold) {
    EXPECT_EQ(escape(std::string_view("a\0b\x1b", 4)),
              "a\xEF\xBF\xBD"
              "b\xEF\xBF\xBD");
}

TEST(Text, KeepsItsTextAndShowsItEscapedInAPreBlock) {
    const Text text("if a < b && c\n  then \"d\"");
    EXPECT_EQ(text.text(), "if a < b && c\n  then \"d\"");
    EXPECT_EQ(text.html().html(),
              "<pre class=\"topos-text\">if a &lt; b &amp;&amp; c\n  then &quot;d&quot;</pre>");
    EXPECT_TRUE(well_formed(text.html().html()));
}

TEST(Text, ShowsAPlanDescriptionWellFormed) {
    const Html html = Text(training_plan().describe()).html();
    EXPECT_TRUE(well_formed(html.html()));
    EXPECT_EQ(shown_text(html.html()), training_plan().describe());
}

TEST(StableHlo, ColoursTheOperationsTypesValuesNumbersAndKeywordsOfARealPlan) {
    const std::string module = training_plan().emit_stablehlo();
    const StableHlo hlo(module);
    EXPECT_EQ(hlo.text(), module);
    const std::string html = hlo.html().html();
    EXPECT_THAT(html, StartsWith("<pre class=\"topos-hlo\">"));
    EXPECT_THAT(html, HasSubstr(span("keyword", "module") + " " + span("value", "@topos")));
    EXPECT_THAT(html, HasSubstr(span("op", "func.func") + " " + span("value", "@main")));
    EXPECT_THAT(html, HasSubstr(span("op", "stablehlo.dot_general")));
    EXPECT_THAT(html, HasSubstr(span("op", "stablehlo.tanh")));
    EXPECT_THAT(html, HasSubstr(span("op", "return")));
    EXPECT_THAT(html,
                HasSubstr(span("value", "%arg0") + ": " + span("type", "tensor&lt;2x2xf64&gt;")));
    EXPECT_THAT(html, HasSubstr(span("type", "tensor&lt;f64&gt;")));
    EXPECT_THAT(html, HasSubstr(span("value", "%v5_0")));
    EXPECT_THAT(html,
                HasSubstr(span("keyword", "dense") + "&lt;" + span("number", "-0.0") + "&gt;"));
    for (const char* keyword : {"applies", "across", "dimensions", "init", "dims"}) {
        EXPECT_THAT(html, HasSubstr(span("keyword", keyword))) << keyword;
    }
    EXPECT_THAT(html, HasSubstr("= [" + span("number", "0") + ", " + span("number", "1") + "]"));
}

TEST(StableHlo, LosesNoCharacterOfTheModule) {
    for (const std::string& module : {training_plan().emit_stablehlo(),
                                      training_plan().emit_stablehlo(MlirForm::Generic),
                                      test::convolution_plan().emit_stablehlo(),
                                      test::convolution_plan().emit_stablehlo(MlirForm::Generic)}) {
        const std::string html = StableHlo(module).html().html();
        EXPECT_TRUE(well_formed(html));
        EXPECT_EQ(shown_text(html), module);
    }
}

TEST(StableHlo, ColoursTheQuotedOperationNamesOfTheGenericForm) {
    const std::string html =
        StableHlo(training_plan().emit_stablehlo(MlirForm::Generic)).html().html();
    EXPECT_THAT(html, HasSubstr(span("op", "&quot;stablehlo.multiply&quot;")));
    EXPECT_THAT(html, HasSubstr(span("op", "&quot;func.func&quot;")));
    EXPECT_THAT(html, HasSubstr(span("keyword", "value") + " = " + span("keyword", "dense")));
}

TEST(StableHlo, ColoursCommentsToTheEndOfTheLine) {
    const std::string html =
        StableHlo("%v1 = stablehlo.add %v0, %v0 : tensor<f32>  // twice <x> & more\nreturn %v1")
            .html()
            .html();
    EXPECT_THAT(html, HasSubstr(span("comment", "// twice &lt;x&gt; &amp; more") + "\n"));
    EXPECT_THAT(html, HasSubstr(span("op", "return")));
    EXPECT_TRUE(well_formed(html));
}

TEST(StableHlo, KeepsDigitsInsideNamesAndShapesOutOfNumbers) {
    const std::string html =
        StableHlo("%v12_3 = stablehlo.iota dim = 1 : tensor<2x3xi64> x2 1.5e-09 0xFF800000")
            .html()
            .html();
    EXPECT_THAT(html, HasSubstr(span("value", "%v12_3")));
    EXPECT_THAT(html, HasSubstr(span("type", "tensor&lt;2x3xi64&gt;")));
    EXPECT_THAT(html, HasSubstr(" x2 "));
    EXPECT_THAT(html, HasSubstr(span("number", "1.5e-09")));
    EXPECT_THAT(html, HasSubstr(span("number", "0xFF800000")));
    EXPECT_THAT(html, HasSubstr(span("keyword", "dim") + " = " + span("number", "1")));
    EXPECT_THAT(html, Not(HasSubstr(span("number", "12"))));
    EXPECT_THAT(html, Not(HasSubstr(span("number", "2"))));
}

TEST(StableHlo, EscapesWhatItDoesNotRecognise) {
    const std::string text = "\"unterminated <&> 'quote";
    const std::string html = StableHlo(text).html().html();
    EXPECT_TRUE(well_formed(html));
    EXPECT_EQ(shown_text(html), text);
}

// A small picture every test can lay out.
Picture two_boxes() {
    return Picture("digraph g { a [class=\"first\"]; a -> b; }", 2);
}

TEST(Picture, KeepsItsDotTextAndTheBoxesItDraws) {
    const Picture picture = two_boxes();
    EXPECT_EQ(picture.dot(), "digraph g { a [class=\"first\"]; a -> b; }");
    EXPECT_EQ(picture.nodes(), 2u);
}

TEST(Picture, LaysOutItsDotAsAStandaloneSvgDocument) {
    if (!Picture::can_lay_out()) {
        GTEST_SKIP() << "this build has no Graphviz library";
    }
    const std::string svg = two_boxes().svg();
    EXPECT_THAT(svg, StartsWith("<?xml"));
    EXPECT_THAT(svg, HasSubstr("<svg"));
    EXPECT_THAT(svg, HasSubstr("class=\"node first\""));
    EXPECT_THAT(svg, HasSubstr("</svg>"));
    EXPECT_TRUE(well_formed(svg));
}

TEST(Picture, ShowsTheSvgInlineWithoutItsPrologue) {
    if (!Picture::can_lay_out()) {
        GTEST_SKIP() << "this build has no Graphviz library";
    }
    const std::string html = graph(test::convolution_plan()).html().html();
    EXPECT_THAT(html, StartsWith("<div class=\"topos-picture\"><svg"));
    EXPECT_THAT(html, Not(HasSubstr("<?xml")));
    EXPECT_THAT(html, Not(HasSubstr("<!DOCTYPE")));
    EXPECT_THAT(html, HasSubstr("WindowProduct"));
    EXPECT_TRUE(well_formed(html));
}

TEST(Picture, NamesGraphvizsReasonForRejectingItsDotAndLaysOutTheNextOne) {
    if (!Picture::can_lay_out()) {
        GTEST_SKIP() << "this build has no Graphviz library";
    }
    try {
        (void)Picture("digraph { a -> ; }", 1).svg();
        FAIL() << "Graphviz accepted broken DOT";
    } catch (const ShowError& error) {
        EXPECT_THAT(error.what(), HasSubstr("Graphviz rejected"));
        EXPECT_THAT(error.what(), HasSubstr("syntax error"));
    }
    EXPECT_THAT(two_boxes().svg(), HasSubstr("<svg"));
}

TEST(Picture, LaysOutFromSeveralThreadsAtOnce) {
    if (!Picture::can_lay_out()) {
        GTEST_SKIP() << "this build has no Graphviz library";
    }
    const Picture picture = graph(training_plan());
    const std::string expected = picture.svg();
    std::vector<std::string> results(4);
    std::vector<std::thread> threads;
    threads.reserve(results.size());
    for (std::string& result : results) {
        threads.emplace_back([&picture, &result] {
            for (int i = 0; i < 5; ++i) {
                result = picture.svg();
            }
        });
    }
    for (std::thread& thread : threads) {
        thread.join();
    }
    for (const std::string& result : results) {
        EXPECT_EQ(result, expected);
    }
}

TEST(Picture, WithoutGraphvizSaysHowToGetItAndShowsTheDot) {
    if (Picture::can_lay_out()) {
        GTEST_SKIP() << "this build lays out pictures with Graphviz";
    }
    try {
        (void)two_boxes().svg();
        FAIL() << "svg() returned without Graphviz";
    } catch (const GraphvizUnavailable& error) {
        EXPECT_THAT(error.what(), HasSubstr("libgraphviz-dev"));
        EXPECT_THAT(error.what(), HasSubstr("dot -Tsvg"));
    }
    const std::string html = two_boxes().html().html();
    EXPECT_THAT(html, HasSubstr("<pre"));
    EXPECT_THAT(html, HasSubstr("a [class=&quot;first&quot;]; a -&gt; b;"));
    EXPECT_TRUE(well_formed(html));
}

}  // namespace
}  // namespace topos::show
