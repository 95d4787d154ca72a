// checkpoint::save and load by node: parameters as parameter.<node> and an
// optimizer's buffers as optimizer.<buffer>.parameter.<node> in a safetensors
// file, the optimizer and its step count in __metadata__. A load checks the
// whole header against the network (names, dtypes, shapes, strangers) before
// reading the payload, and reports the mismatches together.
#include "model/checkpoint_bytes.hpp"
#include "model/checkpoint_file.hpp"
#include "model/checkpoint_tensors.hpp"
#include "model/safetensors.hpp"
#include <topos/core/error.hpp>
#include <topos/model/checkpoint.hpp>

#include <algorithm>
#include <bit>
#include <charconv>
#include <map>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

namespace topos::checkpoint {
namespace {

using detail::dtype_name;
using detail::dtype_problem;
using detail::from_little_endian;
using detail::little_endian_bytes;
using detail::Mismatches;
using detail::SafetensorsHeader;
using detail::TensorEntry;
using detail::TensorToWrite;

const std::string parameter_prefix = "parameter.";
const std::string optimizer_prefix = "optimizer.";

template <Element T>
void add_tensors(std::vector<TensorToWrite>& out,
                 const std::string& prefix,
                 const Parameters<T>& values) {
    for (std::size_t slot = 0; slot < values.size(); ++slot) {
        const Tensor<T>& value = values.values()[slot];
        out.push_back({prefix + tensor_name(values.symbols()[slot]),
                       dtype_name<T>(),
                       value.shape(),
                       little_endian_bytes(value)});
    }
}

void write_file(const std::filesystem::path& path,
                const std::vector<TensorToWrite>& tensors,
                std::map<std::string, std::string> metadata) {
    metadata["format"] = "topos";
    detail::replace_file_atomically(path, detail::encode_safetensors(tensors, metadata));
}

// Where a checkpoint comes from: a file read through SafetensorsReader, or a
// whole file in memory. Either gives its header first, its payload on demand.
class FileSource {
public:
    explicit FileSource(const std::filesystem::path& path)
        : origin_(path.string()), reader_(path) {}

    const std::string& origin() const { return origin_; }

    const SafetensorsHeader& header() const { return reader_.header(); }

    std::vector<std::byte> payload() { return reader_.read_payload(); }

private:
    std::string origin_;
    detail::SafetensorsReader reader_;
};

class BytesSource {
public:
    BytesSource(std::span<const std::byte> bytes, std::string origin)
        : origin_(std::move(origin)), file_(detail::parse_safetensors(bytes, origin_)) {}

    const std::string& origin() const { return origin_; }

    const SafetensorsHeader& header() const { return file_.header; }

    std::vector<std::byte> payload() { return std::move(file_.payload); }

private:
    std::string origin_;
    detail::SafetensorsFile file_;
};

// What a load needs the file to hold beyond parameters that match.
enum class Wanted {
    Parameters,
    SgdState,
    AdamState
};

const char* optimizer_of(Wanted wanted) {
    return wanted == Wanted::SgdState ? "sgd" : "adam";
}

// The buffers each optimizer saves, one tensor per parameter each.
std::vector<std::string> buffers_of(const std::string& optimizer) {
    if (optimizer == "sgd") {
        return {"momentum"};
    }
    if (optimizer == "adam") {
        return {"first_moment", "second_moment"};
    }
    return {};
}

// Checks one stored tensor against the parameter it belongs to.
template <Element T>
void check_entry(const std::string& name,
                 const TensorEntry& entry,
                 const Shape& shape,
                 Mismatches& mismatches) {
    if (const std::string problem = dtype_problem<T>(entry.dtype); !problem.empty()) {
        mismatches.add(name + ": " + problem);
    } else if (!(entry.shape == shape)) {
        mismatches.add(name + ": shape " + entry.shape.str() +
                       " in the file, the network's parameter has shape " + shape.str());
    }
}

// One tensor per parameter of `like`, named prefix + tensor_name: each checked
// where present, and reported missing when `required`.
template <Element T>
void check_slots(const SafetensorsHeader& header,
                 const std::string& prefix,
                 const Parameters<T>& like,
                 bool required,
                 Mismatches& mismatches) {
    for (std::size_t slot = 0; slot < like.size(); ++slot) {
        const std::string name = prefix + tensor_name(like.symbols()[slot]);
        const Shape& shape = like.values()[slot].shape();
        const auto found = header.tensors.find(name);
        if (found != header.tensors.end()) {
            check_entry<T>(name, found->second, shape, mismatches);
        } else if (required) {
            mismatches.add(name + ": missing (the network has a parameter of shape " + shape.str() +
                           " at node " + std::to_string(like.symbols()[slot].index()) + ")");
        }
    }
}

// Names in the order a reader expects: parameter.9 before parameter.10.
bool natural_less(const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() < b.size() : a < b;
}

template <Element T>
std::map<std::string, Shape> parameter_shapes(const Parameters<T>& like) {
    std::map<std::string, Shape> shapes;
    for (std::size_t slot = 0; slot < like.size(); ++slot) {
        shapes.emplace(tensor_name(like.symbols()[slot]), like.values()[slot].shape());
    }
    return shapes;
}

void check_no_strangers(const SafetensorsHeader& header,
                        const std::map<std::string, Shape>& parameters,
                        Mismatches& mismatches) {
    std::vector<std::string> strangers;
    for (const auto& [name, entry] : header.tensors) {
        if (!name.starts_with(optimizer_prefix) && !parameters.contains(name)) {
            strangers.push_back(name);
        }
    }
    std::sort(strangers.begin(), strangers.end(), natural_less);
    for (const std::string& name : strangers) {
        const TensorEntry& entry = header.tensors.at(name);
        mismatches.add(name + ": not a parameter of this network (" + entry.dtype + ' ' +
                       entry.shape.str() + ")");
    }
}

std::optional<std::uint64_t> count_of(const std::string& text) {
    std::uint64_t count = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), count);
    if (error != std::errc() || end != text.data() + text.size()) {
        return std::nullopt;
    }
    return count;
}

std::uint64_t saved_steps(const SafetensorsHeader& header,
                          const std::string& origin,
                          const std::string& optimizer) {
    const auto kind = header.metadata.find("optimizer");
    const auto steps = header.metadata.find("optimizer.steps");
    if (kind == header.metadata.end() || kind->second != optimizer ||
        steps == header.metadata.end()) {
        throw CheckpointError("the checkpoint " + origin + " holds no " + optimizer +
                              " state (save it with checkpoint::save(path, parameters, state))");
    }
    const std::optional<std::uint64_t> count = count_of(steps->second);
    if (!count) {
        throw CheckpointError("the checkpoint " + origin +
                              " has an optimizer.steps that is not a count: \"" + steps->second +
                              "\"");
    }
    return *count;
}

// "0, 1, 2": the nodes of the parameters (the first few).
std::string parameter_nodes(const std::map<std::string, Shape>& parameters) {
    std::vector<std::string> names;
    names.reserve(parameters.size());
    for (const auto& [name, shape] : parameters) {
        names.push_back(name.substr(parameter_prefix.size()));
    }
    std::sort(names.begin(), names.end(), natural_less);
    std::string nodes;
    for (std::size_t i = 0; i < names.size() && i < Mismatches::shown; ++i) {
        nodes += (i == 0 ? "" : ", ") + names[i];
    }
    return names.size() > Mismatches::shown ? nodes + ", ..." : nodes;
}

// Why an optimizer.* tensor has no place in a file declaring `optimizer`.
std::string unexpected_buffer(const std::string& optimizer,
                              const std::vector<std::string>& buffers,
                              const std::map<std::string, Shape>& parameters) {
    if (buffers.empty()) {
        return optimizer.empty()
                   ? "the file declares no optimizer state (no \"optimizer\" in its "
                     "__metadata__), so no optimizer.* tensor belongs in it"
                   : "the file declares the optimizer \"" + optimizer +
                         "\", whose state topos does not save (it saves \"sgd\" and \"adam\")";
    }
    std::string expected;
    for (const std::string& buffer : buffers) {
        expected += expected.empty() ? "" : " or ";
        expected += optimizer_prefix + buffer + ".parameter.<i>";
    }
    return "not a buffer of the " + optimizer + " state the file declares: expected " + expected +
           " for a parameter node i of the network (" + parameter_nodes(parameters) + ")";
}

// The parameter that optimizer.<buffer>.parameter.<i> belongs to, or "" when
// it names no buffer of `buffers` for a parameter of the network.
std::string owner_of(const std::string& name,
                     const std::vector<std::string>& buffers,
                     const std::map<std::string, Shape>& parameters) {
    for (const std::string& buffer : buffers) {
        const std::string prefix = optimizer_prefix + buffer + '.';
        if (name.starts_with(prefix) && parameters.contains(name.substr(prefix.size()))) {
            return name.substr(prefix.size());
        }
    }
    return "";
}

// Every optimizer.* tensor must be a buffer of the optimizer the metadata
// declares, for a parameter of the network, with its dtype and shape.
template <Element T>
void check_optimizer_tensors(const SafetensorsHeader& header,
                             const std::map<std::string, Shape>& parameters,
                             Mismatches& mismatches) {
    const auto declared = header.metadata.find("optimizer");
    const std::string optimizer = declared == header.metadata.end() ? "" : declared->second;
    const std::vector<std::string> buffers = buffers_of(optimizer);
    if (const auto steps = header.metadata.find("optimizer.steps");
        !buffers.empty() && (steps == header.metadata.end() || !count_of(steps->second))) {
        mismatches.add("optimizer.steps (in __metadata__): " +
                       (steps == header.metadata.end() ? std::string("missing")
                                                       : "\"" + steps->second + "\"") +
                       ", where the " + optimizer + " state needs a count of steps");
    }
    for (const auto& [name, entry] : header.tensors) {
        if (!name.starts_with(optimizer_prefix)) {
            continue;
        }
        const std::string parameter = owner_of(name, buffers, parameters);
        if (parameter.empty()) {
            mismatches.add(name + ": " + unexpected_buffer(optimizer, buffers, parameters));
            continue;
        }
        check_entry<T>(name, entry, parameters.at(parameter), mismatches);
    }
}

const char* description_of(Wanted wanted) {
    switch (wanted) {
        case Wanted::Parameters:
            return "the network's parameters";
        case Wanted::SgdState:
            return "an Sgd state for the network";
        case Wanted::AdamState:
            return "an Adam state for the network";
    }
    return "";
}

// Checks the whole header against the network before any payload is read:
// first the parameters (and names that are no parameter), then the optimizer
// tensors, so a file of another network is reported as that alone.
template <Element T>
void check_against_network(const SafetensorsHeader& header,
                           const Parameters<T>& like,
                           Wanted wanted,
                           const std::string& origin) {
    const std::map<std::string, Shape> parameters = parameter_shapes(like);
    Mismatches of_parameters;
    check_slots(header, "", like, wanted == Wanted::Parameters, of_parameters);
    check_no_strangers(header, parameters, of_parameters);
    of_parameters.throw_if_any(origin, description_of(wanted));
    Mismatches of_optimizer;
    check_optimizer_tensors<T>(header, parameters, of_optimizer);
    if (wanted != Wanted::Parameters) {
        for (const std::string& buffer : buffers_of(optimizer_of(wanted))) {
            check_slots(header, optimizer_prefix + buffer + '.', like, true, of_optimizer);
        }
    }
    of_optimizer.throw_if_any(
        origin,
        wanted == Wanted::Parameters ? "the optimizer state it declares" : description_of(wanted));
}

// The tensors prefix + tensor_name of every parameter, from a checked file.
template <Element T>
Parameters<T> values_of(const SafetensorsHeader& header,
                        const std::vector<std::byte>& payload,
                        const std::string& prefix,
                        const Parameters<T>& like) {
    std::vector<Tensor<T>> values;
    values.reserve(like.size());
    for (std::size_t slot = 0; slot < like.size(); ++slot) {
        const TensorEntry& entry = header.tensors.at(prefix + tensor_name(like.symbols()[slot]));
        values.push_back(from_little_endian<T>(
            std::span<const std::byte>(payload).subspan(entry.begin, entry.end - entry.begin),
            entry.shape));
    }
    return like.with_values(std::move(values));
}

template <Element T, class Source>
Parameters<T> load_parameters(Source& source, const Network<T>& network) {
    const Parameters<T> like = network.parameters();
    check_against_network(source.header(), like, Wanted::Parameters, source.origin());
    return values_of(source.header(), source.payload(), "", like);
}

template <Element T, class Source>
optim::SgdState<T> load_sgd(Source& source, const Network<T>& network) {
    const std::uint64_t steps = saved_steps(source.header(), source.origin(), "sgd");
    const Parameters<T> like = network.parameters();
    check_against_network(source.header(), like, Wanted::SgdState, source.origin());
    const std::vector<std::byte> payload = source.payload();
    return {.steps = steps,
            .momentum = values_of(source.header(), payload, optimizer_prefix + "momentum.", like)};
}

template <Element T, class Source>
optim::AdamState<T> load_adam(Source& source, const Network<T>& network) {
    const std::uint64_t steps = saved_steps(source.header(), source.origin(), "adam");
    const Parameters<T> like = network.parameters();
    check_against_network(source.header(), like, Wanted::AdamState, source.origin());
    const std::vector<std::byte> payload = source.payload();
    const SafetensorsHeader& header = source.header();
    return {.steps = steps,
            .first_moment = values_of(header, payload, optimizer_prefix + "first_moment.", like),
            .second_moment = values_of(header, payload, optimizer_prefix + "second_moment.", like)};
}

}  // namespace

std::string tensor_name(Symbol parameter) {
    return parameter_prefix + std::to_string(parameter.index());
}

template <Element T>
void save(const std::filesystem::path& path, const Parameters<T>& parameters) {
    std::vector<TensorToWrite> tensors;
    add_tensors(tensors, "", parameters);
    write_file(path, tensors, {});
}

template <Element T>
void save(const std::filesystem::path& path,
          const Parameters<T>& parameters,
          const optim::SgdState<T>& state) {
    std::vector<TensorToWrite> tensors;
    add_tensors(tensors, "", parameters);
    add_tensors(tensors, optimizer_prefix + "momentum.", state.momentum);
    write_file(
        path, tensors, {{"optimizer", "sgd"}, {"optimizer.steps", std::to_string(state.steps)}});
}

template <Element T>
void save(const std::filesystem::path& path,
          const Parameters<T>& parameters,
          const optim::AdamState<T>& state) {
    std::vector<TensorToWrite> tensors;
    add_tensors(tensors, "", parameters);
    add_tensors(tensors, optimizer_prefix + "first_moment.", state.first_moment);
    add_tensors(tensors, optimizer_prefix + "second_moment.", state.second_moment);
    write_file(
        path, tensors, {{"optimizer", "adam"}, {"optimizer.steps", std::to_string(state.steps)}});
}

template <Element T>
Parameters<T> load(const std::filesystem::path& path, const Network<T>& network) {
    FileSource source(path);
    return load_parameters(source, network);
}

template <ComputeElement T>
optim::SgdState<T> load_sgd_state(const std::filesystem::path& path, const Network<T>& network) {
    FileSource source(path);
    return load_sgd(source, network);
}

template <ComputeElement T>
optim::AdamState<T> load_adam_state(const std::filesystem::path& path, const Network<T>& network) {
    FileSource source(path);
    return load_adam(source, network);
}

template <Element T>
Parameters<T> load_from_bytes(std::span<const std::byte> bytes,
                              const Network<T>& network,
                              const std::string& origin) {
    BytesSource source(bytes, origin);
    return load_parameters(source, network);
}

template <ComputeElement T>
optim::SgdState<T> load_sgd_state_from_bytes(std::span<const std::byte> bytes,
                                             const Network<T>& network,
                                             const std::string& origin) {
    BytesSource source(bytes, origin);
    return load_sgd(source, network);
}

template <ComputeElement T>
optim::AdamState<T> load_adam_state_from_bytes(std::span<const std::byte> bytes,
                                               const Network<T>& network,
                                               const std::string& origin) {
    BytesSource source(bytes, origin);
    return load_adam(source, network);
}

template void save(const std::filesystem::path&, const Parameters<float>&);
template void save(const std::filesystem::path&, const Parameters<double>&);
template void save(const std::filesystem::path&, const Parameters<bf16>&);
template void save(const std::filesystem::path&,
                   const Parameters<float>&,
                   const optim::SgdState<float>&);
template void save(const std::filesystem::path&,
                   const Parameters<double>&,
                   const optim::SgdState<double>&);
template void save(const std::filesystem::path&,
                   const Parameters<float>&,
                   const optim::AdamState<float>&);
template void save(const std::filesystem::path&,
                   const Parameters<double>&,
                   const optim::AdamState<double>&);
template Parameters<float> load(const std::filesystem::path&, const Network<float>&);
template Parameters<double> load(const std::filesystem::path&, const Network<double>&);
template Parameters<bf16> load(const std::filesystem::path&, const Network<bf16>&);
template optim::SgdState<float> load_sgd_state(const std::filesystem::path&, const Network<float>&);
template optim::SgdState<double> load_sgd_state(const std::filesystem::path&,
                                                const Network<double>&);
template optim::AdamState<float> load_adam_state(const std::filesystem::path&,
                                                 const Network<float>&);
template optim::AdamState<double> load_adam_state(const std::filesystem::path&,
                                                  const Network<double>&);

template Parameters<float> load_from_bytes(std::span<const std::byte>,
                                           const Network<float>&,
                                           const std::string&);
template Parameters<double> load_from_bytes(std::span<const std::byte>,
                                            const Network<double>&,
                                            const std::string&);
template Parameters<bf16> load_from_bytes(std::span<const std::byte>,
                                          const Network<bf16>&,
                                          const std::string&);
template optim::SgdState<float> load_sgd_state_from_bytes(std::span<const std::byte>,
                                                          const Network<float>&,
                                                          const std::string&);
template optim::SgdState<double> load_sgd_state_from_bytes(std::span<const std::byte>,
                                                           const Network<double>&,
                                                           const std::string&);
template optim::AdamState<float> load_adam_state_from_bytes(std::span<const std::byte>,
                                                            const Network<float>&,
                                                            const std::string&);
template optim::AdamState<double> load_adam_state_from_bytes(std::span<const std::byte>,
                                                             const Network<double>&,
                                                             const std::string&);

}  // namespace topos::checkpoint
