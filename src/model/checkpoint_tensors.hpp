// The tensors of a checkpoint, privately: elements to and from little-endian
// bytes, the dtype names topos reads and writes, and the collection of
// mismatches a load reports together. Shared by the checkpoints by node
// (checkpoint.cpp) and by name (checkpoint_named.cpp).
#pragma once

#include "core/bit_cast.hpp"
#include <topos/core/error.hpp>
#include <topos/core/tensor.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace topos::detail {

template <Element T>
using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;

template <Element T>
const char* dtype_name() {
    return sizeof(T) == 4 ? "F32" : "F64";
}

template <Element T>
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

template <Element T>
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

// Why a stored dtype cannot be read as T, or "" when it can.
template <Element T>
std::string dtype_problem(const std::string& stored) {
    if (stored == dtype_name<T>()) {
        return "";
    }
    if (stored == "F32" || stored == "F64") {
        return "stored as " + stored + ", the network holds " + dtype_name<T>() +
               " (load it into a Network<" + (stored == "F32" ? "float" : "double") +
               "> or convert the file)";
    }
    return "stored as " + stored +
           ", which topos does not load: it loads F32 into a Network<float> and F64 into a "
           "Network<double> (convert the file's tensors to F32 or F64, e.g. with torch's "
           ".float() or .double() before saving it)";
}

// Collects what does not match, to report the problems together (the first
// `shown` of them, and how many more).
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
