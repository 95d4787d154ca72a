// Where the gallery finds data/: the project's folder, compiled in by CMake,
// or the environment variable TOPOS_DATA when a user moved the files.
#pragma once

#include <cstdlib>
#include <string>

namespace gallery {

inline std::string data_path(const std::string& file) {
    const char* overridden = std::getenv("TOPOS_DATA");
    return std::string(overridden != nullptr ? overridden : TOPOS_GALLERY_DATA) + "/" + file;
}

}  // namespace gallery
