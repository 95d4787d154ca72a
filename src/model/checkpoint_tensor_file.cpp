// Named tensors of any safetensors file: the list its header declares, one
// tensor read alone (bit for bit in its own type, or converted when asked),
// and a file of tensors written in one element type.
#include "model/checkpoint_file.hpp"
#include "model/checkpoint_names.hpp"
#include "model/checkpoint_tensors.hpp"
#include "model/safetensors.hpp"
#include <topos/core/error.hpp>
#include <topos/model/checkpoint.hpp>

#include <algorithm>
#include <cstddef>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace topos::checkpoint {

namespace {

// Up to three names of the file that share the longest start with `wanted`,
// for a message about a name the file lacks.
std::string nearest_names(const detail::SafetensorsHeader& header, const std::string& wanted) {
    std::vector<std::pair<std::size_t, std::string>> scored;
    for (const auto& [name, entry] : header.tensors) {
        const auto mismatch = std::mismatch(wanted.begin(), wanted.end(), name.begin(), name.end());
        scored.emplace_back(static_cast<std::size_t>(mismatch.first - wanted.begin()), name);
    }
    std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) {
        return a.first > b.first;
    });
    std::string text;
    for (std::size_t i = 0; i < scored.size() && i < 3; ++i) {
        text += (i > 0 ? ", " : "") + detail::printable_name(scored[i].second);
    }
    return text;
}

template <TensorElement T>
void check_readable(const std::string& origin,
                    const std::string& name,
                    const detail::TensorEntry& entry,
                    ReadOptions options) {
    if (const std::string problem = detail::unreadable_dtype<T>(entry.dtype, options.convert);
        !problem.empty()) {
        throw CheckpointError("the tensor " + detail::printable_name(name) + " of " + origin +
                              " is " + problem);
    }
}

}  // namespace

std::vector<StoredTensor> tensors_in(const std::filesystem::path& path) {
    const detail::SafetensorsReader reader(path);
    std::vector<StoredTensor> tensors;
    tensors.reserve(reader.header().tensors.size());
    for (const auto& [name, entry] : reader.header().tensors) {
        tensors.push_back({name, entry.dtype, entry.shape});
    }
    return tensors;
}

template <TensorElement T>
Tensor<T> read_tensor(const std::filesystem::path& path,
                      const std::string& name,
                      ReadOptions options) {
    detail::SafetensorsReader reader(path);
    const auto found = reader.header().tensors.find(name);
    if (found == reader.header().tensors.end()) {
        throw CheckpointError(
            "the checkpoint " + path.string() + " has no tensor " + detail::printable_name(name) +
            (reader.header().tensors.empty()
                 ? " (it holds none)"
                 : "; the nearest names: " + nearest_names(reader.header(), name)));
    }
    const detail::TensorEntry& entry = found->second;
    check_readable<T>(path.string(), name, entry, options);
    const std::vector<std::byte> bytes = reader.read_tensor(entry);
    if (entry.dtype == detail::dtype_name<T>()) {
        return detail::from_little_endian<T>(bytes, entry.shape);
    }
    return detail::converted_from<T>(bytes, entry.dtype, entry.shape);
}

template <TensorElement T>
void save_tensors(const std::filesystem::path& path,
                  const std::vector<std::pair<std::string, Tensor<T>>>& tensors) {
    std::vector<std::string> names;
    names.reserve(tensors.size());
    for (const auto& [name, tensor] : tensors) {
        names.push_back(name);
    }
    detail::check_names_storable(
        path, names, "tensors", [](std::size_t i) { return "tensors[" + std::to_string(i) + "]"; });
    std::vector<detail::TensorToWrite> written;
    written.reserve(tensors.size());
    for (const auto& [name, tensor] : tensors) {
        written.push_back(
            {name, detail::dtype_name<T>(), tensor.shape(), detail::little_endian_bytes(tensor)});
    }
    detail::replace_file_atomically(path, detail::encode_safetensors(written, {}));
}

template Tensor<float> read_tensor(const std::filesystem::path&, const std::string&, ReadOptions);
template Tensor<double> read_tensor(const std::filesystem::path&, const std::string&, ReadOptions);
template Tensor<bf16> read_tensor(const std::filesystem::path&, const std::string&, ReadOptions);
template void save_tensors(const std::filesystem::path&,
                           const std::vector<std::pair<std::string, Tensor<float>>>&);
template void save_tensors(const std::filesystem::path&,
                           const std::vector<std::pair<std::string, Tensor<double>>>&);
template void save_tensors(const std::filesystem::path&,
                           const std::vector<std::pair<std::string, Tensor<bf16>>>&);

}  // namespace topos::checkpoint
