// data::read_csv: a file of delimited numbers into a [rows, columns] tensor.
// Only a regular file is opened, and at most CsvOptions::max_bytes of it read;
// its bytes go in chunks to a TableReader, which splits them into lines and
// reads each field as a double rounded to T. read_csv_text (csv_text.hpp)
// feeds text held in memory to the same reader. Every refusal is a CsvError
// naming the file, and the line and column where there is one.
#include "core/float_text.hpp"
#include "core/regular_file.hpp"
#include "data/csv_text.hpp"
#include <topos/core/error.hpp>
#include <topos/data/csv.hpp>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <unistd.h>
#include <vector>

namespace topos::data {
namespace {

// The most bytes of a field an error message quotes.
constexpr std::size_t longest_quote = 40;

// The bytes read from a file at a time.
constexpr std::size_t chunk_bytes = std::size_t{64} << 10;

// The smallest double that rounds to float infinity: FLT_MAX and half its ulp.
constexpr double float_overflow = 0x1.ffffffp127;

constexpr std::string_view byte_order_mark = "\xEF\xBB\xBF";

std::string reason(int error) {
    return std::error_code(error, std::generic_category()).message();
}

std::string_view trimmed(std::string_view field) {
    while (!field.empty() && (field.front() == ' ' || field.front() == '\t')) {
        field.remove_prefix(1);
    }
    while (!field.empty() &&
           (field.back() == ' ' || field.back() == '\t' || field.back() == '\r')) {
        field.remove_suffix(1);
    }
    return field;
}

// A byte as a message shows it: itself when printable, else \xNN.
std::string shown(char byte) {
    const auto code = static_cast<unsigned char>(byte);
    if (code >= 0x20 && code != 0x7f) {
        return std::string(1, byte);
    }
    constexpr std::string_view hex = "0123456789ABCDEF";
    return std::string("\\x") + hex[code >> 4] + hex[code & 0xf];
}

// A field in quotes, cut to its first 40 bytes (never inside a UTF-8
// character) with "..." and its length in bytes when longer.
std::string quoted(std::string_view field) {
    std::size_t cut = field.size();
    if (cut > longest_quote) {
        cut = longest_quote;
        while (cut > 0 && (static_cast<unsigned char>(field[cut]) & 0xC0) == 0x80) {
            --cut;
        }
    }
    std::string text = "\"";
    for (const char byte : field.substr(0, cut)) {
        text += shown(byte);
    }
    if (cut == field.size()) {
        return text + '"';
    }
    return text + "...\" (" + std::to_string(field.size()) + " bytes)";
}

// Whether a number std::from_chars found out of range is too large rather
// than too small: whether the decimal exponent of its first nonzero digit is
// positive. `number` is a valid decimal, without '+', that is not zero.
bool too_large(std::string_view number) {
    std::size_t i = !number.empty() && number.front() == '-' ? 1 : 0;
    long long order = -1;
    bool seen = false;
    bool point = false;
    for (; i < number.size() && number[i] != 'e' && number[i] != 'E'; ++i) {
        if (number[i] == '.') {
            point = true;
        } else if (!point && (seen || number[i] != '0')) {
            seen = true;
            ++order;
        } else if (point && !seen) {
            seen = number[i] != '0';
            order -= seen ? 0 : 1;
        }
    }
    const bool negative = i + 1 < number.size() && number[i + 1] == '-';
    long long exponent = 0;
    for (std::size_t j = i + 1; j < number.size(); ++j) {
        if (number[j] >= '0' && number[j] <= '9' && exponent < 1'000'000'000'000) {
            exponent = exponent * 10 + (number[j] - '0');
        }
    }
    return order + (negative ? -exponent : exponent) > 0;
}

template <ComputeElement T>
constexpr const char* name_of() {
    return std::is_same_v<T, float> ? "float" : "double";
}

template <ComputeElement T>
std::string largest() {
    char digits[32];
    const auto result =
        topos::detail::to_chars(digits, digits + sizeof digits, std::numeric_limits<T>::max());
    return std::string(digits, result.ptr);
}

// What makes a delimiter unusable, or nothing.
std::string delimiter_fault(char delimiter) {
    if (delimiter == '\n' || delimiter == '\r') {
        return "ends lines";
    }
    if ((delimiter >= '0' && delimiter <= '9') || delimiter == '.' || delimiter == '+' ||
        delimiter == '-' || delimiter == 'e' || delimiter == 'E') {
        return "can be part of a number";
    }
    return {};
}

// Splits bytes, fed in chunks split anywhere, into lines, and their fields
// into a table of T.
template <ComputeElement T>
class TableReader {
public:
    TableReader(const CsvOptions& options, std::string origin)
        : options_(options), origin_(std::move(origin)) {
        const std::string fault = delimiter_fault(options_.delimiter);
        if (!fault.empty()) {
            throw CsvError("cannot read " + origin_ + ": the delimiter '" +
                           shown(options_.delimiter) + "' " + fault +
                           "; choose another CsvOptions::delimiter");
        }
    }

    // Throws CsvError once more than options.max_bytes have come (bytes_ never
    // passes it).
    void feed(std::string_view bytes) {
        if (bytes.size() > options_.max_bytes - bytes_) {
            throw CsvError(origin_ + ":" + std::to_string(line()) + ": more than " +
                           std::to_string(options_.max_bytes) +
                           " bytes, the limit CsvOptions::max_bytes sets; raise it to read a "
                           "larger table");
        }
        bytes_ += bytes.size();
        while (!bytes.empty()) {
            const std::size_t end = bytes.find('\n');
            if (end == std::string_view::npos) {
                partial_.append(bytes);
                return;
            }
            if (partial_.empty()) {
                take(bytes.substr(0, end));
            } else {
                partial_.append(bytes.substr(0, end));
                take(partial_);
                partial_.clear();
            }
            bytes.remove_prefix(end + 1);
        }
    }

    // The table, once every byte has come.
    Tensor<T> finish() {
        if (!partial_.empty()) {
            take(partial_);
        }
        if (rows_ == 0) {
            throw CsvError(origin_ + ": " + without_rows() +
                           ": a CSV table needs at least one row of numbers");
        }
        return Tensor<T>(Shape{rows_, columns_}, values_);
    }

    // The number of the line being read.
    std::size_t line() const { return lines_ + 1; }

private:
    std::string without_rows() const {
        if (lines_ == 0) {
            return "the file is empty";
        }
        if (options_.header) {
            return lines_ == 1 ? "the file holds only its header line"
                               : "the file holds only its header line and blank lines";
        }
        return "the file holds only blank lines";
    }

    void take(std::string_view line) {
        ++lines_;
        if (lines_ == 1 && line.starts_with(byte_order_mark)) {
            line.remove_prefix(byte_order_mark.size());
        }
        if ((options_.header && lines_ == 1) || trimmed(line).empty()) {
            return;
        }
        std::size_t count = 1;
        for (const char byte : line) {
            count += byte == options_.delimiter ? 1 : 0;
        }
        if (rows_ > 0 && count != columns_) {
            refuse(std::min(count, columns_) + 1,
                   "a row of " + std::to_string(count) + " values, where the first row (line " +
                       std::to_string(first_row_line_) + ") has " + std::to_string(columns_));
        }
        std::size_t column = 1;
        for (std::size_t start = 0;; ++column) {
            const std::size_t stop = line.find(options_.delimiter, start);
            values_.push_back(number_of(line.substr(start, stop - start), column));
            if (stop == std::string_view::npos) {
                break;
            }
            start = stop + 1;
        }
        if (rows_ == 0) {
            columns_ = count;
            first_row_line_ = lines_;
        }
        ++rows_;
    }

    // One field as a number, read in double (exactly as written, then rounded to T).
    T number_of(std::string_view field, std::size_t column) const {
        const std::string_view text = trimmed(field);
        const std::string_view number = text.starts_with('+') ? text.substr(1) : text;
        double value = 0;
        const auto [end, error] =
            topos::detail::from_chars(number.data(), number.data() + number.size(), value);
        const bool signed_twice = number != text && number.starts_with('-');
        if (number.empty() || signed_twice || end != number.data() + number.size() ||
            (error != std::errc() && error != std::errc::result_out_of_range)) {
            refuse_field(text, column);
        }
        if (error == std::errc::result_out_of_range) {
            if (too_large(number)) {
                refuse_range(text, column);
            }
            value = number.front() == '-' ? -0.0 : 0.0;
        }
        if constexpr (std::is_same_v<T, float>) {
            if (std::isfinite(value) && std::abs(value) >= float_overflow) {
                refuse_range(text, column);
            }
        }
        return static_cast<T>(value);
    }

    [[noreturn]] void refuse_field(std::string_view text, std::size_t column) const {
        std::string what = text.empty() ? "an empty field, where a number belongs"
                                        : quoted(text) + " is not a number";
        if (rows_ == 0 && lines_ == 1 && !options_.header) {
            what += "; if line 1 holds column names, pass CsvOptions{.header = true} to skip it";
        }
        refuse(column, what);
    }

    [[noreturn]] void refuse_range(std::string_view text, std::size_t column) const {
        refuse(column,
               quoted(text) + " is out of range for " + name_of<T>() + " (largest magnitude " +
                   largest<T>() + ")");
    }

    [[noreturn]] void refuse(std::size_t column, const std::string& what) const {
        throw CsvError(origin_ + ":" + std::to_string(lines_) + ": column " +
                       std::to_string(column) + ": " + what);
    }

    CsvOptions options_;
    std::string origin_;
    std::string partial_;  // the bytes of a line whose end has not come yet
    std::uint64_t bytes_ = 0;
    std::size_t lines_ = 0;  // the lines taken, blank ones and the header included
    std::size_t rows_ = 0;
    std::size_t columns_ = 0;
    std::size_t first_row_line_ = 0;
    std::vector<T> values_;
};

// A descriptor for `path`, refusing anything but a regular file of at most
// `max_bytes`.
int open_table_file(const std::filesystem::path& path,
                    const std::string& origin,
                    std::uint64_t max_bytes) {
    const topos::detail::RegularFile file = topos::detail::open_regular_file(path);
    if (file.descriptor < 0 && file.error != 0) {
        throw CsvError("cannot read " + origin + ": " + reason(file.error));
    }
    if (file.descriptor < 0) {
        throw CsvError("cannot read " + origin + ": it is " + topos::detail::file_kind(file.mode) +
                       ", not a regular file; read_csv reads a CSV file's bytes");
    }
    if (file.bytes > max_bytes) {
        ::close(file.descriptor);
        throw CsvError("cannot read " + origin + ": it is " + std::to_string(file.bytes) +
                       " bytes, more than the " + std::to_string(max_bytes) +
                       " that CsvOptions::max_bytes allows; raise it to read a larger table");
    }
    return file.descriptor;
}

}  // namespace

template <ComputeElement T>
Tensor<T> read_csv_text(std::string_view text, CsvOptions options, const std::string& origin) {
    TableReader<T> reader(options, origin);
    reader.feed(text);
    return reader.finish();
}

template <ComputeElement T>
Tensor<T> read_csv(const std::filesystem::path& path, CsvOptions options) {
    const std::string origin = path.string();
    TableReader<T> reader(options, origin);
    const topos::detail::OwnedDescriptor file(open_table_file(path, origin, options.max_bytes));
    std::vector<char> chunk(chunk_bytes);
    std::uint64_t done = 0;
    for (;;) {
        const ssize_t got = ::read(file.get(), chunk.data(), chunk.size());
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got < 0) {
            throw CsvError(origin + ":" + std::to_string(reader.line()) +
                           ": could not read the file after its first " + std::to_string(done) +
                           " bytes: " + reason(errno));
        }
        if (got == 0) {
            return reader.finish();
        }
        reader.feed(std::string_view(chunk.data(), static_cast<std::size_t>(got)));
        done += static_cast<std::uint64_t>(got);
    }
}

template Tensor<float> read_csv_text(std::string_view, CsvOptions, const std::string&);
template Tensor<double> read_csv_text(std::string_view, CsvOptions, const std::string&);
template Tensor<float> read_csv(const std::filesystem::path&, CsvOptions);
template Tensor<double> read_csv(const std::filesystem::path&, CsvOptions);

}  // namespace topos::data
