// show::Report: titled exhibits (text, pictures, plots, cards, StableHLO) in
// sections or tabs, written as one self-contained HTML file: the style sheet
// and every SVG inline, no script from elsewhere, no network access.
//
//   show::Report report("walkthrough");
//   report.add("the plan", show::card(plan));
//   report.add("live volume", show::live_volume(plan));
//   report.add("picture", show::graph(plan));
//   report.write("build/report.html");
#pragma once

#include <topos/show/html.hpp>
#include <topos/show/picture.hpp>
#include <topos/show/plot.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace topos::show {

// One exhibit, made from any of the things a report shows.
class Exhibit {
public:
    // A card or any other fragment of HTML.
    Exhibit(Html html) : html_(std::move(html)) {}  // NOLINT(google-explicit-constructor)

    // Preformatted text.
    Exhibit(const Text& text) : html_(text.html()) {}  // NOLINT(google-explicit-constructor)

    // StableHLO, its syntax coloured.
    Exhibit(const StableHlo& module)
        : html_(module.html()) {}  // NOLINT(google-explicit-constructor)

    // A picture: its SVG where Graphviz lays it out, else its DOT text.
    Exhibit(const Picture& picture)
        : html_(picture.html()) {}  // NOLINT(google-explicit-constructor)

    // A chart, as SVG.
    Exhibit(const Plot& plot) : html_(plot.html()) {}  // NOLINT(google-explicit-constructor)

    // The exhibit's HTML.
    const Html& html() const { return html_; }

private:
    Html html_;
};

// How a report places its exhibits.
enum class Layout : std::uint8_t {
    Sections,  // one after another, with a table of contents
    Tabs,      // one at a time, chosen by tabs (CSS only, no script)
};

class Report {
public:
    // An empty report under `title`.
    explicit Report(std::string title, Layout layout = Layout::Sections);

    // Adds an exhibit under `title`; returns the report.
    Report& add(std::string title, Exhibit exhibit);

    // The whole document: <!DOCTYPE html>, the style sheet, the exhibits.
    std::string html() const;

    // Writes html() to `path` (atomically: a file beside it, then a rename),
    // creating its folder. Throws ShowError naming the path and the reason.
    void write(const std::filesystem::path& path) const;

private:
    std::string title_;
    Layout layout_;
    std::vector<std::pair<std::string, Exhibit>> exhibits_;
};

}  // namespace topos::show
