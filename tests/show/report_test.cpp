// show::Report and show::style_sheet: a report is one self-contained,
// well-formed HTML5 document (sections under a table of contents, or CSS-only
// tabs), and write() puts it on disk atomically or says why it cannot.
#include "show/seed_networks.hpp"
#include "show/well_formed.hpp"
#include <topos/show/card.hpp>
#include <topos/show/graph.hpp>
#include <topos/show/plot.hpp>
#include <topos/show/report.hpp>
#include <topos/topos.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <unistd.h>
#include <vector>

namespace topos::show {
namespace {

namespace fs = std::filesystem;

using test::attribute_values;
using test::dangling_link;
using test::external_reference;
using test::occurrences;
using test::repeated_id;
using test::well_formedness_error;
using ::testing::HasSubstr;
using ::testing::Not;

// A report of every kind of exhibit: cards, text, a plot.
Report walkthrough_report(Layout layout) {
    const test::Walkthrough<float> graph = test::walkthrough();
    const Plan<float> plan = graph.network.entry({graph.loss}).lower();
    Report report("walkthrough <loss> & plan", layout);
    report.add("the network", card(graph.network))
        .add("the plan", card(plan))
        .add("the plan again", card(plan))
        .add("the plan's text", Text(plan.describe()))
        .add("live volume", live_volume(plan))
        .add("weights", card(Tensor<float>({2, 2}, {0.5f, -0.25f, 0.25f, 0.4f})));
    return report;
}

void expect_self_contained_document(const std::string& html) {
    EXPECT_EQ(html.rfind("<!DOCTYPE html>\n<html", 0), 0u);
    EXPECT_THAT(html, HasSubstr("<meta charset=\"utf-8\"/>"));
    EXPECT_THAT(html, HasSubstr("<style>" + style_sheet() + "</style>"));
    EXPECT_EQ(well_formedness_error(html), "");
    EXPECT_EQ(external_reference(html), "");
    EXPECT_EQ(dangling_link(html), "");
    EXPECT_EQ(repeated_id(html), "");
}

// A fresh folder under the system's temporary folder, removed at the end.
class TemporaryFolder {
public:
    TemporaryFolder()
        : path_(fs::temp_directory_path() /
                ("topos-report-test-" + std::to_string(::getpid()) + "-" +
                 ::testing::UnitTest::GetInstance()->current_test_info()->name())) {
        fs::remove_all(path_);
        fs::create_directories(path_);
    }

    TemporaryFolder(const TemporaryFolder&) = delete;
    TemporaryFolder& operator=(const TemporaryFolder&) = delete;

    ~TemporaryFolder() {
        std::error_code ignored;
        fs::remove_all(path_, ignored);
    }

    const fs::path& path() const { return path_; }

private:
    fs::path path_;
};

std::string contents(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(Report, SectionsLayoutIsAWellFormedSelfContainedDocument) {
    const std::string html = walkthrough_report(Layout::Sections).html();
    expect_self_contained_document(html);
    EXPECT_THAT(html, HasSubstr("<title>walkthrough &lt;loss&gt; &amp; plan</title>"));
    EXPECT_THAT(html, HasSubstr("<h1>walkthrough &lt;loss&gt; &amp; plan</h1>"));
    EXPECT_EQ(occurrences(html, "<section class=\"topos-exhibit\""), 6u);
    EXPECT_THAT(html, HasSubstr("<a href=\"#exhibit-1\">the network</a>"));
    EXPECT_THAT(html, HasSubstr("<a href=\"#exhibit-4\">the plan&#39;s text</a>"));
    EXPECT_THAT(html, HasSubstr("id=\"exhibit-6\"><h2>weights</h2>"));
    EXPECT_THAT(html, Not(HasSubstr("<input")));
}

TEST(Report, PicturesAndStableHloEmbedWellFormed) {
    const test::Walkthrough<float> graph = test::walkthrough();
    const Plan<float> plan = graph.network.entry({graph.loss}).lower();
    for (const Layout layout : {Layout::Sections, Layout::Tabs}) {
        Report report("pictures", layout);
        report.add("the plan drawn", show::graph(plan))
            .add("the module", StableHlo(plan.emit_stablehlo()));
        expect_self_contained_document(report.html());
    }
}

// Graphviz numbers its ids (graph0, node1, edge1) afresh in every picture.
TEST(Report, TwoPicturesInOneReportShareNoId) {
    const test::Walkthrough<float> graph = test::walkthrough();
    Report report("two pictures");
    report.add("the network drawn", show::graph(graph.network))
        .add("the plan drawn", show::graph(graph.network.entry({graph.loss}).lower()));
    EXPECT_EQ(repeated_id(report.html()), "");
}

TEST(Report, ExhibitsAppearInTheOrderAdded) {
    const std::string html = walkthrough_report(Layout::Sections).html();
    const std::size_t network = html.find("<h2>the network</h2>");
    const std::size_t plan = html.find("<h2>the plan</h2>");
    const std::size_t weights = html.find("<h2>weights</h2>");
    ASSERT_NE(weights, std::string::npos);
    EXPECT_LT(network, plan);
    EXPECT_LT(plan, weights);
}

TEST(Report, TabsLayoutHasOneRadioPerExhibitWithTheFirstChecked) {
    const std::string html = walkthrough_report(Layout::Tabs).html();
    expect_self_contained_document(html);
    EXPECT_EQ(occurrences(html, "<input type=\"radio\""), 6u);
    EXPECT_EQ(occurrences(html, "checked=\"checked\""), 1u);
    EXPECT_EQ(occurrences(html, "<label for=\""), 6u);
    EXPECT_THAT(html, HasSubstr("id=\"tab-exhibit-1\" checked=\"checked\"/>"));
    const std::vector<std::string> ids = attribute_values(html, "id");
    for (const std::string& target : attribute_values(html, "for")) {
        EXPECT_NE(std::find(ids.begin(), ids.end(), target), ids.end()) << target;
    }
    EXPECT_THAT(html, Not(HasSubstr("<nav")));
}

TEST(Report, EmptyReportIsStillAWellFormedDocument) {
    for (const Layout layout : {Layout::Sections, Layout::Tabs}) {
        const std::string html = Report("nothing yet", layout).html();
        expect_self_contained_document(html);
        EXPECT_THAT(html, HasSubstr("no exhibits"));
    }
}

TEST(Report, WriteCreatesTheFolderAndWritesTheDocumentLeavingNoTemporaryFile) {
    const TemporaryFolder folder;
    const Report report = walkthrough_report(Layout::Sections);
    const fs::path target = folder.path() / "nested" / "deeper" / "report.html";
    report.write(target);
    EXPECT_EQ(contents(target), report.html());
    EXPECT_EQ(std::distance(fs::directory_iterator(target.parent_path()), fs::directory_iterator()),
              1);
}

TEST(Report, WriteReplacesAnExistingFile) {
    const TemporaryFolder folder;
    const fs::path target = folder.path() / "report.html";
    std::ofstream(target) << "an older report";
    const Report report("replaced");
    report.write(target);
    EXPECT_EQ(contents(target), report.html());
}

TEST(Report, WriteUnderARegularFileThrowsShowErrorNamingThePath) {
    const TemporaryFolder folder;
    const fs::path blocker = folder.path() / "blocker";
    std::ofstream(blocker) << "a file, not a folder";
    for (const fs::path& target : {blocker / "report.html", blocker / "sub" / "report.html"}) {
        try {
            Report("blocked").write(target);
            ADD_FAILURE() << "no ShowError for " << target;
        } catch (const ShowError& error) {
            EXPECT_THAT(error.what(), HasSubstr(target.string()));
            EXPECT_THAT(error.what(), HasSubstr("Not a directory"));
        }
    }
    EXPECT_EQ(contents(blocker), "a file, not a folder");
}

TEST(StyleSheet, StylesEveryClassTheShowLayerWrites) {
    const std::string& css = style_sheet();
    for (const char* selector : {".topos-card",
                                 "td.nonfinite",
                                 "svg.topos-histogram",
                                 ".topos-nodes tr:target",
                                 ".topos-kept",
                                 ".topos-fused",
                                 ".topos-text pre",
                                 "pre.topos-hlo",
                                 ".hlo-op",
                                 ".hlo-type",
                                 ".hlo-value",
                                 ".hlo-number",
                                 ".hlo-keyword",
                                 ".hlo-comment",
                                 "g.node.derived",
                                 ".unscheduled",
                                 "g.node.declared",
                                 "g.node.marked",
                                 ".pattern",
                                 ".topos-plot",
                                 "nav.topos-toc",
                                 "input:checked + label + section",
                                 "@media print"}) {
        EXPECT_THAT(css, HasSubstr(selector));
    }
}

TEST(StyleSheet, EmbedsAsTextWithNothingExternal) {
    const std::string& css = style_sheet();
    EXPECT_EQ(css.find('<'), std::string::npos);
    EXPECT_EQ(css.find('&'), std::string::npos);
    EXPECT_EQ(css.find("url("), std::string::npos);
    EXPECT_EQ(css.find("@import"), std::string::npos);
    EXPECT_EQ(&css, &style_sheet());
}

}  // namespace
}  // namespace topos::show
