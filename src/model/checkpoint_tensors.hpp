// The tensors of a checkpoint, privately: elements to and from little-endian
// bytes, the dtype names topos reads and writes, the conversion of F16, BF16,
// F32 and F64 elements a load by name may make, and the collection of
// mismatches a load reports together. Shared by the checkpoints by node
// (checkpoint.cpp) and by name (checkpoint_named.cpp).
#pragma once

#include "core/bit_cast.hpp"
#include <topos/core/error.hpp>
#include <topos/core/tensor.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace topos::detail {

template <TensorElement T>
using Bits = std::conditional_t<sizeof(T) == 2,
                                std::uint16_t,
                                std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>;

template <TensorElement T>
const char* dtype_name() {
    if constexpr (std::same_as<T, bf16>) {
        return "BF16";
    } else {
        return sizeof(T) == 4 ? "F32" : "F64";
    }
}

template <TensorElement T>
std::vector<std::byte> little_endian_bytes(const Tensor<T>& tensor) {
    std::vector<std::byte> bytes;
    bytes.reserve(tensor.elements() * sizeof(T));
    for (const T value : tensor.data()) {
        const Bits<T> bits = detail::bit_cast<Bits<T>>(value);
        for (std::size_t i = 0; i < sizeof(T); ++i) {
            bytes.push_back(static_cast<std::byte>((bits >> (8 * i)) & 0xff));
        }
    }
    return bytes;
}

template <TensorElement T>
Tensor<T> from_little_endian(std::span<const std::byte> bytes, const Shape& shape) {
    return Tensor<T>::generate(shape, [&](std::span<T> out) {
        for (std::size_t e = 0; e < out.size(); ++e) {
            Bits<T> bits = 0;
            for (std::size_t i = 0; i < sizeof(T); ++i) {
                bits |= static_cast<Bits<T>>(bytes[e * sizeof(T) + i]) << (8 * i);
            }
            out[e] = detail::bit_cast<T>(bits);
        }
    });
}

// The floating-point dtypes a load by name or a read of one tensor converts from.
inline bool convertible_dtype(const std::string& stored) {
    return stored == "F16" || stored == "BF16" || stored == "F32" || stored == "F64";
}

// The network type that holds a dtype as it is stored, or null (F16, integers).
inline const char* network_holding(const std::string& stored) {
    if (stored == "F32") {
        return "Network<float>";
    }
    if (stored == "F64") {
        return "Network<double>";
    }
    return stored == "BF16" ? "Network<bf16>" : nullptr;
}

// Why a load by node (which reads the network's own type only) cannot read a
// tensor stored as `stored` into a Network<T>, or "" when it can.
template <Element T>
std::string dtype_problem(const std::string& stored) {
    if (stored == dtype_name<T>()) {
        return "";
    }
    if (const char* holder = network_holding(stored)) {
        return "stored as " + stored + ", the network holds " + dtype_name<T>() +
               " (load it into a " + holder + ", or load by name with {.convert = true})";
    }
    return "stored as " + stored +
           ", which topos does not load by node: it loads F32 into a Network<float>, F64 into "
           "a Network<double> and BF16 into a Network<bf16>" +
           (convertible_dtype(stored) ? " (load by name with {.convert = true} to convert it)"
                                      : "");
}

// Why a load that converts when asked (by name, or one tensor) cannot read a
// tensor stored as `stored` as T, or "" when it can.
template <TensorElement T>
std::string unreadable_dtype(const std::string& stored, bool convert) {
    const std::string own = dtype_name<T>();
    if (stored == own || (convert && convertible_dtype(stored))) {
        return "";
    }
    if (convertible_dtype(stored)) {
        return "stored as " + stored + ", not " + own +
               "; read it with {.convert = true} to round each element to " + own;
    }
    return "stored as " + stored +
           ", which topos does not read as numbers (it reads F16, BF16, F32 and F64)";
}

// An IEEE binary16 number, exactly, as a double.
inline double half_value(std::uint16_t bits) {
    const double sign = (bits & 0x8000U) != 0 ? -1.0 : 1.0;
    const unsigned exponent = (bits >> 10U) & 0x1fU;
    const unsigned fraction = bits & 0x3ffU;
    if (exponent == 0x1fU) {
        return fraction == 0 ? sign * std::numeric_limits<double>::infinity()
                             : std::numeric_limits<double>::quiet_NaN();
    }
    if (exponent == 0) {
        return sign * std::ldexp(static_cast<double>(fraction), -24);
    }
    return sign *
           std::ldexp(static_cast<double>(fraction | 0x400U), static_cast<int>(exponent) - 25);
}

// Elements stored as `stored` (F16, BF16, F32 or F64), each rounded once to T.
template <TensorElement T>
Tensor<T> converted_from(std::span<const std::byte> bytes,
                         const std::string& stored,
                         const Shape& shape) {
    if (stored == "F32") {
        return from_little_endian<float>(bytes, shape).template convert<T>();
    }
    if (stored == "F64") {
        return from_little_endian<double>(bytes, shape).template convert<T>();
    }
    if (stored == "BF16") {
        return from_little_endian<bf16>(bytes, shape).template convert<T>();
    }
    return Tensor<T>::generate(shape, [&](std::span<T> out) {
        for (std::size_t e = 0; e < out.size(); ++e) {
            const auto bits =
                static_cast<std::uint16_t>(static_cast<unsigned>(bytes[2 * e]) |
                                           (static_cast<unsigned>(bytes[2 * e + 1]) << 8U));
            out[e] = static_cast<T>(half_value(bits));
        }
    });
}

// Collects what does not match, to report the problems together (the first
// `shown` of them, and how many more).
// The transpose of a matrix (PyTorch's [out, in] from topos's [in, out], and
// back), in tiles of 32 x 32 so that both sides stay in cache.
template <TensorElement T>
Tensor<T> transposed(const Tensor<T>& matrix) {
    constexpr std::size_t tile = 32;
    const std::size_t rows = matrix.shape()[0];
    const std::size_t columns = matrix.shape()[1];
    const std::span<const T> in = matrix.data();
    return Tensor<T>::generate(Shape{columns, rows}, [&](std::span<T> out) {
        for (std::size_t r0 = 0; r0 < rows; r0 += tile) {
            for (std::size_t c0 = 0; c0 < columns; c0 += tile) {
                for (std::size_t r = r0; r < std::min(rows, r0 + tile); ++r) {
                    for (std::size_t c = c0; c < std::min(columns, c0 + tile); ++c) {
                        out[c * rows + r] = in[r * columns + c];
                    }
                }
            }
        }
    });
}

class Mismatches {
public:
    static constexpr std::size_t shown = 8;

    void add(std::string problem) { problems_.push_back(std::move(problem)); }

    void throw_if_any(const std::string& origin, const std::string& what) const {
        if (problems_.empty()) {
            return;
        }
        std::ostringstream message;
        message << "the checkpoint " << origin << " does not match " << what << ":";
        for (std::size_t i = 0; i < problems_.size() && i < shown; ++i) {
            message << "\n  " << problems_[i];
        }
        if (problems_.size() > shown) {
            message << "\n  and " << problems_.size() - shown << " more";
        }
        throw CheckpointError(message.str());
    }

private:
    std::vector<std::string> problems_;
};

}  // namespace topos::detail
