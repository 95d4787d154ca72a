// Checkpoints by name: a state_dict in the safetensors format, each parameter
// under its name and in PyTorch's layout. A save checks every name before it
// writes anything (checkpoint_names.hpp).
#include "model/checkpoint_file.hpp"
#include "model/checkpoint_names.hpp"
#include "model/checkpoint_tensors.hpp"
#include "model/safetensors.hpp"
#include <topos/core/error.hpp>
#include <topos/model/checkpoint.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace topos::checkpoint {
namespace {

using detail::Mismatches;
using detail::SafetensorsHeader;
using detail::TensorEntry;
using detail::TensorToWrite;
using detail::transposed;

// The shape a parameter has in the file.
Shape stored_shape(const NamedParameter& named, const Shape& recorded) {
    if (!named.transposed_in_pytorch) {
        return recorded;
    }
    if (recorded.rank() != 2) {
        throw CheckpointError("the parameter " + named.name +
                              " is marked as transposed in PyTorch, which only a matrix can be; "
                              "it has shape " +
                              recorded.str());
    }
    return Shape{recorded[1], recorded[0]};
}

// Checks every name before a save writes anything, so that a name the file
// cannot hold leaves the previous file as it was.
void check_names_storable(const std::filesystem::path& path,
                          const std::vector<NamedParameter>& names) {
    std::vector<std::string> texts;
    texts.reserve(names.size());
    for (const NamedParameter& named : names) {
        texts.push_back(named.name);
    }
    detail::check_names_storable(path, texts, "parameters", [&](std::size_t i) {
        return "names[" + std::to_string(i) + "], the parameter at node " +
               std::to_string(names[i].symbol.index());
    });
}

template <Element T>
void check_names_cover(const Parameters<T>& parameters, const std::vector<NamedParameter>& names) {
    std::set<std::uint32_t> named;
    for (const NamedParameter& parameter : names) {
        (void)parameters.of(parameter.symbol);  // SymbolError for a node that is no parameter
        if (!named.insert(parameter.symbol.index()).second) {
            throw CheckpointError("the parameter at node " +
                                  std::to_string(parameter.symbol.index()) +
                                  " is named twice (the second time " + parameter.name + ")");
        }
    }
    for (const Symbol symbol : parameters.symbols()) {
        if (!named.contains(symbol.index())) {
            throw CheckpointError(
                "the parameter at node " + std::to_string(symbol.index()) + " " +
                parameters.of(symbol).shape().str() +
                " has no name; a checkpoint by name needs every parameter named (list the module "
                "that holds it in named_parameters, or save by node with checkpoint::save(path, "
                "parameters))");
        }
    }
}

template <Element T>
void check_entries(const SafetensorsHeader& header,
                   const Parameters<T>& like,
                   const std::vector<NamedParameter>& names,
                   NamedLoadOptions options,
                   Mismatches& mismatches) {
    std::set<std::string> expected;
    for (const NamedParameter& named : names) {
        expected.insert(named.name);
        const Shape shape = stored_shape(named, like.of(named.symbol).shape());
        const auto found = header.tensors.find(named.name);
        if (found == header.tensors.end()) {
            mismatches.add(named.name + ": missing (the model has it with shape " + shape.str() +
                           " as stored)");
        } else if (const std::string problem =
                       detail::unreadable_dtype<T>(found->second.dtype, options.convert);
                   !problem.empty()) {
            mismatches.add(named.name + ": " + problem);
        } else if (!(found->second.shape == shape)) {
            mismatches.add(named.name + ": shape " + found->second.shape.str() +
                           " in the file, the model's is " + shape.str() +
                           (named.transposed_in_pytorch ? " (PyTorch's layout)" : ""));
        }
    }
    if (!options.strict) {
        return;
    }
    for (const auto& [name, entry] : header.tensors) {
        if (!expected.contains(name)) {
            mismatches.add(name + ": not a parameter of the model (" + entry.dtype + ' ' +
                           entry.shape.str() + "); load with {.strict = false} to ignore it");
        }
    }
}

}  // namespace

template <Element T>
void save(const std::filesystem::path& path,
          const Parameters<T>& parameters,
          const std::vector<NamedParameter>& names) {
    check_names_cover(parameters, names);
    check_names_storable(path, names);
    std::vector<TensorToWrite> tensors;
    for (const NamedParameter& named : names) {
        const Tensor<T>& value = parameters.of(named.symbol);
        const Tensor<T> stored = named.transposed_in_pytorch ? transposed(value) : value;
        (void)stored_shape(named, value.shape());
        tensors.push_back({named.name,
                           detail::dtype_name<T>(),
                           stored.shape(),
                           detail::little_endian_bytes(stored)});
    }
    detail::replace_file_atomically(
        path, detail::encode_safetensors(tensors, {{"format", "topos"}, {"names", "pytorch"}}));
}

template <Element T>
Parameters<T> load(const std::filesystem::path& path,
                   const Network<T>& network,
                   const std::vector<NamedParameter>& names,
                   NamedLoadOptions options) {
    Parameters<T> parameters = network.parameters();
    std::set<std::uint32_t> named;
    for (const NamedParameter& parameter : names) {
        (void)parameters.of(parameter.symbol);
        if (!named.insert(parameter.symbol.index()).second) {
            throw CheckpointError("the parameter at node " +
                                  std::to_string(parameter.symbol.index()) + " is named twice");
        }
    }
    detail::SafetensorsReader reader(path);
    Mismatches mismatches;
    check_entries(reader.header(), parameters, names, options, mismatches);
    mismatches.throw_if_any(path.string(), "the model's named parameters");
    const std::vector<std::byte> payload = reader.read_payload();
    // All slots replaced at once: Parameters::with copies every slot, so one
    // call per name would make a load quadratic in the number of parameters.
    std::vector<Tensor<T>> values(parameters.values().begin(), parameters.values().end());
    std::map<std::uint32_t, std::size_t> slot_of;
    for (std::size_t slot = 0; slot < parameters.symbols().size(); ++slot) {
        slot_of.emplace(parameters.symbols()[slot].index(), slot);
    }
    for (const NamedParameter& parameter : names) {
        const TensorEntry& entry = reader.header().tensors.at(parameter.name);
        const auto bytes =
            std::span<const std::byte>(payload).subspan(entry.begin, entry.end - entry.begin);
        const Tensor<T> stored = entry.dtype == detail::dtype_name<T>()
                                     ? detail::from_little_endian<T>(bytes, entry.shape)
                                     : detail::converted_from<T>(bytes, entry.dtype, entry.shape);
        values[slot_of.at(parameter.symbol.index())] =
            parameter.transposed_in_pytorch ? transposed(stored) : stored;
    }
    return parameters.with_values(std::move(values));
}

template void save(const std::filesystem::path&,
                   const Parameters<float>&,
                   const std::vector<NamedParameter>&);
template void save(const std::filesystem::path&,
                   const Parameters<double>&,
                   const std::vector<NamedParameter>&);
template Parameters<float> load(const std::filesystem::path&,
                                const Network<float>&,
                                const std::vector<NamedParameter>&,
                                NamedLoadOptions);
template Parameters<double> load(const std::filesystem::path&,
                                 const Network<double>&,
                                 const std::vector<NamedParameter>&,
                                 NamedLoadOptions);
template Parameters<bf16> load(const std::filesystem::path&,
                               const Network<bf16>&,
                               const std::vector<NamedParameter>&,
                               NamedLoadOptions);

}  // namespace topos::checkpoint
