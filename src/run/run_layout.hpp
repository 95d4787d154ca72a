// Which nodes a run stores and which of them it may show; shared by every run of
// one plan or entry, so a run carries only its values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace topos::detail {

struct RunLayout {
    std::vector<std::int32_t> slot;  // by node index: where the value is stored, or -1
    std::vector<bool> readable;      // by node index: declared readable
    bool backward_ready = false;     // stores everything the reverse scan reads
    std::string declaration;         // how the run was declared, for error messages
};

}  // namespace topos::detail
