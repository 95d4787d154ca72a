// topos-onnx: an ONNX model file as topos::onnx reads it. Its summary by
// default; on request the imported network run on .npy inputs (each output
// written as a .npy file), its plan, its StableHLO text and its picture.
// `topos-onnx --help` says how; exit status 1 on an error, 2 on a usage mistake.
#include <topos/data/npy.hpp>
#include <topos/emit/stablehlo.hpp>
#include <topos/onnx.hpp>
#include <topos/run/entry.hpp>
#include <topos/show/graph.hpp>
#include <topos/topos.hpp>

#include <cerrno>
#include <charconv>
#include <cstddef>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace {

namespace fs = std::filesystem;

constexpr std::string_view usage_text =
    R"(usage: topos-onnx MODEL.onnx [options]

Reads an ONNX model with topos::onnx. Without options it prints the model's
summary: producer, opsets, inputs and outputs with their shapes, operator
counts and parameters.

Sizing symbolic axes (where the model is imported):
  --batch N             the first axis of each graph input, where symbolic, is N
  --dim NAME=N          the symbolic axis NAME is N (repeatable)

Actions (any together; each prints its own part):
  --run IN.npy ...      run the model on the .npy inputs, one per graph input in
                        the graph's order; their shapes size the symbolic axes
  --out DIR             where --run writes each output, as DIR/NAME.npy
  --plan                print the plan of the imported network
  --stablehlo           print the plan as StableHLO text (MLIR's pretty form)
  --graph FILE          draw the network: SVG, or Graphviz DOT where FILE ends
                        in .dot or topos was built without Graphviz's library

Settings:
  --dtype TYPE          float32 (the default), float64 or bfloat16
  --numerics MODE       exact (the default) or fast, for --plan and --stablehlo
  --help                print this text

Exit status: 0 done, 1 an error (a file, the model, the inputs), 2 a usage mistake.
)";

// A mistake in the command line: exit status 2.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A mistake found in the inputs or files: exit status 1.
class ToolError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

enum class Dtype {
    Float32,
    Float64,
    Bfloat16
};

// What the command line asks for.
struct Options {
    fs::path model;
    std::optional<std::size_t> batch;
    std::map<std::string, std::size_t, std::less<>> dimensions;
    std::vector<fs::path> run_inputs;
    bool run = false;
    std::optional<fs::path> out;
    bool plan = false;
    bool stablehlo = false;
    std::optional<fs::path> graph;
    Dtype dtype = Dtype::Float32;
    topos::Numerics numerics = topos::Numerics::Exact;
    bool help = false;

    bool imports() const { return run || plan || stablehlo || graph.has_value(); }
};

std::size_t extent_of(std::string_view text, std::string_view flag) {
    std::size_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
        throw UsageError(std::string(flag) + " takes a nonnegative integer, not \"" +
                         std::string(text) + "\"");
    }
    return value;
}

Dtype dtype_of(std::string_view text) {
    if (text == "float32" || text == "float") {
        return Dtype::Float32;
    }
    if (text == "float64" || text == "double") {
        return Dtype::Float64;
    }
    if (text == "bfloat16" || text == "bf16") {
        return Dtype::Bfloat16;
    }
    throw UsageError("--dtype takes float32, float64 or bfloat16, not \"" + std::string(text) +
                     "\"");
}

topos::Numerics numerics_of(std::string_view text) {
    if (text == "exact") {
        return topos::Numerics::Exact;
    }
    if (text == "fast") {
        return topos::Numerics::Fast;
    }
    throw UsageError("--numerics takes exact or fast, not \"" + std::string(text) + "\"");
}

// The options that take a value.
const std::set<std::string, std::less<>> valued_flags = {
    "--batch", "--dim", "--out", "--graph", "--dtype", "--numerics"};

// Reads the command line, flag by flag; a flag's value follows it or its '='.
class ArgumentReader {
public:
    explicit ArgumentReader(std::vector<std::string> arguments)
        : arguments_(std::move(arguments)) {}

    Options read() {
        while (at_ < arguments_.size()) {
            take(arguments_[at_++]);
        }
        check();
        return options_;
    }

private:
    void take(const std::string& argument) {
        if (!argument.starts_with("-") || argument == "-") {
            model(argument);
            return;
        }
        const std::size_t equals = argument.find('=');
        const std::string flag = argument.substr(0, equals);
        std::optional<std::string> attached;
        if (equals != std::string::npos) {
            attached = argument.substr(equals + 1);
        }
        flag_with(flag, attached);
    }

    void model(const std::string& argument) {
        if (!options_.model.empty()) {
            throw UsageError("one model file at a time: \"" + options_.model.string() +
                             "\" and \"" + argument + "\"");
        }
        options_.model = argument;
    }

    void flag_with(const std::string& flag, const std::optional<std::string>& attached) {
        if (flag == "--help" || flag == "-h") {
            options_.help = true;
        } else if (flag == "--plan" || flag == "--stablehlo") {
            no_value(flag, attached);
            (flag == "--plan" ? options_.plan : options_.stablehlo) = true;
        } else if (flag == "--run") {
            run(attached);
        } else if (valued_flags.contains(flag)) {
            valued(flag, attached ? *attached : value(flag));
        } else {
            throw UsageError("unknown option \"" + flag + "\"");
        }
    }

    void valued(const std::string& flag, const std::string& text) {
        if (flag == "--batch") {
            options_.batch = extent_of(text, flag);
        } else if (flag == "--dim") {
            dimension(text);
        } else if (flag == "--out") {
            options_.out = text;
        } else if (flag == "--graph") {
            options_.graph = text;
        } else if (flag == "--dtype") {
            options_.dtype = dtype_of(text);
        } else {
            options_.numerics = numerics_of(text);
        }
    }

    // --run takes every argument up to the next option.
    void run(const std::optional<std::string>& attached) {
        options_.run = true;
        if (attached) {
            options_.run_inputs.emplace_back(*attached);
        }
        while (at_ < arguments_.size() && !arguments_[at_].starts_with("--")) {
            options_.run_inputs.emplace_back(arguments_[at_++]);
        }
    }

    void dimension(const std::string& text) {
        const std::size_t equals = text.find('=');
        if (equals == 0 || equals == std::string::npos) {
            throw UsageError("--dim takes NAME=N, not \"" + text + "\"");
        }
        options_.dimensions[text.substr(0, equals)] = extent_of(text.substr(equals + 1), "--dim");
    }

    std::string value(const std::string& flag) {
        if (at_ == arguments_.size()) {
            throw UsageError(flag + " needs a value");
        }
        return arguments_[at_++];
    }

    static void no_value(const std::string& flag, const std::optional<std::string>& attached) {
        if (attached) {
            throw UsageError(flag + " takes no value");
        }
    }

    void check() const {
        if (options_.help) {
            return;
        }
        if (options_.model.empty()) {
            throw UsageError("no model file given");
        }
        if (options_.run && !options_.out) {
            throw UsageError("--run needs --out DIR, the folder its outputs are written to");
        }
        if (options_.out && !options_.run) {
            throw UsageError("--out goes with --run");
        }
    }

    std::vector<std::string> arguments_;
    std::size_t at_ = 0;
    Options options_;
};

// The extent `name` takes: set once, and the same wherever it is met again.
void size_axis(topos::onnx::ImportOptions& sizes,
               const std::string& name,
               std::size_t extent,
               const std::string& where) {
    const auto [entry, added] = sizes.dimensions.emplace(name, extent);
    if (!added && entry->second != extent) {
        throw ToolError(where + " makes the symbolic axis \"" + name + "\" " +
                        std::to_string(extent) + ", where it was made " +
                        std::to_string(entry->second) +
                        " already (by --dim, --batch or an earlier input)");
    }
}

// An unnamed symbolic axis: ImportOptions::default_extent, the same for all.
void size_unnamed_axis(topos::onnx::ImportOptions& sizes,
                       std::optional<std::size_t>& unnamed,
                       std::size_t extent,
                       const std::string& where) {
    if (unnamed && *unnamed != extent) {
        throw ToolError(where + " makes an unnamed symbolic axis " + std::to_string(extent) +
                        ", where another is " + std::to_string(*unnamed) +
                        " (unnamed axes take one extent)");
    }
    unnamed = extent;
    sizes.default_extent = extent;
}

std::string declared_shape(const topos::onnx::Port& port) {
    std::string text = "[";
    for (std::size_t axis = 0; axis < port.dimensions.size(); ++axis) {
        const topos::onnx::Dimension& dimension = port.dimensions[axis];
        text += axis == 0 ? "" : ", ";
        text += dimension.extent >= 0    ? std::to_string(dimension.extent)
                : dimension.name.empty() ? std::string("?")
                                         : dimension.name;
    }
    return text + "]";
}

// Checks an input file's shape against what the model declares for its input,
// and takes its symbolic axes' extents from it.
void size_from_input(topos::onnx::ImportOptions& sizes,
                     std::optional<std::size_t>& unnamed,
                     const topos::onnx::Port& port,
                     const topos::Shape& shape,
                     const fs::path& file) {
    if (!port.has_shape) {
        return;
    }
    const std::string where = file.string() + " (input \"" + port.name + "\", declared " +
                              declared_shape(port) + ", given " + shape.str() + ")";
    if (port.dimensions.size() != shape.rank()) {
        throw ToolError(where + " has rank " + std::to_string(shape.rank()) +
                        ", where the model's input has rank " +
                        std::to_string(port.dimensions.size()));
    }
    for (std::size_t axis = 0; axis < shape.rank(); ++axis) {
        const topos::onnx::Dimension& dimension = port.dimensions[axis];
        if (dimension.extent >= 0 && static_cast<std::size_t>(dimension.extent) != shape[axis]) {
            throw ToolError(where + " differs on axis " + std::to_string(axis));
        }
        if (dimension.extent < 0 && !dimension.name.empty()) {
            size_axis(sizes, dimension.name, shape[axis], where);
        } else if (dimension.extent < 0) {
            size_unnamed_axis(sizes, unnamed, shape[axis], where);
        }
    }
}

// The sizes the flags give: --dim's names, then --batch's first axes.
topos::onnx::ImportOptions flag_sizes(const Options& options,
                                      const topos::onnx::Summary& summary,
                                      std::optional<std::size_t>& unnamed) {
    topos::onnx::ImportOptions sizes;
    for (const auto& [name, extent] : options.dimensions) {
        sizes.dimensions.emplace(name, extent);
    }
    if (!options.batch) {
        return sizes;
    }
    for (const topos::onnx::Port& port : summary.inputs) {
        if (!port.has_shape || port.dimensions.empty() || port.dimensions[0].extent >= 0) {
            continue;
        }
        const std::string where = "--batch " + std::to_string(*options.batch);
        if (port.dimensions[0].name.empty()) {
            size_unnamed_axis(sizes, unnamed, *options.batch, where);
        } else {
            size_axis(sizes, port.dimensions[0].name, *options.batch, where);
        }
    }
    return sizes;
}

template <topos::Element T>
std::vector<topos::Tensor<T>> read_inputs(const Options& options,
                                          const topos::onnx::Summary& summary) {
    if (options.run_inputs.size() != summary.inputs.size()) {
        std::string names;
        for (const topos::onnx::Port& port : summary.inputs) {
            names += (names.empty() ? "" : ", ") + port.name;
        }
        throw ToolError("--run has " + std::to_string(options.run_inputs.size()) +
                        " input files, where the model has " +
                        std::to_string(summary.inputs.size()) +
                        (summary.inputs.size() == 1 ? " input (" : " inputs (") + names +
                        "): give one .npy file for each, in that order");
    }
    std::vector<topos::Tensor<T>> inputs;
    for (const fs::path& file : options.run_inputs) {
        inputs.push_back(topos::data::read_npy<T>(file));
    }
    return inputs;
}

// An output's name as a file name: letters, digits, '.', '-' and '_' kept,
// anything else '_', never hidden, and unique among the outputs.
std::string file_name_of(const std::string& name, std::set<std::string>& taken) {
    std::string safe;
    for (const char byte : name) {
        const bool kept = (byte >= 'a' && byte <= 'z') || (byte >= 'A' && byte <= 'Z') ||
                          (byte >= '0' && byte <= '9') || byte == '.' || byte == '-' || byte == '_';
        safe += kept ? byte : '_';
    }
    if (safe.empty() || safe.front() == '.') {
        safe.insert(0, "output");
    }
    std::string unique = safe;
    for (int suffix = 2; !taken.insert(unique).second; ++suffix) {
        unique = safe + "_" + std::to_string(suffix);
    }
    return unique + ".npy";
}

fs::path output_folder(const fs::path& folder) {
    std::error_code error;
    fs::create_directories(folder, error);
    if (error || !fs::is_directory(folder)) {
        throw ToolError("cannot write outputs into " + folder.string() + ": " +
                        (error ? error.message() : std::string("it is not a folder")));
    }
    return folder;
}

// The model recorded and sealed, with its inputs', outputs' and parameters' names.
template <topos::Element T>
struct Sealed {
    topos::Network<T> network;
    std::vector<topos::Symbol> inputs;
    std::vector<topos::Symbol> outputs;
    std::vector<std::string> output_names;
    std::vector<topos::NamedParameter> parameters;
};

template <topos::Element T>
Sealed<T> seal(const topos::onnx::Model& model, const topos::onnx::ImportOptions& sizes) {
    topos::onnx::Imported<T> imported = model.import <T>(sizes);
    std::vector<topos::Symbol> inputs;
    for (const auto& input : imported.inputs) {
        inputs.push_back(input.value.symbol());
    }
    std::vector<topos::Symbol> outputs;
    std::vector<std::string> names;
    for (const auto& output : imported.outputs) {
        outputs.push_back(output.value.symbol());
        names.push_back(output.name);
    }
    std::vector<topos::NamedParameter> parameters = imported.named_parameters();
    return {std::move(imported.tape).into_network(),
            std::move(inputs),
            std::move(outputs),
            std::move(names),
            std::move(parameters)};
}

template <topos::Element T>
void run(const Sealed<T>& sealed,
         const std::vector<topos::Tensor<T>>& inputs,
         const fs::path& out) {
    std::vector<topos::Feed<T>> feeds;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        feeds.push_back({sealed.inputs[i], inputs[i]});
    }
    const topos::Run<T> result = sealed.network.forward(sealed.network.parameters(), feeds);
    const fs::path folder = output_folder(out);
    std::set<std::string> taken;
    for (std::size_t i = 0; i < sealed.outputs.size(); ++i) {
        const topos::Tensor<T>& value = result.of(sealed.outputs[i]);
        const fs::path file = folder / file_name_of(sealed.output_names[i], taken);
        topos::data::write_npy(file, value);
        std::cout << sealed.output_names[i] << " " << value.shape() << " -> " << file.string()
                  << "\n";
    }
}

// Writes `text` to `file`, creating its folder when missing.
void write_text(const fs::path& file, const std::string& text) {
    std::error_code error;
    if (file.has_parent_path()) {
        fs::create_directories(file.parent_path(), error);
    }
    std::ofstream stream;
    if (!error) {
        stream.open(file, std::ios::binary);
        stream << text;
        stream.close();
        error = std::error_code(stream ? 0 : errno, std::generic_category());
    }
    if (error || !stream) {
        throw ToolError("cannot write " + file.string() + ": " +
                        (error ? error.message() : std::string("a write failed")));
    }
}

template <topos::Element T>
void draw(const Sealed<T>& sealed, const fs::path& file, const std::string& title) {
    const topos::show::Picture picture =
        topos::show::graph(sealed.network, {.title = title, .names = sealed.parameters});
    if (file.extension() == ".dot") {
        write_text(file, picture.dot());
        std::cout << "graph: " << file.string() << " (DOT)\n";
    } else if (topos::show::Picture::can_lay_out()) {
        write_text(file, picture.svg());
        std::cout << "graph: " << file.string() << " (SVG)\n";
    } else {
        fs::path dot = file;
        dot.replace_extension(".dot");
        write_text(dot, picture.dot());
        std::cout << "graph: " << dot.string()
                  << " (DOT: this topos was built without Graphviz's library, so it draws no "
                     "SVG; `dot -Tsvg` lays the DOT text out)\n";
    }
}

template <topos::Element T>
void act(const topos::onnx::Model& model, const Options& options) {
    const topos::onnx::Summary& summary = model.summary();
    std::optional<std::size_t> unnamed;
    topos::onnx::ImportOptions sizes = flag_sizes(options, summary, unnamed);
    std::vector<topos::Tensor<T>> inputs;
    if (options.run) {
        inputs = read_inputs<T>(options, summary);
        for (std::size_t i = 0; i < inputs.size(); ++i) {
            size_from_input(
                sizes, unnamed, summary.inputs[i], inputs[i].shape(), options.run_inputs[i]);
        }
    }
    const Sealed<T> sealed = seal<T>(model, sizes);
    if (options.run) {
        run(sealed, inputs, *options.out);
    }
    if (options.plan || options.stablehlo) {
        const topos::Plan<T> plan =
            sealed.network.entry(sealed.outputs).numerics(options.numerics).lower();
        std::cout << (options.plan ? plan.describe() : "")
                  << (options.stablehlo ? plan.emit_stablehlo() : "");
    }
    if (options.graph) {
        draw(sealed, *options.graph, options.model.filename().string());
    }
}

// Refuses a model path that holds no regular file, saying what it holds.
void check_model_file(const fs::path& path) {
    std::error_code error;
    const fs::file_status status = fs::status(path, error);
    if (status.type() == fs::file_type::not_found) {
        throw ToolError("cannot read the model " + path.string() + ": no such file");
    }
    if (error) {
        throw ToolError("cannot read the model " + path.string() + ": " + error.message());
    }
    if (status.type() != fs::file_type::regular) {
        throw ToolError("cannot read the model " + path.string() +
                        ": it is not a regular file (a folder, a device...), where an .onnx "
                        "file belongs");
    }
}

int execute(const Options& options) {
    check_model_file(options.model);
    const topos::onnx::Model model = topos::onnx::Model::read(options.model);
    if (!options.imports()) {
        std::cout << model.summary().describe();
        return 0;
    }
    switch (options.dtype) {
        case Dtype::Float32:
            act<float>(model, options);
            break;
        case Dtype::Float64:
            act<double>(model, options);
            break;
        case Dtype::Bfloat16:
            act<topos::bf16>(model, options);
            break;
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    Options options;
    try {
        options = ArgumentReader(std::vector<std::string>(argv + 1, argv + argc)).read();
    } catch (const UsageError& error) {
        std::cerr << "topos-onnx: " << error.what() << "\nTry 'topos-onnx --help'.\n";
        return 2;
    }
    if (options.help) {
        std::cout << usage_text;
        return 0;
    }
    try {
        return execute(options);
    } catch (const std::exception& error) {
        std::cerr << "topos-onnx: " << error.what() << "\n";
        return 1;
    }
}
