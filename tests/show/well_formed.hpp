// What the show tests ask of every fragment and document: that it parses as XML
// (a tag stack: every element closed in order, attributes quoted, no stray '<'
// or '&' in text), that its links resolve within it, and that it names nothing
// outside itself.
#pragma once

#include <cctype>
#include <cstddef>
#include <regex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace topos::show::test {

namespace detail {

inline bool name_start(char c) {
    return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_' || c == ':';
}

inline bool name_char(char c) {
    return name_start(c) || std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '-' ||
           c == '.';
}

inline bool space(char c) {
    return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

// `&amp;`, `&#39;`, `&#x1F;` at `at`: its length, or 0 when it is not an entity.
inline std::size_t entity_length(std::string_view text, std::size_t at) {
    static const std::regex entity("^&([A-Za-z]+|#[0-9]+|#x[0-9A-Fa-f]+);");
    std::match_results<std::string_view::const_iterator> match;
    const std::string_view rest = text.substr(at, 16);
    if (std::regex_search(rest.begin(), rest.end(), match, entity)) {
        return static_cast<std::size_t>(match.length(0));
    }
    return 0;
}

class Checker {
public:
    explicit Checker(std::string_view markup) : text_(markup) {}

    std::string run() {
        while (error_.empty() && at_ < text_.size()) {
            if (text_[at_] == '<') {
                markup();
            } else if (text_[at_] == '&') {
                entity();
            } else {
                ++at_;
            }
        }
        if (error_.empty() && !open_.empty()) {
            fail("<" + open_.back() + "> is never closed");
        }
        return error_;
    }

private:
    void fail(const std::string& what) {
        if (error_.empty()) {
            error_ = what + " (at offset " + std::to_string(at_) + ": \"" +
                     std::string(text_.substr(at_ > 40 ? at_ - 40 : 0, 80)) + "\")";
        }
    }

    bool starts(std::string_view prefix) const {
        return text_.substr(at_, prefix.size()) == prefix;
    }

    void skip_past(std::string_view end, const char* what) {
        const std::size_t found = text_.find(end, at_);
        if (found == std::string_view::npos) {
            fail(std::string("unterminated ") + what);
            return;
        }
        at_ = found + end.size();
    }

    // A DOCTYPE or an XML declaration belongs only before the first element.
    void prolog(std::string_view end, const char* what) {
        if (seen_element_) {
            fail(std::string(what) + " after the first element");
            return;
        }
        skip_past(end, what);
    }

    void markup() {
        if (starts("<!--")) {
            skip_past("-->", "comment");
        } else if (starts("<!DOCTYPE") || starts("<!doctype")) {
            prolog(">", "DOCTYPE");
        } else if (starts("<?")) {
            prolog("?>", "XML declaration");
        } else if (starts("</")) {
            closing_tag();
        } else {
            opening_tag();
        }
    }

    std::string name() {
        const std::size_t start = at_;
        if (at_ >= text_.size() || !name_start(text_[at_])) {
            fail("a name was expected");
            return {};
        }
        while (at_ < text_.size() && name_char(text_[at_])) {
            ++at_;
        }
        return std::string(text_.substr(start, at_ - start));
    }

    void skip_spaces() {
        while (at_ < text_.size() && space(text_[at_])) {
            ++at_;
        }
    }

    void closing_tag() {
        at_ += 2;
        const std::string closed = name();
        skip_spaces();
        if (!error_.empty() || !starts(">")) {
            fail("malformed closing tag");
            return;
        }
        if (open_.empty() || open_.back() != closed) {
            fail("</" + closed + "> closes " +
                 (open_.empty() ? "nothing" : "<" + open_.back() + ">"));
            return;
        }
        open_.pop_back();
        ++at_;
    }

    void opening_tag() {
        ++at_;
        const std::string element = name();
        std::set<std::string> attributes;
        while (error_.empty()) {
            const bool spaced = at_ < text_.size() && space(text_[at_]);
            skip_spaces();
            if (starts("/>")) {
                at_ += 2;
                break;
            }
            if (starts(">")) {
                ++at_;
                open_.push_back(element);
                break;
            }
            if (!spaced) {
                fail("attributes of <" + element + "> must be separated by spaces");
                return;
            }
            attribute(element, attributes);
        }
        seen_element_ = true;
    }

    void attribute(const std::string& element, std::set<std::string>& seen) {
        const std::string attribute = name();
        if (!error_.empty()) {
            return;
        }
        if (!seen.insert(attribute).second) {
            fail("<" + element + "> repeats the attribute " + attribute);
            return;
        }
        if (!starts("=\"") && !starts("='")) {
            fail("the attribute " + attribute + " of <" + element + "> is not quoted");
            return;
        }
        const char quote = text_[at_ + 1];
        at_ += 2;
        while (error_.empty() && at_ < text_.size() && text_[at_] != quote) {
            if (text_[at_] == '<') {
                fail("'<' in the value of " + attribute);
            } else if (text_[at_] == '&') {
                entity();
            } else {
                ++at_;
            }
        }
        if (at_ >= text_.size()) {
            fail("unterminated attribute value");
            return;
        }
        ++at_;
    }

    void entity() {
        const std::size_t length = entity_length(text_, at_);
        if (length == 0) {
            fail("a stray '&'");
            return;
        }
        at_ += length;
    }

    std::string_view text_;
    std::size_t at_ = 0;
    std::vector<std::string> open_;
    bool seen_element_ = false;
    std::string error_;
};

}  // namespace detail

// Why `markup` is not well-formed, or "" when it is.
inline std::string well_formedness_error(std::string_view markup) {
    return detail::Checker(markup).run();
}

// The values of every `name="..."` attribute, in order.
inline std::vector<std::string> attribute_values(const std::string& markup,
                                                 const std::string& name) {
    const std::regex attribute("[\\s]" + name + "=\"([^\"]*)\"");
    std::vector<std::string> values;
    for (auto it = std::sregex_iterator(markup.begin(), markup.end(), attribute);
         it != std::sregex_iterator();
         ++it) {
        values.push_back((*it)[1].str());
    }
    return values;
}

// An id given twice, or "" when every id is unique.
inline std::string repeated_id(const std::string& markup) {
    std::set<std::string> seen;
    for (const std::string& id : attribute_values(markup, "id")) {
        if (!seen.insert(id).second) {
            return id;
        }
    }
    return {};
}

// The first href that is not "#id" of an element in `markup`, or "" when they all are.
inline std::string dangling_link(const std::string& markup) {
    const std::vector<std::string> ids = attribute_values(markup, "id");
    const std::set<std::string> targets(ids.begin(), ids.end());
    for (const std::string& href : attribute_values(markup, "href")) {
        if (href.empty() || href[0] != '#' || targets.count(href.substr(1)) == 0) {
            return href;
        }
    }
    return {};
}

// What in `markup` names or loads something outside it: a script, or an
// http(s) URL other than an XML namespace name (xmlns="http://www.w3.org/2000/svg"
// is a name, never fetched). "" when nothing does.
inline std::string external_reference(const std::string& markup) {
    if (markup.find("<script") != std::string::npos) {
        return "a <script> element";
    }
    static const std::regex url("https?:");
    static const std::regex namespace_name("xmlns(:[A-Za-z]+)?=\"$");
    for (auto it = std::sregex_iterator(markup.begin(), markup.end(), url);
         it != std::sregex_iterator();
         ++it) {
        const std::size_t at = static_cast<std::size_t>(it->position(0));
        const std::string before = markup.substr(at > 16 ? at - 16 : 0, at > 16 ? 16 : at);
        if (!std::regex_search(before, namespace_name)) {
            return markup.substr(at, 60);
        }
    }
    return {};
}

// How many times `needle` occurs in `text`.
inline std::size_t occurrences(std::string_view text, std::string_view needle) {
    std::size_t count = 0;
    for (std::size_t at = text.find(needle); at != std::string_view::npos;
         at = text.find(needle, at + needle.size())) {
        ++count;
    }
    return count;
}

}  // namespace topos::show::test
