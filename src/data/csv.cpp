// data::read_csv: a file of delimited numbers into a [rows, columns] tensor.
// Each field is read as a double and rounded to T; blank lines and an optional
// header are skipped, and a bad field or ragged row throws naming the file,
// line and column.
#include "core/float_text.hpp"
#include <topos/core/error.hpp>
#include <topos/data/csv.hpp>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace topos::data {
namespace {

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

// One field as a number, read in double (exactly as written, then rounded to T).
double number_of(std::string_view field, const std::string& where) {
    const std::string_view text = trimmed(field);
    double value = 0;
    const auto [end, error] = detail::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
        throw Error(where + ": \"" + std::string(field) + "\" is not a number");
    }
    return value;
}

}  // namespace

template <Element T>
Tensor<T> read_csv(const std::filesystem::path& path, CsvOptions options) {
    std::ifstream file(path);
    if (!file) {
        throw Error("cannot read " + path.string() + ": " + std::strerror(errno));
    }
    std::vector<T> values;
    std::size_t columns = 0;
    std::size_t rows = 0;
    std::string line;
    for (std::size_t number = 1; std::getline(file, line); ++number) {
        if ((options.header && number == 1) || trimmed(line).empty()) {
            continue;
        }
        std::size_t fields = 0;
        for (std::size_t start = 0;; ++fields) {
            const std::size_t stop = line.find(options.delimiter, start);
            const std::string where = path.string() + ":" + std::to_string(number) + ": column " +
                                      std::to_string(fields + 1);
            values.push_back(static_cast<T>(
                number_of(std::string_view(line).substr(
                              start, stop == std::string::npos ? std::string::npos : stop - start),
                          where)));
            if (stop == std::string::npos) {
                ++fields;
                break;
            }
            start = stop + 1;
        }
        if (rows == 0) {
            columns = fields;
        } else if (fields != columns) {
            throw Error(path.string() + ":" + std::to_string(number) + ": a row of " +
                        std::to_string(fields) + " values, where the first row has " +
                        std::to_string(columns));
        }
        ++rows;
    }
    return Tensor<T>(Shape{rows, columns}, values);
}

template Tensor<float> read_csv(const std::filesystem::path&, CsvOptions);
template Tensor<double> read_csv(const std::filesystem::path&, CsvOptions);

}  // namespace topos::data
