// The names a safetensors file can hold, checked before a save writes
// anything: not empty, not "__metadata__", valid UTF-8, at most
// longest_parameter_name bytes, and each used once. Shared by the checkpoints
// by name and the files of named tensors.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace topos::detail {

// The name as a message shows it: in quotes, every byte outside printable
// ASCII, '"' and '\\' as \xNN, and a long name cut after 64 bytes.
std::string printable_name(const std::string& name);

// Throws CheckpointError, saying that `path` is left as it was, for the first
// name that cannot name a tensor in a safetensors file or that is given twice;
// `position(i)` says which of the caller's `things` names[i] names.
void check_names_storable(const std::filesystem::path& path,
                          const std::vector<std::string>& names,
                          const std::string& things,
                          const std::function<std::string(std::size_t)>& position);

}  // namespace topos::detail
