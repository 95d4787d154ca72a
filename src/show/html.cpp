// show::escape and Text::html.
#include <topos/show/html.hpp>

#include <string>
#include <string_view>

namespace topos::show {

namespace {

// XML 1.0 forbids the C0 control characters other than tab, line feed and
// carriage return, even written as character references: they become U+FFFD so
// that the fragment still parses.
bool forbidden_in_xml(char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte < 0x20 && c != '\t' && c != '\n' && c != '\r';
}

}  // namespace

std::string escape(std::string_view text) {
    std::string escaped;
    escaped.reserve(text.size() + text.size() / 8);
    for (const char c : text) {
        switch (c) {
            case '&':
                escaped += "&amp;";
                break;
            case '<':
                escaped += "&lt;";
                break;
            case '>':
                escaped += "&gt;";
                break;
            case '"':
                escaped += "&quot;";
                break;
            case '\'':
                escaped += "&#39;";
                break;
            default:
                escaped += forbidden_in_xml(c) ? std::string_view("\xEF\xBF\xBD")
                                               : std::string_view(&c, 1);
        }
    }
    return escaped;
}

Html Text::html() const {
    return Html("<pre class=\"topos-text\">" + escape(text_) + "</pre>");
}

}  // namespace topos::show
