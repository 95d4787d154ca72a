// Constant: element types by name and class, and conversions between the
// integer and real views of a constant's elements.
#include "onnx/constant.hpp"

#include <cmath>
#include <limits>
#include <utility>

namespace topos::onnx::detail {

std::string type_name(DataType type) {
    switch (type) {
        case DataType::Undefined:
            return "undefined";
        case DataType::Float:
            return "float32";
        case DataType::Uint8:
            return "uint8";
        case DataType::Int8:
            return "int8";
        case DataType::Uint16:
            return "uint16";
        case DataType::Int16:
            return "int16";
        case DataType::Int32:
            return "int32";
        case DataType::Int64:
            return "int64";
        case DataType::String:
            return "string";
        case DataType::Bool:
            return "bool";
        case DataType::Float16:
            return "float16";
        case DataType::Double:
            return "float64";
        case DataType::Uint32:
            return "uint32";
        case DataType::Uint64:
            return "uint64";
        case DataType::Complex64:
            return "complex64";
        case DataType::Complex128:
            return "complex128";
        case DataType::Bfloat16:
            return "bfloat16";
    }
    return "type " + std::to_string(static_cast<std::int32_t>(type));
}

bool is_real(DataType type) {
    return type == DataType::Float || type == DataType::Double || type == DataType::Float16 ||
           type == DataType::Bfloat16;
}

bool is_integral(DataType type) {
    switch (type) {
        case DataType::Uint8:
        case DataType::Int8:
        case DataType::Uint16:
        case DataType::Int16:
        case DataType::Int32:
        case DataType::Int64:
        case DataType::Bool:
        case DataType::Uint32:
        case DataType::Uint64:
            return true;
        default:
            return false;
    }
}

namespace {

// A real truncated toward zero as an integer, saturating at int64's ends
// (ONNX files write "to the end" as 2^63 - 1, which a double rounds up); NaN is 0.
std::int64_t truncated(double real) {
    constexpr double top = 0x1p63;
    if (std::isnan(real)) {
        return 0;
    }
    if (real >= top) {
        return std::numeric_limits<std::int64_t>::max();
    }
    if (real < -top) {
        return std::numeric_limits<std::int64_t>::min();
    }
    return static_cast<std::int64_t>(std::trunc(real));
}

}  // namespace

std::size_t Constant::elements() const {
    std::size_t count = 1;
    for (std::int64_t extent : extents) {
        count *= static_cast<std::size_t>(extent);
    }
    return count;
}

std::vector<std::int64_t> Constant::as_integers() const {
    if (is_integral(type)) {
        return integers;
    }
    std::vector<std::int64_t> values;
    values.reserve(reals.size());
    for (double real : reals) {
        values.push_back(truncated(real));
    }
    return values;
}

std::vector<double> Constant::as_reals() const {
    if (is_real(type)) {
        return reals;
    }
    return {integers.begin(), integers.end()};
}

Constant Constant::of_integers(std::vector<std::int64_t> values) {
    Constant constant;
    constant.type = DataType::Int64;
    constant.extents = {static_cast<std::int64_t>(values.size())};
    constant.integers = std::move(values);
    return constant;
}

Constant Constant::of_reals(DataType type,
                            std::vector<std::int64_t> extents,
                            std::vector<double> values) {
    Constant constant;
    constant.type = type;
    constant.extents = std::move(extents);
    if (is_integral(type)) {
        for (double value : values) {
            constant.integers.push_back(
                type == DataType::Bool ? static_cast<std::int64_t>(value != 0) : truncated(value));
        }
    } else {
        constant.reals = std::move(values);
    }
    return constant;
}

}  // namespace topos::onnx::detail
