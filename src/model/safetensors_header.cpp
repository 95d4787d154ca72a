// The safetensors header read in one pass: a parser of exactly the header's
// schema (an object of entries {"dtype", "shape", "data_offsets"} and an
// optional "__metadata__" of strings) that checks each entry as it ends, keeps
// no more than the entries it returns, refuses a key written twice, a string
// that is not well-formed UTF-8 and nesting deeper than the schema at the byte
// where each occurs, and then requires the entries to tile the payload.
#include "model/safetensors.hpp"
#include <topos/core/error.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <sstream>
#include <tuple>
#include <utility>

namespace topos::detail {
namespace {

// One entry's bytes of the payload, and where the header declares them.
struct Extent {
    std::uint64_t begin;
    std::uint64_t end;
    const std::string* name;
    std::size_t offset;
};

// A name as messages quote it: in double quotes, cut after 200 bytes (at a
// character's first byte) so that a refusal stays readable.
std::string in_quotes(std::string_view name) {
    constexpr std::size_t shown = 200;
    if (name.size() <= shown) {
        return "\"" + std::string(name) + "\"";
    }
    std::size_t cut = shown;
    while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xc0) == 0x80) {
        --cut;
    }
    return "\"" + std::string(name.substr(0, cut)) + "...\" (" + std::to_string(name.size()) +
           " bytes)";
}

std::string hex_byte(unsigned char byte) {
    constexpr std::string_view digits = "0123456789abcdef";
    return std::string("0x") + digits[byte >> 4] + digits[byte & 0xf];
}

std::string byte_range(std::uint64_t begin, std::uint64_t end) {
    return "bytes " + std::to_string(begin) + ".." + std::to_string(end);
}

// The product of the nonzero extents, what a Shape's strides reach, must stay
// within 2^60 - 1 (Shape's own limit), so no byte count can overflow.
bool element_count_fits(std::span<const std::size_t> extents) {
    constexpr std::uint64_t largest_count = (std::uint64_t{1} << 60) - 1;
    std::uint64_t count = 1;
    for (const std::size_t extent : extents) {
        if (extent != 0 && count > largest_count / extent) {
            return false;
        }
        count *= extent == 0 ? 1 : extent;
    }
    return true;
}

// elements * dtype size, or nothing when it overflows.
bool byte_count(const Shape& shape, std::size_t size, std::uint64_t& count) {
    count = size;
    for (const std::size_t extent : shape.extents()) {
        if (extent != 0 && count > std::numeric_limits<std::uint64_t>::max() / extent) {
            return false;
        }
        count *= extent;
    }
    return true;
}

// Reads the header's bytes once, front to back. Every refusal is a
// CheckpointError naming the origin and the byte of the header it is about.
class HeaderReader {
public:
    HeaderReader(std::span<const std::byte> json, std::uint64_t payload_size, std::string origin)
        : begin_(reinterpret_cast<const char*>(json.data())),
          end_(begin_ + json.size()),
          at_(begin_),
          payload_size_(payload_size),
          origin_(std::move(origin)) {}

    SafetensorsHeader read() {
        SafetensorsHeader result;
        result.payload_size = payload_size_;
        skip_whitespace();
        if (at_ == end_) {
            refuse_syntax(begin_ == end_ ? "it is empty" : "it holds nothing but whitespace");
        }
        if (*at_ != '{') {
            refuse_syntax("it begins with " + found() + " where a JSON object begins with '{'");
        }
        ++at_;
        std::vector<Extent> extents;
        bool metadata_seen = false;
        if (!closes('}')) {
            do {
                const std::size_t key_at = key_offset();
                const std::string_view key = read_string(true);
                expect_colon();
                if (key == "__metadata__") {
                    if (metadata_seen) {
                        refuse_at(key_at, duplicate_at_top("__metadata__"));
                    }
                    metadata_seen = true;
                    read_metadata(result.metadata);
                    continue;
                }
                const auto [entry, inserted] = result.tensors.try_emplace(std::string(key));
                if (!inserted) {
                    refuse_at(key_at, duplicate_at_top(entry->first));
                }
                extents.push_back(read_entry(entry->first, entry->second));
            } while (next_member('}'));
        }
        skip_whitespace();
        if (at_ != end_) {
            refuse_syntax("the object ends, and " + found() + " follows it");
        }
        check_tiling(std::move(extents));
        return result;
    }

private:
    std::size_t offset() const { return static_cast<std::size_t>(at_ - begin_); }

    [[noreturn]] void refuse_at(std::size_t offset, const std::string& problem) const {
        throw CheckpointError(origin_ + " is not a valid safetensors file: " + problem +
                              ", at byte " + std::to_string(offset) + " of the header");
    }

    // The JSON text itself is broken at the current byte.
    [[noreturn]] void refuse_syntax(const std::string& problem) const {
        refuse_at(offset(), "its header is not a JSON object: " + problem);
    }

    // What stands at the current byte, for a message.
    std::string found() const {
        if (at_ == end_) {
            return "the end of the header";
        }
        const auto byte = static_cast<unsigned char>(*at_);
        if (byte >= 0x20 && byte < 0x7f) {
            return std::string("'") + *at_ + "'";
        }
        return "the byte " + hex_byte(byte);
    }

    static std::string duplicate_at_top(std::string_view key) {
        return in_quotes(key) + " appears twice in the header (a reader would keep one of them)";
    }

    static std::string duplicate_inside(std::string_view key, std::string_view entry) {
        return in_quotes(key) + " appears twice inside the entry of " + in_quotes(entry);
    }

    void skip_whitespace() {
        while (at_ != end_ && (*at_ == ' ' || *at_ == '\n' || *at_ == '\r' || *at_ == '\t')) {
            ++at_;
        }
    }

    // After an opening bracket: true (and past it) when `close` follows at once.
    bool closes(char close) {
        skip_whitespace();
        if (at_ != end_ && *at_ == close) {
            ++at_;
            return true;
        }
        return false;
    }

    // After a member or element: true for ',' (another follows), false for
    // `close` (the object or array ends); anything else is refused.
    bool next_member(char close) {
        skip_whitespace();
        if (at_ != end_ && *at_ == ',') {
            ++at_;
            return true;
        }
        if (at_ != end_ && *at_ == close) {
            ++at_;
            return false;
        }
        refuse_syntax(std::string("expected ',' or '") + close + "', found " + found());
    }

    // Before a key: where it begins, refusing anything but a string there.
    std::size_t key_offset() {
        skip_whitespace();
        if (at_ == end_ || *at_ != '"') {
            refuse_syntax("expected a key (a string in double quotes), found " + found());
        }
        return offset();
    }

    void expect_colon() {
        skip_whitespace();
        if (at_ == end_ || *at_ != ':') {
            refuse_syntax("expected ':' after a key, found " + found());
        }
        ++at_;
        expect_value();
    }

    // Before a value: past the whitespace, refusing the header's end there.
    void expect_value() {
        skip_whitespace();
        if (at_ == end_) {
            refuse_syntax("the header ends where a value should begin");
        }
    }

    unsigned hex_digit() {
        if (at_ == end_) {
            refuse_syntax("a \\u escape ends with the header; it needs four hex digits");
        }
        const char c = *at_;
        if (c >= '0' && c <= '9') {
            return static_cast<unsigned>(c - '0');
        }
        if (c >= 'a' && c <= 'f') {
            return static_cast<unsigned>(c - 'a' + 10);
        }
        if (c >= 'A' && c <= 'F') {
            return static_cast<unsigned>(c - 'A' + 10);
        }
        refuse_syntax("a \\u escape needs four hex digits, found " + found());
    }

    // At the 'u' of \uXXXX: the four digits' value, the current byte after them.
    unsigned read_hex4() {
        ++at_;
        unsigned value = 0;
        for (int i = 0; i < 4; ++i) {
            value = value * 16 + hex_digit();
            ++at_;
        }
        return value;
    }

    static void append_utf8(std::string& out, std::uint32_t code) {
        if (code < 0x80) {
            out += static_cast<char>(code);
        } else if (code < 0x800) {
            out += static_cast<char>(0xc0 | (code >> 6));
            out += static_cast<char>(0x80 | (code & 0x3f));
        } else if (code < 0x10000) {
            out += static_cast<char>(0xe0 | (code >> 12));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
            out += static_cast<char>(0x80 | (code & 0x3f));
        } else {
            out += static_cast<char>(0xf0 | (code >> 18));
            out += static_cast<char>(0x80 | ((code >> 12) & 0x3f));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
            out += static_cast<char>(0x80 | (code & 0x3f));
        }
    }

    // At a backslash: decodes one escape (a surrogate pair as one character)
    // into `out` when `keep`.
    void read_escape(std::string& out, bool keep) {
        const std::size_t escape_at = offset();
        ++at_;
        if (at_ == end_) {
            refuse_syntax("a string ends with the header, inside an escape");
        }
        char decoded = 0;
        switch (*at_) {
            case '"':
            case '\\':
            case '/':
                decoded = *at_;
                break;
            case 'b':
                decoded = '\b';
                break;
            case 'f':
                decoded = '\f';
                break;
            case 'n':
                decoded = '\n';
                break;
            case 'r':
                decoded = '\r';
                break;
            case 't':
                decoded = '\t';
                break;
            case 'u': {
                std::uint32_t code = read_hex4();
                if (code >= 0xdc00 && code <= 0xdfff) {
                    refuse_at(escape_at,
                              "its header is not a JSON object: the escape of a low surrogate "
                              "comes without the high surrogate before it");
                }
                if (code >= 0xd800 && code <= 0xdbff) {
                    if (end_ - at_ < 2 || at_[0] != '\\' || at_[1] != 'u') {
                        refuse_at(escape_at,
                                  "its header is not a JSON object: the escape of a high "
                                  "surrogate is not followed by the escape of a low surrogate");
                    }
                    ++at_;
                    const std::uint32_t low = read_hex4();
                    if (low < 0xdc00 || low > 0xdfff) {
                        refuse_at(escape_at,
                                  "its header is not a JSON object: the escape of a high "
                                  "surrogate is not followed by the escape of a low surrogate");
                    }
                    code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
                }
                if (keep) {
                    append_utf8(out, code);
                }
                return;
            }
            default:
                refuse_syntax("a backslash followed by " + found() + " is no JSON escape");
        }
        ++at_;
        if (keep) {
            out += decoded;
        }
    }

    // At an opening double quote: the string's characters, escapes decoded.
    // The view points into the header where the string holds no escape, else
    // into a buffer that the next string reuses. When `keep` is false the
    // string is only checked, and the view is empty.
    std::string_view read_string(bool keep) {
        const std::size_t string_at = offset();
        ++at_;
        const char* run = at_;
        bool decoded = false;
        scratch_.clear();
        while (true) {
            while (at_ != end_) {
                const auto byte = static_cast<unsigned char>(*at_);
                if (byte == '"' || byte == '\\' || byte < 0x20 || byte >= 0x80) {
                    break;
                }
                ++at_;
            }
            if (at_ == end_) {
                refuse_at(string_at,
                          "its header is not a JSON object: the string that begins here is not "
                          "closed before the header ends");
            }
            const auto byte = static_cast<unsigned char>(*at_);
            if (byte == '"') {
                if (!decoded) {
                    const std::string_view text(run, static_cast<std::size_t>(at_ - run));
                    ++at_;
                    return keep ? text : std::string_view();
                }
                if (keep) {
                    scratch_.append(run, at_);
                }
                ++at_;
                return scratch_;
            }
            if (byte == '\\') {
                if (keep) {
                    scratch_.append(run, at_);
                }
                decoded = true;
                read_escape(scratch_, keep);
                run = at_;
                continue;
            }
            if (byte < 0x20) {
                refuse_syntax("the control character " + hex_byte(byte) +
                              " stands unescaped inside a string");
            }
            const std::size_t length =
                utf8_sequence(std::string_view(at_, static_cast<std::size_t>(end_ - at_))).length;
            if (length == 0) {
                refuse_at(offset(),
                          "its header is not valid UTF-8: the byte " + hex_byte(byte) +
                              " inside a string begins no well-formed character");
            }
            at_ += length;
        }
    }

    // The current byte begins a JSON number: past it, checked as JSON writes
    // numbers.
    void skip_number() {
        if (at_ != end_ && *at_ == '-') {
            ++at_;
        }
        skip_integer_digits();
        skip_number_tail();
    }

    static bool is_digit(char c) { return c >= '0' && c <= '9'; }

    // The integer part of a number: 0, or digits not beginning with 0.
    void skip_integer_digits() {
        if (at_ == end_ || !is_digit(*at_)) {
            refuse_syntax("a number needs a digit here, found " + found());
        }
        if (*at_ == '0') {
            ++at_;
            if (at_ != end_ && is_digit(*at_)) {
                refuse_syntax("a number may not begin with 0 followed by more digits");
            }
            return;
        }
        while (at_ != end_ && is_digit(*at_)) {
            ++at_;
        }
    }

    void skip_digits_after(const char* what) {
        if (at_ == end_ || !is_digit(*at_)) {
            refuse_syntax(std::string("a digit must follow ") + what + ", found " + found());
        }
        while (at_ != end_ && is_digit(*at_)) {
            ++at_;
        }
    }

    // The current byte begins `word` (true, false or null): past it.
    void skip_literal(std::string_view word) {
        if (static_cast<std::size_t>(end_ - at_) < word.size() ||
            std::string_view(at_, word.size()) != word) {
            refuse_syntax("expected a JSON value, found " + found());
        }
        at_ += word.size();
    }

    // The value of a key the schema does not know, at `depth` (the number of
    // arrays and objects it stands in): checked and passed over, nothing kept.
    // Its arrays and objects may reach safetensors_header_depth, no deeper.
    void skip_value(std::size_t depth, std::string_view entry) {
        if (at_ == end_) {
            refuse_syntax("expected a JSON value, found the end of the header");
        }
        const char c = *at_;
        if (c == '"') {
            (void)read_string(false);
        } else if (c == '-' || is_digit(c)) {
            skip_number();
        } else if (c == 't') {
            skip_literal("true");
        } else if (c == 'f') {
            skip_literal("false");
        } else if (c == 'n') {
            skip_literal("null");
        } else if (c == '[' || c == '{') {
            if (depth + 1 > safetensors_header_depth) {
                refuse_at(offset(),
                          "its header nests deeper than a safetensors header may: an " +
                              std::string(c == '[' ? "array" : "object") + " at depth " +
                              std::to_string(depth + 1) + " inside the entry of " +
                              in_quotes(entry) + " (a header needs " +
                              std::to_string(safetensors_header_depth) +
                              " levels: the header, an entry, and an array in it)");
            }
            ++at_;
            const char close = c == '[' ? ']' : '}';
            if (closes(close)) {
                return;
            }
            do {
                if (close == '}') {
                    (void)key_offset();
                    (void)read_string(false);
                    expect_colon();
                } else {
                    expect_value();
                }
                skip_value(depth + 1, entry);
            } while (next_member(close));
        } else {
            refuse_syntax("expected a JSON value, found " + found());
        }
    }

    // The current byte should begin an unsigned integer, `role` + the quoted
    // `name` in messages: its value, refusing a sign, a fraction, an exponent
    // and more than 64 bits.
    std::uint64_t read_unsigned(const char* role, const std::string& name) {
        const std::size_t number_at = offset();
        const auto what = [&] { return role + in_quotes(name); };
        if (at_ == end_ || !is_digit(*at_)) {
            if (at_ != end_ && *at_ == '-') {
                skip_number();
                refuse_at(number_at,
                          what() + " is not a non-negative integer: it has a minus sign");
            }
            refuse_at(number_at,
                      what() + " is not a non-negative integer: it begins with " + found());
        }
        const char* digits = at_;
        skip_integer_digits();
        const std::string_view text(digits, static_cast<std::size_t>(at_ - digits));
        if (at_ != end_ && (*at_ == '.' || *at_ == 'e' || *at_ == 'E')) {
            skip_number_tail();
            refuse_at(number_at,
                      what() + " is not a non-negative integer: it has a fraction or an exponent");
        }
        std::uint64_t value = 0;
        constexpr std::uint64_t largest = std::numeric_limits<std::uint64_t>::max();
        for (const char digit : text) {
            const auto d = static_cast<std::uint64_t>(digit - '0');
            if (value > (largest - d) / 10) {
                refuse_at(number_at,
                          what() + " is not a non-negative integer of 64 bits: " +
                              (text.size() <= 40
                                   ? std::string(text)
                                   : "a number of " + std::to_string(text.size()) + " digits") +
                              " exceeds " + std::to_string(largest));
            }
            value = value * 10 + d;
        }
        return value;
    }

    // After an integer part: the fraction and exponent, checked.
    void skip_number_tail() {
        if (at_ != end_ && *at_ == '.') {
            ++at_;
            skip_digits_after("'.'");
        }
        if (at_ != end_ && (*at_ == 'e' || *at_ == 'E')) {
            ++at_;
            if (at_ != end_ && (*at_ == '+' || *at_ == '-')) {
                ++at_;
            }
            skip_digits_after("an exponent's 'e'");
        }
    }

    // The value of "__metadata__": an object of strings.
    void read_metadata(std::map<std::string, std::string>& metadata) {
        if (at_ == end_ || *at_ != '{') {
            refuse_at(offset(), "__metadata__ is not an object");
        }
        ++at_;
        if (closes('}')) {
            return;
        }
        do {
            const std::size_t key_at = key_offset();
            std::string key(read_string(true));
            expect_colon();
            if (at_ == end_ || *at_ != '"') {
                refuse_at(offset(), "__metadata__." + key + " is not a string");
            }
            const std::string_view value = read_string(true);
            const auto [member, inserted] = metadata.try_emplace(std::move(key), value);
            if (!inserted) {
                refuse_at(key_at, duplicate_inside(member->first, "__metadata__"));
            }
        } while (next_member('}'));
    }

    // The value of "shape": at most Shape::max_rank extents below 2^32.
    Shape read_shape(const std::string& name) {
        const auto needs = [&] {
            return "tensor " + in_quotes(name) + " needs a shape: an array of at most " +
                   std::to_string(Shape::max_rank) + " extents";
        };
        const std::size_t shape_at = offset();
        if (at_ == end_ || *at_ != '[') {
            refuse_at(shape_at, needs());
        }
        ++at_;
        std::array<std::size_t, Shape::max_rank> extents{};
        std::size_t rank = 0;
        if (!closes(']')) {
            do {
                expect_value();
                if (rank == Shape::max_rank) {
                    refuse_at(offset(), needs());
                }
                const std::size_t extent_at = offset();
                const std::uint64_t extent = read_unsigned("an extent of ", name);
                if (extent > std::numeric_limits<std::uint32_t>::max()) {
                    refuse_at(extent_at,
                              "an extent of " + in_quotes(name) + " is implausibly large");
                }
                extents[rank++] = static_cast<std::size_t>(extent);
            } while (next_member(']'));
        }
        const std::span<const std::size_t> given(extents.data(), rank);
        if (!element_count_fits(given)) {
            refuse_at(shape_at,
                      "tensor " + in_quotes(name) + " has more elements than fit in memory");
        }
        try {
            return Shape(given);
        } catch (const ShapeError& error) {
            refuse_at(shape_at,
                      "tensor " + in_quotes(name) + " has no valid shape: " + error.what());
        }
    }

    // The value of "data_offsets": [begin, end], begin <= end.
    std::pair<std::uint64_t, std::uint64_t> read_offsets(const std::string& name) {
        const auto needs = [&] {
            return "tensor " + in_quotes(name) + " needs data_offsets: [begin, end]";
        };
        if (at_ == end_ || *at_ != '[') {
            refuse_at(offset(), needs());
        }
        const std::size_t array_at = offset();
        ++at_;
        std::array<std::uint64_t, 2> bounds{};
        std::size_t count = 0;
        if (!closes(']')) {
            do {
                expect_value();
                if (count == 2) {
                    refuse_at(offset(), needs());
                }
                bounds[count] = read_unsigned(count == 0 ? "the begin of " : "the end of ", name);
                ++count;
            } while (next_member(']'));
        }
        if (count != 2) {
            refuse_at(array_at, needs());
        }
        if (bounds[1] < bounds[0]) {
            refuse_at(array_at, "tensor " + in_quotes(name) + " ends before it begins");
        }
        return {bounds[0], bounds[1]};
    }

    // The value of a tensor's key: its entry, checked against the payload.
    // Unknown keys inside an entry are passed over, as the reference
    // implementation does: its TensorInfo is a serde struct without
    // deny_unknown_fields, so serde_json ignores them (and never checks them
    // for duplicates, so neither does this reader; they are not kept). Their
    // values must still be JSON and nest no deeper than safetensors_header_depth.
    Extent read_entry(const std::string& name, TensorEntry& entry) {
        if (at_ == end_ || *at_ != '{') {
            refuse_at(offset(), "the entry of tensor " + in_quotes(name) + " is not an object");
        }
        ++at_;
        bool has_dtype = false;
        bool has_shape = false;
        bool has_offsets = false;
        std::size_t offsets_at = 0;
        if (!closes('}')) {
            do {
                const std::size_t key_at = key_offset();
                const std::string_view key = read_string(true);
                const bool is_dtype = key == "dtype";
                const bool is_shape = key == "shape";
                const bool is_offsets = key == "data_offsets";
                if ((is_dtype && has_dtype) || (is_shape && has_shape) ||
                    (is_offsets && has_offsets)) {
                    refuse_at(key_at, duplicate_inside(key, name));
                }
                expect_colon();
                if (is_dtype) {
                    has_dtype = true;
                    const std::size_t dtype_at = offset();
                    const std::string_view dtype =
                        at_ != end_ && *at_ == '"' ? read_string(true) : std::string_view();
                    if (safetensors_dtype_size(dtype) == 0) {
                        refuse_at(dtype_at,
                                  "tensor " + in_quotes(name) +
                                      " needs a dtype safetensors defines (F32, F64, ...)");
                    }
                    entry.dtype = dtype;
                } else if (is_shape) {
                    has_shape = true;
                    entry.shape = read_shape(name);
                } else if (is_offsets) {
                    has_offsets = true;
                    offsets_at = offset();
                    std::tie(entry.begin, entry.end) = read_offsets(name);
                } else {
                    skip_value(2, name);
                }
            } while (next_member('}'));
        }
        const std::size_t end_at = offset() - 1;
        if (!has_dtype) {
            refuse_at(end_at,
                      "tensor " + in_quotes(name) +
                          " needs a dtype safetensors defines (F32, F64, ...); its entry has none");
        }
        if (!has_shape) {
            refuse_at(end_at,
                      "tensor " + in_quotes(name) + " needs a shape: an array of at most " +
                          std::to_string(Shape::max_rank) + " extents; its entry has none");
        }
        if (!has_offsets) {
            refuse_at(end_at,
                      "tensor " + in_quotes(name) +
                          " needs data_offsets: [begin, end]; its entry has none");
        }
        std::uint64_t size = 0;
        if (!byte_count(entry.shape, safetensors_dtype_size(entry.dtype), size)) {
            refuse_at(offsets_at,
                      "tensor " + in_quotes(name) + " has more elements than fit in memory");
        }
        if (entry.end - entry.begin != size || entry.end > payload_size_) {
            std::ostringstream problem;
            problem << "tensor " << in_quotes(name) << " of " << entry.dtype << ' ' << entry.shape
                    << " needs " << size << " bytes; its data_offsets [" << entry.begin << ", "
                    << entry.end << "] do not fit a payload of " << payload_size_;
            refuse_at(offsets_at, problem.str());
        }
        return {entry.begin, entry.end, &name, offsets_at};
    }

    // The extents must tile the payload exactly: no overlap, no hole, nothing after.
    void check_tiling(std::vector<Extent> extents) const {
        std::sort(extents.begin(), extents.end(), [](const Extent& a, const Extent& b) {
            return std::pair(a.begin, a.end) < std::pair(b.begin, b.end);
        });
        std::uint64_t covered = 0;
        const Extent* previous = nullptr;
        for (const Extent& extent : extents) {
            if (extent.begin < covered) {
                refuse_at(extent.offset,
                          "tensor " + in_quotes(*extent.name) + " (" +
                              byte_range(extent.begin, extent.end) +
                              " of the payload) overlaps another, " + in_quotes(*previous->name) +
                              " (" + byte_range(previous->begin, previous->end) + ")");
            }
            if (extent.begin > covered) {
                refuse_at(extent.offset,
                          byte_range(covered, extent.begin) +
                              " of the payload belong to no tensor (a gap before " +
                              in_quotes(*extent.name) + ")");
            }
            covered = extent.end;
            previous = &extent;
        }
        if (covered != payload_size_) {
            throw CheckpointError(origin_ + " is not a valid safetensors file: the tensors cover " +
                                  std::to_string(covered) + " bytes of a payload of " +
                                  std::to_string(payload_size_) + ": " +
                                  byte_range(covered, payload_size_) + " belong to no tensor");
        }
    }

    const char* begin_;
    const char* end_;
    const char* at_;
    std::uint64_t payload_size_;
    std::string origin_;
    std::string scratch_;  // the characters of the last string that held an escape
};

}  // namespace

SafetensorsHeader parse_safetensors_header(std::span<const std::byte> json,
                                           std::uint64_t payload_size,
                                           const std::string& origin) {
    return HeaderReader(json, payload_size, origin).read();
}

}  // namespace topos::detail
