// The readings as one JSON object, written by hand: every string escaped per
// RFC 8259 (quote, backslash and every control character), bytes of 0x80 and
// above passed through, as the texts are UTF-8 or ASCII.
#include <topos/lang/readings.hpp>

#include <array>
#include <cstdio>
#include <utility>

namespace topos::lang {

std::string json_quoted(std::string_view text) {
    std::string quoted = "\"";
    quoted.reserve(text.size() + 2);
    for (const char c : text) {
        switch (c) {
            case '"':
                quoted += "\\\"";
                break;
            case '\\':
                quoted += "\\\\";
                break;
            case '\n':
                quoted += "\\n";
                break;
            case '\t':
                quoted += "\\t";
                break;
            case '\r':
                quoted += "\\r";
                break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    std::array<char, 8> escaped{};
                    std::snprintf(escaped.data(),
                                  escaped.size(),
                                  "\\u%04x",
                                  static_cast<unsigned>(static_cast<unsigned char>(c)));
                    quoted += escaped.data();
                } else {
                    quoted += c;
                }
        }
    }
    return quoted + "\"";
}

std::string render_json(const Readings& readings) {
    const std::array<std::pair<std::string_view, const std::string*>, 7> strings{{
        {"spec", &readings.spec},
        {"derivative", &readings.derivative},
        {"plan", &readings.plan},
        {"stablehlo", &readings.stablehlo},
        {"values", &readings.values},
        {"picture", &readings.picture},
        {"summary", &readings.summary},
    }};
    std::string json = "{\n";
    for (const auto& [name, text] : strings) {
        json += "  " + json_quoted(name) + ": " + json_quoted(*text) + ",\n";
    }
    json +=
        "  \"svg\": " + (readings.svg.empty() ? std::string("null") : json_quoted(readings.svg));
    json += ",\n  \"boxes\": " + std::to_string(readings.boxes);
    json += ",\n  \"recorded\": " + std::to_string(readings.recorded);
    json += ",\n  \"scheduled\": " + std::to_string(readings.scheduled);
    json += ",\n  \"readable\": " + std::to_string(readings.readable) + "\n}\n";
    return json;
}

}  // namespace topos::lang
