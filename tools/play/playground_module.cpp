// The playground's WebAssembly module: the C functions the page calls through
// the JavaScript wrapper in playground_module.post.js, which exports them as
// readings(program, options) -> the JSON object answer_json writes. The
// wrapper copies the program into the module's memory (never onto its stack),
// no more of it than max_source_bytes and one character, so a longer program
// is refused by answer_json as the native reader refuses it.
#include <topos/lang/play.hpp>
#include <topos/lang/program.hpp>

#include <cstddef>
#include <cstdlib>
#include <emscripten/emscripten.h>
#include <string>
#include <string_view>

extern "C" {

// The most bytes of a program that answer_json reads.
EMSCRIPTEN_KEEPALIVE std::size_t topos_max_source_bytes() {
    return topos::lang::default_max_source_bytes;
}

// `size` bytes of the module's memory for the wrapper to write texts into, or
// null when they cannot be had; topos_release gives them back.
EMSCRIPTEN_KEEPALIVE char* topos_allocate(std::size_t size) {
    return static_cast<char*>(std::malloc(size));
}

EMSCRIPTEN_KEEPALIVE void topos_release(char* bytes) {
    std::free(bytes);
}

// The readings of the program of `program_length` bytes at `program`, the
// target and the observed name likewise (UTF-8, not NUL-terminated). The
// answer stays alive until the next call, which is all the wrapper needs: it
// copies the text into a JavaScript string at once.
EMSCRIPTEN_KEEPALIVE const char* topos_readings(const char* program,
                                                std::size_t program_length,
                                                const char* target,
                                                std::size_t target_length,
                                                const char* observed,
                                                std::size_t observed_length,
                                                int fast) {
    static std::string answer;
    topos::lang::ReadingOptions options;
    options.target = std::string(target, target_length);
    options.observed = std::string(observed, observed_length);
    options.numerics = fast != 0 ? topos::Numerics::Fast : topos::Numerics::Exact;
    answer = topos::lang::answer_json(std::string_view(program, program_length), options);
    return answer.c_str();
}

}  // extern "C"
