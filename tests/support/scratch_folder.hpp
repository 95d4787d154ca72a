// Files for the checkpoint tests: a scratch folder of this test process,
// removed with everything in it, whole-file reads and writes, and crafted
// checkpoint files (a length-prefixed header, then a payload).
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <system_error>
#include <unistd.h>
#include <vector>

namespace topos::test {

class ScratchFolder {
public:
    // The pid keeps concurrent test runs apart.
    explicit ScratchFolder(const std::string& name)
        : path_(std::filesystem::path(::testing::TempDir()) /
                ("topos_checkpoint_" + std::to_string(getpid()) + '_' + name)) {
        std::filesystem::remove_all(path_);
        std::filesystem::create_directories(path_);
    }

    ScratchFolder(const ScratchFolder&) = delete;
    ScratchFolder& operator=(const ScratchFolder&) = delete;

    ~ScratchFolder() {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }

    std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

    // The names of what the folder holds.
    std::set<std::string> entries() const {
        std::set<std::string> names;
        for (const auto& entry : std::filesystem::directory_iterator(path_)) {
            names.insert(entry.path().filename().string());
        }
        return names;
    }

private:
    std::filesystem::path path_;
};

inline std::vector<char> bytes_of(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const std::filesystem::path& path, const std::vector<char>& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// The eight little-endian bytes of `length`, as a safetensors file begins.
inline std::vector<char> length_prefix(std::uint64_t length) {
    std::vector<char> bytes;
    for (std::size_t i = 0; i < 8; ++i) {
        bytes.push_back(static_cast<char>((length >> (8 * i)) & 0xff));
    }
    return bytes;
}

// A file with this header text (length prefixed) and `payload` zero bytes.
inline void write_crafted(const std::filesystem::path& path,
                          const std::string& header,
                          std::size_t payload) {
    std::vector<char> bytes = length_prefix(header.size());
    bytes.insert(bytes.end(), header.begin(), header.end());
    bytes.resize(bytes.size() + payload, '\0');
    write_bytes(path, bytes);
}

}  // namespace topos::test
