// libFuzzer target for a released model folder's config.json: the JSON
// reader and the configuration's keys (parse_llama_config). The seed corpus
// is fuzz/corpus/llama_config/, the dictionary fuzz/llama_config.dict.
//
// A finding is any of: a crash or sanitizer report; an exception that is not
// a CheckpointError, or one whose message does not name the source; a
// configuration read that LlamaConfig::check refuses; one that does not read
// back equal from the config.json llama_config_json writes for it.
#include <topos/core/error.hpp>
#include <topos/model/llama_folder.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

namespace {

const std::string source = "the fuzzer's config.json";

[[noreturn]] void finding(const char* what, const char* detail = "") {
    std::fprintf(stderr, "llama_config_fuzz finding: %s %s\n", what, detail);
    std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    topos::LlamaConfig config;
    try {
        config = topos::parse_llama_config(text, source);
    } catch (const topos::CheckpointError& error) {
        if (std::string_view(error.what()).find(source) == std::string_view::npos) {
            finding("a CheckpointError that does not name the source:", error.what());
        }
        return 0;
    } catch (const std::exception& error) {
        finding("an exception that is not a CheckpointError:", error.what());
    }
    try {
        config.check();
        if (topos::parse_llama_config(topos::llama_config_json(config), source) != config) {
            finding("a configuration that does not read back equal from its written config.json");
        }
    } catch (const std::exception& error) {
        finding("a read configuration that is refused afterwards:", error.what());
    }
    return 0;
}
