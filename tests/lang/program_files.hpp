// The playground programs of the source tree, read as text: the walk-through
// (playground/walkthrough.tp) and the test programs (tests/lang/programs/).
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#ifndef TOPOS_SOURCE_DIR
#define TOPOS_SOURCE_DIR "."
#endif

namespace topos::lang::test {

inline const std::filesystem::path source_dir = TOPOS_SOURCE_DIR;

// The whole file at `path`, byte for byte; a test failure when it cannot be read.
inline std::string contents_of(const std::filesystem::path& path) {
    std::ifstream stream(path, std::ios::binary);
    EXPECT_TRUE(stream) << "cannot read " << path;
    std::ostringstream text;
    text << stream.rdbuf();
    return text.str();
}

// tests/lang/programs/NAME.tp, relative to the source tree.
inline std::filesystem::path program_path(const std::string& name) {
    return std::filesystem::path("tests/lang/programs") / (name + ".tp");
}

// The text of the test program NAME, or of the walk-through for "walkthrough".
inline std::string program_text(const std::string& name) {
    if (name == "walkthrough") {
        return contents_of(source_dir / "playground/walkthrough.tp");
    }
    return contents_of(source_dir / program_path(name));
}

}  // namespace topos::lang::test
