// topos-generate: text from a Llama model folder as Hugging Face releases it
// (config.json, model.safetensors or its shards, tokenizer.model), generated
// through topos::LlamaGenerator's key/value-cache plans. The text streams out
// as it is made; a line of timings goes to standard error.
// `topos-generate --help` says how; exit status 1 on an error, 2 on a usage mistake.
#include <topos/core/error.hpp>
#include <topos/core/isa.hpp>
#include <topos/core/threads.hpp>
#include <topos/model/llama_folder.hpp>
#include <topos/model/llama_generator.hpp>
#include <topos/model/sampling.hpp>
#if TOPOS_GENERATE_HAS_TEXT
#include <topos/text/tokenizer.hpp>
#endif

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <functional>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace {

namespace fs = std::filesystem;

constexpr std::string_view usage_text =
    R"(usage: topos-generate MODEL_DIR (--prompt TEXT | --tokens IDS) [options]

Generates text with a Llama-family model from its released folder: config.json,
model.safetensors (or shards with model.safetensors.index.json) and, for
--prompt, tokenizer.model.

What to continue (one of):
  --prompt TEXT         text, read with the folder's tokenizer.model (a
                        beginning-of-sequence token first); prints the prompt
                        and the text generated after it
  --tokens IDS          token ids, separated by commas or spaces; prints the
                        generated ids only, on one line

How:
  --count N             tokens to generate, at most (default 32); generation
                        also stops at the tokenizer's end-of-sequence token
  --temperature T       0 (the default) picks the most likely token; above 0
                        samples from the logits divided by T
  --top-k K             sample from the K most likely tokens only (0: all)
  --top-p P             sample from the fewest most likely tokens whose
                        probability reaches P, in (0, 1] (default 1)
  --seed S              the sampler's seed (default 0): the same seed, the same text
  --dtype TYPE          f32 (the default) or bf16: the model's element type;
                        the checkpoint's tensors are converted to it
  --threads N           threads the plans run on (default: every core)
  --context N           positions the key/value caches hold (default: the
                        prompt and the count, within max_position_embeddings)
  --help                print this text

Exit status: 0 done, 1 an error (the folder, its files, the ids), 2 a usage mistake.
)";

// A mistake in the command line: exit status 2.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

enum class Dtype {
    F32,
    Bf16
};

// What the command line asks for.
struct Options {
    fs::path folder;
    std::optional<std::string> prompt;
    std::optional<std::vector<std::int64_t>> tokens;
    std::size_t count = 32;
    topos::Sampling sampling;
    Dtype dtype = Dtype::F32;
    std::optional<std::size_t> threads;
    std::optional<std::size_t> context;
};

template <class Number>
Number number(std::string_view flag, std::string_view text) {
    const std::string spelled(text);
    char* end = nullptr;
    errno = 0;
    Number value{};
    if constexpr (std::is_floating_point_v<Number>) {
        value = std::strtod(spelled.c_str(), &end);
    } else if constexpr (std::is_signed_v<Number>) {
        value = static_cast<Number>(std::strtoll(spelled.c_str(), &end, 10));
    } else {
        value = static_cast<Number>(std::strtoull(spelled.c_str(), &end, 10));
    }
    const bool negative_unsigned = std::is_unsigned_v<Number> && spelled.starts_with('-');
    if (spelled.empty() || end != spelled.c_str() + spelled.size() || errno == ERANGE ||
        negative_unsigned) {
        throw UsageError(std::string(flag) + " takes a number; got '" + spelled + "'");
    }
    return value;
}

std::vector<std::int64_t> token_ids(std::string_view text) {
    std::vector<std::int64_t> ids;
    std::size_t start = 0;
    while (start < text.size()) {
        const std::size_t end = std::min(text.find_first_of(", ", start), text.size());
        if (end > start) {
            ids.push_back(number<std::int64_t>("--tokens", text.substr(start, end - start)));
        }
        start = end + 1;
    }
    if (ids.empty()) {
        throw UsageError("--tokens takes at least one token id");
    }
    return ids;
}

Options parse(int argc, char** argv) {
    Options options;
    std::optional<fs::path> folder;
    for (int i = 1; i < argc; ++i) {
        const std::string_view flag = argv[i];
        const auto value = [&]() -> std::string_view {
            if (i + 1 >= argc) {
                throw UsageError(std::string(flag) + " needs a value");
            }
            return argv[++i];
        };
        if (flag == "--prompt") {
            options.prompt = std::string(value());
        } else if (flag == "--tokens") {
            options.tokens = token_ids(value());
        } else if (flag == "--count") {
            options.count = number<std::size_t>(flag, value());
        } else if (flag == "--temperature") {
            options.sampling.temperature = number<double>(flag, value());
        } else if (flag == "--top-k") {
            options.sampling.top_k = number<std::size_t>(flag, value());
        } else if (flag == "--top-p") {
            options.sampling.top_p = number<double>(flag, value());
        } else if (flag == "--seed") {
            options.sampling.seed = number<std::uint64_t>(flag, value());
        } else if (flag == "--threads") {
            options.threads = number<std::size_t>(flag, value());
        } else if (flag == "--context") {
            options.context = number<std::size_t>(flag, value());
        } else if (flag == "--dtype") {
            const std::string_view dtype = value();
            if (dtype != "f32" && dtype != "bf16") {
                throw UsageError("--dtype is f32 or bf16; got '" + std::string(dtype) + "'");
            }
            options.dtype = dtype == "f32" ? Dtype::F32 : Dtype::Bf16;
        } else if (flag.starts_with("--")) {
            throw UsageError("unknown option " + std::string(flag));
        } else if (folder) {
            throw UsageError("one model folder only; got '" + folder->string() + "' and '" +
                             std::string(flag) + "'");
        } else {
            folder = fs::path(flag);
        }
    }
    if (!folder) {
        throw UsageError("no model folder given");
    }
    if (options.prompt.has_value() == options.tokens.has_value()) {
        throw UsageError("give one of --prompt TEXT and --tokens IDS");
    }
    if (options.threads && *options.threads == 0) {
        throw UsageError("--threads is at least 1");
    }
    try {
        (void)topos::TokenSampler(options.sampling);  // its checks, before anything is read
    } catch (const topos::Error& error) {
        throw UsageError(error.what());
    }
    options.folder = *folder;
    return options;
}

// The prompt's ids, its end-of-sequence token, and what prints the text as it comes.
struct Text {
    std::vector<std::int64_t> prompt;
    std::optional<std::int64_t> eos;
    std::function<void(std::int64_t)> print;
    std::function<void()> finish;
};

Text text_of(const Options& options) {
    if (options.tokens) {
        return {*options.tokens,
                std::nullopt,
                [first = true](std::int64_t id) mutable {
                    std::cout << (first ? "" : " ") << id << std::flush;
                    first = false;
                },
                [] { std::cout << '\n'; }};
    }
#if TOPOS_GENERATE_HAS_TEXT
    const topos::Tokenizer tokenizer = topos::Tokenizer::open(options.folder / "tokenizer.model");
    std::vector<std::int64_t> prompt = tokenizer.encode(*options.prompt, topos::Ends::Bos);
    auto stream = std::make_shared<topos::TextStream>(tokenizer);
    for (const std::int64_t id : prompt) {
        if (id != tokenizer.bos()) {
            std::cout << stream->push(id);
        }
    }
    std::cout << std::flush;
    return {std::move(prompt),
            tokenizer.eos(),
            [stream](std::int64_t id) { std::cout << stream->push(id) << std::flush; },
            [stream] { std::cout << stream->finish() << '\n'; }};
#else
    throw std::runtime_error(
        "this topos-generate was built without topos::text (SentencePiece), so it reads no "
        "tokenizer.model: give --tokens IDS, or rebuild with libsentencepiece-dev installed");
#endif
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

template <topos::Element T>
void generate(const Options& options, Text text) {
    const auto loading = std::chrono::steady_clock::now();
    const topos::LlamaFolder folder(options.folder);
    topos::Tape<T> tape;
    const topos::Llama<T> model = folder.load(tape, {.convert = true});
    const std::size_t wanted = text.prompt.size() + std::max<std::size_t>(options.count, 1) - 1;
    const std::size_t context =
        options.context.value_or(std::min(wanted, model.config().max_positions));
    topos::LlamaGenerator<T> generator(std::move(tape), model, {.context = context});
    const double load_seconds = seconds_since(loading);

    topos::TokenSampler sampler(options.sampling);
    const auto start = std::chrono::steady_clock::now();
    std::optional<double> prompt_seconds;
    const std::vector<std::int64_t> picked = generator.generate(
        text.prompt, {.count = options.count, .eos = text.eos}, sampler, [&](std::int64_t id) {
            if (!prompt_seconds) {
                prompt_seconds = seconds_since(start);
            }
            text.print(id);
        });
    const double total = seconds_since(start);
    text.finish();
    const double first = prompt_seconds.value_or(total);
    const std::size_t stepped = picked.empty() ? 0 : picked.size() - 1;
    std::cerr << std::fixed << std::setprecision(2) << "topos-generate: loaded in " << load_seconds
              << " s; prompt " << text.prompt.size() << " tokens in " << first << " s ("
              << static_cast<double>(text.prompt.size()) / first << " tokens/s); " << picked.size()
              << " generated, " << stepped << " after the first in " << total - first << " s ("
              << (stepped > 0 ? static_cast<double>(stepped) / (total - first) : 0.0)
              << " tokens/s); " << (options.dtype == Dtype::F32 ? "f32" : "bf16") << ", "
              << topos::threads() << (topos::threads() == 1 ? " thread, " : " threads, ")
              << topos::isa() << " kernels\n";
}

}  // namespace

int main(int argc, char** argv) {
    try {
        for (int i = 1; i < argc; ++i) {
            if (std::string_view(argv[i]) == "--help") {
                std::cout << usage_text;
                return 0;
            }
        }
        const Options options = parse(argc, argv);
        if (options.threads) {
            topos::set_threads(*options.threads);
        }
        Text text = text_of(options);
        if (options.dtype == Dtype::F32) {
            generate<float>(options, std::move(text));
        } else {
            generate<topos::bf16>(options, std::move(text));
        }
        return 0;
    } catch (const UsageError& error) {
        std::cerr << "topos-generate: " << error.what() << "\n(topos-generate --help says how)\n";
        return 2;
    } catch (const std::exception& error) {
        std::cerr << "topos-generate: " << error.what() << '\n';
        return 1;
    }
}
