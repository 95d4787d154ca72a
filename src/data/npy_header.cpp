// The .npy header read as the few Python literals numpy.save writes in it (a
// dict of strings, booleans and one tuple of integers, as ast.literal_eval
// reads them), checked key by key, and written back as numpy.save writes it.
#include "data/npy_header.hpp"

#include <topos/core/error.hpp>
#include <topos/core/shape.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <utility>

namespace topos::data {
// Named apart from the other sources' helpers, which a unity build merges with these.
namespace npy_header_text {
namespace {

// The most bytes of the header an error message quotes.
constexpr std::size_t longest_quote = 40;

// numpy's ARRAY_ALIGN: the preamble's length is a multiple of it.
constexpr std::size_t alignment = 64;

// numpy's GROWTH_AXIS_MAX_DIGITS: the header keeps room for the first extent
// to grow to this many digits.
constexpr std::size_t growth_digits = 21;

// A byte as a message shows it: itself when printable ASCII, else \xNN.
std::string shown(char byte) {
    const auto code = static_cast<unsigned char>(byte);
    if (code >= 0x20 && code < 0x7f) {
        return std::string(1, byte);
    }
    constexpr std::string_view hex = "0123456789ABCDEF";
    return std::string("\\x") + hex[code >> 4] + hex[code & 0xf];
}

// Up to 40 bytes of `text` from its start, quoted, "..." after a cut.
std::string quoted(std::string_view text) {
    std::string quote = "\"";
    for (const char byte : text.substr(0, longest_quote)) {
        quote += shown(byte);
    }
    return quote + (text.size() > longest_quote ? "...\"" : "\"");
}

// What a descr's kind letter names, for a refusal.
std::string kind_name(char kind) {
    switch (kind) {
        case 'c':
            return "complex numbers";
        case 'U':
        case 'S':
        case 'a':
            return "strings";
        case 'O':
            return "Python objects";
        case 'M':
        case 'm':
            return "dates or times";
        case 'V':
            return "raw bytes (a structured array)";
        default:
            return "an element type";
    }
}

bool readable_element(char kind, std::size_t bytes) {
    switch (kind) {
        case 'f':
            return bytes == 2 || bytes == 4 || bytes == 8;
        case 'i':
        case 'u':
            return bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8;
        case 'b':
            return bytes == 1;
        default:
            return false;
    }
}

// One value of the header's dict.
struct Literal {
    enum class Kind : std::uint8_t {
        String,
        Bool,
        Tuple,
        List
    };
    Kind kind = Kind::String;
    std::string text;                  // a string's characters
    bool flag = false;                 // a bool's value
    std::vector<std::size_t> extents;  // a tuple's integers
};

// Reads the dict a header holds, byte by byte.
class HeaderParser {
public:
    HeaderParser(std::string_view text, const std::string& origin) : text_(text), origin_(origin) {}

    NpyHeader read() {
        skip_space();
        expect('{', "the dict's opening '{'");
        skip_space();
        while (!take('}')) {
            entry();
            skip_space();
            if (!take(',')) {
                expect('}', "',' or the dict's closing '}'");
                break;
            }
            skip_space();
        }
        finish();
        return header_;
    }

private:
    // One key and its value.
    void entry() {
        const std::size_t key_at = at_;
        const std::string key = key_string();
        if (key != "descr" && key != "fortran_order" && key != "shape") {
            refuse_at(key_at,
                      "an unknown key '" + key +
                          "' (a .npy header holds exactly 'descr', 'fortran_order' and 'shape')");
        }
        skip_space();
        expect(':', "':' after the key '" + key + "'");
        skip_space();
        const Literal literal = value();
        if (key == "descr") {
            once(seen_descr_, key, key_at);
            header_.element = element_of(literal, key_at);
        } else if (key == "fortran_order") {
            once(seen_order_, key, key_at);
            header_.fortran_order = flag_of(literal, key_at);
        } else {
            once(seen_shape_, key, key_at);
            header_.shape = shape_of(literal, key_at);
        }
    }

    void finish() {
        skip_space();
        if (at_ != text_.size()) {
            refuse_at(at_, "bytes after the dict's closing '}'");
        }
        for (const auto& [seen, key] : {std::pair{seen_descr_, "descr"},
                                        std::pair{seen_order_, "fortran_order"},
                                        std::pair{seen_shape_, "shape"}}) {
            if (!seen) {
                refuse(std::string("the dict has no '") + key +
                       "' (a .npy header holds exactly 'descr', 'fortran_order' and 'shape')");
            }
        }
    }

    void once(bool& seen, const std::string& key, std::size_t key_at) const {
        if (seen) {
            refuse_at(key_at, "the key '" + key + "' a second time");
        }
        seen = true;
    }

    void skip_space() {
        while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\t' ||
                                      text_[at_] == '\n' || text_[at_] == '\r')) {
            ++at_;
        }
    }

    bool take(char wanted) {
        if (at_ < text_.size() && text_[at_] == wanted) {
            ++at_;
            return true;
        }
        return false;
    }

    void expect(char wanted, const std::string& what) {
        if (!take(wanted)) {
            refuse_at(at_, "no " + what);
        }
    }

    std::string key_string() {
        if (at_ < text_.size() && (text_[at_] == '\'' || text_[at_] == '"')) {
            return string_literal();
        }
        refuse_at(at_,
                  "no key in quotes, where the dict holds 'descr', 'fortran_order' or 'shape'");
    }

    // A string in single or double quotes, without escapes (numpy writes none).
    std::string string_literal() {
        const char quote = text_[at_];
        const std::size_t start = at_;
        const std::size_t end = text_.find(quote, at_ + 1);
        if (end == std::string_view::npos) {
            refuse_at(start, "a string that is never closed");
        }
        at_ = end + 1;
        return std::string(text_.substr(start + 1, end - start - 1));
    }

    Literal value() {
        Literal literal;
        const std::string_view rest = text_.substr(at_);
        if (!rest.empty() && (rest.front() == '\'' || rest.front() == '"')) {
            literal.text = string_literal();
        } else if (rest.starts_with("True") || rest.starts_with("False")) {
            literal.kind = Literal::Kind::Bool;
            literal.flag = rest.starts_with("True");
            at_ += literal.flag ? 4 : 5;
        } else if (rest.starts_with('(')) {
            literal.kind = Literal::Kind::Tuple;
            literal.extents = tuple();
        } else if (rest.starts_with('[')) {
            literal.kind = Literal::Kind::List;
        } else {
            refuse_at(at_, "a value that is not a string, True, False or a tuple");
        }
        return literal;
    }

    // A tuple of extents: "()", "(3,)", "(2, 3)", "(2, 3,)"; a lone integer
    // in parentheses is no tuple.
    std::vector<std::size_t> tuple() {
        const std::size_t start = at_++;
        std::vector<std::size_t> extents;
        skip_space();
        bool comma = false;
        while (!take(')')) {
            extents.push_back(extent());
            skip_space();
            comma = take(',');
            skip_space();
            if (!comma && !take(')')) {
                refuse_at(at_, "no ',' or ')' after an extent of the shape");
            }
            if (!comma) {
                break;
            }
        }
        if (extents.size() == 1 && !comma) {
            refuse_at(start, "a shape that is not a tuple (one extent is written \"(3,)\")");
        }
        return extents;
    }

    // A nonnegative integer, with Python 2's 'L' after it allowed.
    std::size_t extent() {
        const std::size_t start = at_;
        if (take('-')) {
            refuse_at(start, "a negative extent");
        }
        std::size_t value = 0;
        while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9') {
            const auto digit = static_cast<std::size_t>(text_[at_] - '0');
            if (value > (Shape::max_elements - digit) / 10) {
                refuse_at(start,
                          "an extent above Shape::max_elements (" +
                              std::to_string(Shape::max_elements) + ")");
            }
            value = value * 10 + digit;
            ++at_;
        }
        if (at_ == start) {
            refuse_at(start, "an extent that is not an integer");
        }
        (void)(take('L') || take('l'));
        return value;
    }

    NpyElement element_of(const Literal& literal, std::size_t key_at) const {
        if (literal.kind == Literal::Kind::List) {
            refuse_element("a structured array (its 'descr' is a list of fields)");
        }
        if (literal.kind != Literal::Kind::String) {
            refuse_at(key_at, "a 'descr' that is not a string");
        }
        const std::string& descr = literal.text;
        NpyElement element;
        element.descr = descr;
        const bool ordered = descr.size() == 3 && (descr[0] == '<' || descr[0] == '>' ||
                                                   descr[0] == '|' || descr[0] == '=');
        if (!ordered || descr[2] < '1' || descr[2] > '8') {
            refuse_element("'" + descr + "', " + kind_name(descr.size() > 1 ? descr[1] : '?'));
        }
        element.kind = descr[1];
        element.bytes = static_cast<std::size_t>(descr[2] - '0');
        element.big_endian = descr[0] == '>';
        if (!readable_element(element.kind, element.bytes)) {
            refuse_element("'" + descr + "', " + kind_name(element.kind));
        }
        if (descr[0] == '=' || (descr[0] == '|' && element.bytes > 1)) {
            refuse_element("'" + descr + "', without a byte order ('<' or '>')");
        }
        return element;
    }

    bool flag_of(const Literal& literal, std::size_t key_at) const {
        if (literal.kind != Literal::Kind::Bool) {
            refuse_at(key_at, "a 'fortran_order' that is neither True nor False");
        }
        return literal.flag;
    }

    std::vector<std::size_t> shape_of(const Literal& literal, std::size_t key_at) const {
        if (literal.kind != Literal::Kind::Tuple) {
            refuse_at(key_at, "a 'shape' that is not a tuple of integers");
        }
        const std::vector<std::size_t>& extents = literal.extents;
        if (extents.size() > Shape::max_rank) {
            refuse("a shape of rank " + std::to_string(extents.size()) + ", above the " +
                   std::to_string(Shape::max_rank) + " axes a topos Shape holds");
        }
        std::size_t elements = 1;
        for (const std::size_t extent : extents) {
            if (extent != 0 && elements > Shape::max_elements / extent) {
                refuse("a shape of more than Shape::max_elements (" +
                       std::to_string(Shape::max_elements) + ") elements");
            }
            elements *= extent == 0 ? 1 : extent;
        }
        return extents;
    }

    [[noreturn]] void refuse_element(const std::string& what) const {
        throw NpyError("cannot read " + origin_ + ": its elements are " + what +
                       "; read_npy reads float16, float32 and float64 ('<f2', '<f4', '<f8', "
                       "or '>' for big-endian), int8 to int64 ('|i1' to '<i8'), uint8 to "
                       "uint64 ('|u1' to '<u8') and bool ('|b1')");
    }

    [[noreturn]] void refuse_at(std::size_t at, const std::string& what) const {
        refuse(what + " at byte " + std::to_string(at) + " of the header, " +
               quoted(text_.substr(std::min(at, text_.size()))));
    }

    [[noreturn]] void refuse(const std::string& what) const {
        throw NpyError("cannot read " + origin_ +
                       ": its header is not the dict numpy.save writes: " + what);
    }

    std::string_view text_;
    const std::string& origin_;
    std::size_t at_ = 0;
    NpyHeader header_;
    bool seen_descr_ = false;
    bool seen_order_ = false;
    bool seen_shape_ = false;
};

// The shape as Python writes a tuple: "()", "(3,)", "(2, 3)".
std::string tuple_text(std::span<const std::size_t> shape) {
    std::string text = "(";
    for (std::size_t axis = 0; axis < shape.size(); ++axis) {
        text += (axis == 0 ? "" : ", ") + std::to_string(shape[axis]);
    }
    return text + (shape.size() == 1 ? ",)" : ")");
}

std::string preamble_of(std::string_view descr, std::span<const std::size_t> shape) {
    std::string header = "{'descr': '";
    header.append(descr).append("', 'fortran_order': False, 'shape': ");
    header.append(tuple_text(shape)).append(", }");
    if (!shape.empty()) {
        header.append(growth_digits - std::to_string(shape.front()).size(), ' ');
    }
    const std::size_t fixed = npy_magic.size() + 2 + 2;  // magic, version, length
    const std::size_t padding = alignment - (fixed + header.size() + 1) % alignment;
    header.append(padding, ' ').push_back('\n');
    std::string preamble(npy_magic);
    preamble.push_back('\x01');
    preamble.push_back('\x00');
    preamble.push_back(static_cast<char>(header.size() & 0xff));
    preamble.push_back(static_cast<char>(header.size() >> 8));
    return preamble + header;
}

}  // namespace
}  // namespace npy_header_text

NpyHeader parse_npy_header(std::string_view text, const std::string& origin) {
    return npy_header_text::HeaderParser(text, origin).read();
}

std::string npy_preamble(std::string_view descr, std::span<const std::size_t> shape) {
    return npy_header_text::preamble_of(descr, shape);
}

}  // namespace topos::data
