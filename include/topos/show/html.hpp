// show::Html and show::Text: the two simplest exhibits. Html is a fragment of
// well-formed HTML (every element closed, attributes quoted, text escaped),
// so that it parses as XML and embeds in a report; Text is preformatted text
// shown as it is, in a fixed-width font.
#pragma once

#include <topos/core/error.hpp>

#include <string>
#include <string_view>
#include <utility>

namespace topos::show {

// What the presentation layer throws: a picture asked of a build without
// Graphviz, a file a report cannot write, an option out of range.
class ShowError : public Error {
public:
    using Error::Error;
};

// `text` with &, <, >, " and ' written as entities, and the control characters
// XML forbids replaced by U+FFFD: safe in HTML and SVG text and in quoted
// attributes.
std::string escape(std::string_view text);

// A fragment of well-formed HTML.
class Html {
public:
    // An empty fragment.
    Html() = default;

    // Wraps markup that is already well-formed HTML; it is not checked.
    explicit Html(std::string markup) : markup_(std::move(markup)) {}

    // The fragment.
    const std::string& html() const { return markup_; }

private:
    std::string markup_;
};

// Preformatted text: a describe(), a log, a plan.
class Text {
public:
    // Text to show as it is.
    explicit Text(std::string text) : text_(std::move(text)) {}

    // The text as given.
    const std::string& text() const { return text_; }

    // A <pre> block holding the escaped text.
    Html html() const;

private:
    std::string text_;
};

// StableHLO text, shown with its syntax coloured (operations, types, values,
// attributes, comments) in a <pre> block.
class StableHlo {
public:
    // A module as Plan::emit_stablehlo() writes it.
    explicit StableHlo(std::string module) : module_(std::move(module)) {}

    // The module as given.
    const std::string& text() const { return module_; }

    // The coloured <pre> block: spans of the classes hlo-op, hlo-type,
    // hlo-value, hlo-number, hlo-keyword and hlo-comment.
    Html html() const;

private:
    std::string module_;
};

}  // namespace topos::show
