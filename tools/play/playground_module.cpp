// The playground's WebAssembly module: one C function the page calls through
// the JavaScript wrapper in playground_module.post.js, which exports it as
// readings(program, options) -> the JSON object answer_json writes.
#include <topos/lang/play.hpp>

#include <emscripten/emscripten.h>
#include <string>

extern "C" {

// The answer stays alive until the next call, which is all the wrapper needs:
// it copies the text into a JavaScript string at once.
EMSCRIPTEN_KEEPALIVE const char* topos_readings(const char* program,
                                                const char* target,
                                                const char* observed,
                                                int fast) {
    static std::string answer;
    topos::lang::ReadingOptions options;
    options.target = target;
    options.observed = observed;
    options.numerics = fast != 0 ? topos::Numerics::Fast : topos::Numerics::Exact;
    answer = topos::lang::answer_json(program, options);
    return answer.c_str();
}

}  // extern "C"
