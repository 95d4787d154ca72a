#include "model/safetensors.hpp"
#include <topos/core/error.hpp>
#include <topos/model/checkpoint.hpp>

#include <algorithm>
#include <bit>
#include <charconv>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <vector>

namespace topos::checkpoint {
namespace {

using detail::SafetensorsFile;
using detail::StoredTensor;
using detail::TensorToWrite;

template <Element T>
using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;

template <Element T>
const char* dtype_name() {
    return sizeof(T) == 4 ? "F32" : "F64";
}

const std::string optimizer_prefix = "optimizer.";

template <Element T>
std::vector<std::byte> little_endian_bytes(const Tensor<T>& tensor) {
    std::vector<std::byte> bytes;
    bytes.reserve(tensor.elements() * sizeof(T));
    for (const T value : tensor.data()) {
        const Bits<T> bits = std::bit_cast<Bits<T>>(value);
        for (std::size_t i = 0; i < sizeof(T); ++i) {
            bytes.push_back(static_cast<std::byte>((bits >> (8 * i)) & 0xff));
        }
    }
    return bytes;
}

template <Element T>
Tensor<T> from_little_endian(const StoredTensor& stored) {
    return Tensor<T>::generate(stored.shape, [&](std::span<T> out) {
        for (std::size_t e = 0; e < out.size(); ++e) {
            Bits<T> bits = 0;
            for (std::size_t i = 0; i < sizeof(T); ++i) {
                bits |= static_cast<Bits<T>>(stored.bytes[e * sizeof(T) + i]) << (8 * i);
            }
            out[e] = std::bit_cast<T>(bits);
        }
    });
}

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
    const std::vector<std::byte> bytes = detail::encode_safetensors(tensors, metadata);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) {
        throw CheckpointError("could not write the checkpoint " + path.string() +
                              " (check that its folder exists and is writable)");
    }
}

SafetensorsFile read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw CheckpointError("could not open the checkpoint " + path.string());
    }
    in.seekg(0, std::ios::end);
    const std::streamoff size = in.tellg();
    in.seekg(0, std::ios::beg);
    if (!in || size < 0) {
        throw CheckpointError("could not read the checkpoint " + path.string() +
                              " (it must be a regular file)");
    }
    std::vector<std::byte> bytes(static_cast<std::size_t>(size));
    if (!bytes.empty() && !in.read(reinterpret_cast<char*>(bytes.data()), size)) {
        throw CheckpointError("could not read the checkpoint " + path.string());
    }
    return detail::parse_safetensors(std::move(bytes), path.string());
}

// Collects what does not match, to report the problems together (the first
// `shown` of them, and how many more).
class Mismatches {
public:
    static constexpr std::size_t shown = 8;

    void add(std::string problem) { problems_.push_back(std::move(problem)); }

    void throw_if_any(const std::filesystem::path& path, const std::string& what) const {
        if (problems_.empty()) {
            return;
        }
        std::ostringstream message;
        message << "the checkpoint " << path.string() << " does not match " << what << ":";
        for (std::size_t i = 0; i < problems_.size() && i < shown; ++i) {
            message << "\n  " << problems_[i];
        }
        if (problems_.size() > shown) {
            message << "\n  and " << problems_.size() - shown << " more";
        }
        throw CheckpointError(message.str());
    }

private:
    std::vector<std::string> problems_;
};

// One tensor per parameter of `like`, named prefix + tensor_name, checked.
template <Element T>
Parameters<T> read_slots(const SafetensorsFile& file,
                         const std::string& prefix,
                         const Parameters<T>& like,
                         Mismatches& mismatches) {
    std::vector<Tensor<T>> values;
    for (std::size_t slot = 0; slot < like.size(); ++slot) {
        const std::string name = prefix + tensor_name(like.symbols()[slot]);
        const Shape& shape = like.values()[slot].shape();
        const auto found = file.tensors.find(name);
        if (found == file.tensors.end()) {
            mismatches.add(name + ": missing (the network has a parameter of shape " + shape.str() +
                           " at node " + std::to_string(like.symbols()[slot].index()) + ")");
        } else if (found->second.dtype != dtype_name<T>()) {
            mismatches.add(name + ": stored as " + found->second.dtype + ", the network holds " +
                           dtype_name<T>() + " (load it into a Network<" +
                           (found->second.dtype == "F32" ? "float" : "double") +
                           "> or convert the file)");
        } else if (!(found->second.shape == shape)) {
            mismatches.add(name + ": shape " + found->second.shape.str() +
                           " in the file, the network's parameter has shape " + shape.str());
        } else {
            values.push_back(from_little_endian<T>(found->second));
            continue;
        }
        values.push_back(like.values()[slot]);
    }
    return like.with_values(std::move(values));
}

// Names in the order a reader expects: parameter.9 before parameter.10.
bool natural_less(const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() < b.size() : a < b;
}

template <Element T>
void check_no_strangers(const SafetensorsFile& file,
                        const Parameters<T>& like,
                        Mismatches& mismatches) {
    std::set<std::string> known;
    for (const Symbol symbol : like.symbols()) {
        known.insert(tensor_name(symbol));
    }
    std::vector<std::string> strangers;
    for (const auto& [name, stored] : file.tensors) {
        if (!name.starts_with(optimizer_prefix) && !known.contains(name)) {
            strangers.push_back(name);
        }
    }
    std::ranges::sort(strangers, natural_less);
    for (const std::string& name : strangers) {
        const StoredTensor& stored = file.tensors.at(name);
        mismatches.add(name + ": not a parameter of this network (" + stored.dtype + ' ' +
                       stored.shape.str() + ")");
    }
}

std::uint64_t saved_steps(const SafetensorsFile& file,
                          const std::filesystem::path& path,
                          const std::string& optimizer) {
    const auto kind = file.metadata.find("optimizer");
    const auto steps = file.metadata.find("optimizer.steps");
    if (kind == file.metadata.end() || kind->second != optimizer || steps == file.metadata.end()) {
        throw CheckpointError("the checkpoint " + path.string() + " holds no " + optimizer +
                              " state (save it with checkpoint::save(path, parameters, state))");
    }
    std::uint64_t count = 0;
    const std::string& text = steps->second;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), count);
    if (error != std::errc() || end != text.data() + text.size()) {
        throw CheckpointError("the checkpoint " + path.string() +
                              " has an optimizer.steps that is not a count: \"" + text + "\"");
    }
    return count;
}

}  // namespace

std::string tensor_name(Symbol parameter) {
    return "parameter." + std::to_string(parameter.index());
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
    const SafetensorsFile file = read_file(path);
    const Parameters<T> like = network.parameters();
    Mismatches mismatches;
    Parameters<T> loaded = read_slots(file, "", like, mismatches);
    check_no_strangers(file, like, mismatches);
    mismatches.throw_if_any(path, "the network's parameters");
    return loaded;
}

template <Element T>
optim::SgdState<T> load_sgd_state(const std::filesystem::path& path, const Network<T>& network) {
    const SafetensorsFile file = read_file(path);
    const std::uint64_t steps = saved_steps(file, path, "sgd");
    Mismatches mismatches;
    Parameters<T> momentum =
        read_slots(file, optimizer_prefix + "momentum.", network.parameters(), mismatches);
    mismatches.throw_if_any(path, "an Sgd state for the network");
    return {.steps = steps, .momentum = std::move(momentum)};
}

template <Element T>
optim::AdamState<T> load_adam_state(const std::filesystem::path& path, const Network<T>& network) {
    const SafetensorsFile file = read_file(path);
    const std::uint64_t steps = saved_steps(file, path, "adam");
    const Parameters<T> like = network.parameters();
    Mismatches mismatches;
    Parameters<T> first = read_slots(file, optimizer_prefix + "first_moment.", like, mismatches);
    Parameters<T> second = read_slots(file, optimizer_prefix + "second_moment.", like, mismatches);
    mismatches.throw_if_any(path, "an Adam state for the network");
    return {.steps = steps, .first_moment = std::move(first), .second_moment = std::move(second)};
}

template void save(const std::filesystem::path&, const Parameters<float>&);
template void save(const std::filesystem::path&, const Parameters<double>&);
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
template optim::SgdState<float> load_sgd_state(const std::filesystem::path&, const Network<float>&);
template optim::SgdState<double> load_sgd_state(const std::filesystem::path&,
                                                const Network<double>&);
template optim::AdamState<float> load_adam_state(const std::filesystem::path&,
                                                 const Network<float>&);
template optim::AdamState<double> load_adam_state(const std::filesystem::path&,
                                                  const Network<double>&);

}  // namespace topos::checkpoint
