// Safetensors files written by hand, as another library would write them, for
// tests of what topos reads: a header of the given dtypes and shapes, and the
// given little-endian bytes tiled in order.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <vector>

namespace topos::test {

// A safetensors file of `tensors` ({name, dtype, shape, little-endian bytes}),
// written by hand as another library would write it.
struct HandWrittenTensor {
    std::string name;
    std::string dtype;
    std::vector<std::size_t> shape;
    std::vector<std::uint8_t> bytes;
};

inline void write_safetensors(const std::filesystem::path& path,
                              const std::vector<HandWrittenTensor>& tensors) {
    nlohmann::json header = nlohmann::json::object();
    std::vector<std::uint8_t> payload;
    for (const HandWrittenTensor& tensor : tensors) {
        header[tensor.name] = {
            {"dtype", tensor.dtype},
            {"shape", tensor.shape},
            {"data_offsets", {payload.size(), payload.size() + tensor.bytes.size()}}};
        payload.insert(payload.end(), tensor.bytes.begin(), tensor.bytes.end());
    }
    const std::string text = header.dump();
    std::ofstream out(path, std::ios::binary);
    const std::uint64_t length = text.size();
    for (int i = 0; i < 8; ++i) {
        out.put(static_cast<char>((length >> (8 * i)) & 0xffU));
    }
    out << text;
    out.write(reinterpret_cast<const char*>(payload.data()),
              static_cast<std::streamsize>(payload.size()));
}

inline std::vector<std::uint8_t> little_endian_16(std::initializer_list<std::uint16_t> values) {
    std::vector<std::uint8_t> bytes;
    for (const std::uint16_t value : values) {
        bytes.push_back(static_cast<std::uint8_t>(value & 0xffU));
        bytes.push_back(static_cast<std::uint8_t>(value >> 8U));
    }
    return bytes;
}

inline std::vector<std::uint8_t> little_endian_64(std::initializer_list<double> values) {
    std::vector<std::uint8_t> bytes;
    for (const double value : values) {
        std::uint64_t bits = 0;
        std::memcpy(&bits, &value, sizeof bits);
        for (int i = 0; i < 8; ++i) {
            bytes.push_back(static_cast<std::uint8_t>((bits >> (8 * i)) & 0xffU));
        }
    }
    return bytes;
}

}  // namespace topos::test
