// The modules' descriptions nest: a part's lines go under its owner's,
// indented two spaces further.
#pragma once

#include <string>

namespace topos::detail {

// Every line of `text` after the first, indented by two more spaces.
inline std::string indented(const std::string& text) {
    std::string out;
    for (const char c : text) {
        out += c;
        if (c == '\n') {
            out += "  ";
        }
    }
    return out;
}

}  // namespace topos::detail
