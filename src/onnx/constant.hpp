// Constant: a tensor known while the model is recorded (an initializer, a
// Constant node, the shape of a value, and whatever is computed from these
// alone). Real element types keep doubles, integer and boolean ones exact
// 64-bit integers; the extents are ONNX's, signed, and any rank.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace topos::onnx::detail {

// TensorProto.DataType, by ONNX's numbers.
enum class DataType : std::int32_t {
    Undefined = 0,
    Float = 1,
    Uint8 = 2,
    Int8 = 3,
    Uint16 = 4,
    Int16 = 5,
    Int32 = 6,
    Int64 = 7,
    String = 8,
    Bool = 9,
    Float16 = 10,
    Double = 11,
    Uint32 = 12,
    Uint64 = 13,
    Complex64 = 14,
    Complex128 = 15,
    Bfloat16 = 16,
};

// "float32", "int64", ...; "type 17" for a number ONNX added later.
std::string type_name(DataType type);

// float32, float64, float16 and bfloat16.
bool is_real(DataType type);

// The integer types and bool.
bool is_integral(DataType type);

struct Constant {
    DataType type = DataType::Undefined;
    std::vector<std::int64_t> extents;
    std::vector<double> reals;           // when is_real(type)
    std::vector<std::int64_t> integers;  // when is_integral(type)

    // The product of the extents.
    std::size_t elements() const;

    // The elements as integers (reals truncated toward zero) or as reals.
    std::vector<std::int64_t> as_integers() const;
    std::vector<double> as_reals() const;

    // A rank-1 int64 constant.
    static Constant of_integers(std::vector<std::int64_t> values);
    // A constant of `type` and `extents`, its elements from `values` (integral types round).
    static Constant of_reals(DataType type,
                             std::vector<std::int64_t> extents,
                             std::vector<double> values);
};

}  // namespace topos::onnx::detail
