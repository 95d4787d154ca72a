// Model: a file read, its nodes ordered and checked against the rules before
// anything is recorded (so one ImportError names everything a model needs that
// the importer lacks), then recorded node by node through the rules.
#include "core/regular_file.hpp"
#include "onnx/context.hpp"
#include "onnx/model_def.hpp"
#include "onnx/rules.hpp"
#include <topos/core/error.hpp>
#include <topos/onnx/errors.hpp>
#include <topos/onnx/model.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <limits>
#include <sstream>
#include <system_error>
#include <unistd.h>
#include <utility>

namespace topos::onnx {

namespace {

std::string unsupported_lines(const std::vector<Unsupported>& unsupported) {
    std::string text = "the model uses what topos::onnx does not import:";
    for (const auto& item : unsupported) {
        text += "\n  " + item.node;
        if (!item.operator_type.empty()) {
            text += " (" + item.operator_type + ", opset " + std::to_string(item.opset) + ")";
        }
        text += ": " + item.what;
    }
    return text;
}

}  // namespace

ImportError::ImportError(std::vector<Unsupported> unsupported)
    : Error(unsupported_lines(unsupported)), unsupported_(std::move(unsupported)) {}

namespace detail {
namespace {

constexpr std::int64_t newest_opset = 17;

void check_node(const NodeDef& node, std::int64_t opset, std::vector<Unsupported>& found) {
    if (!node.domain.empty()) {
        found.push_back({node.name,
                         node.domain + "." + node.operator_type,
                         opset,
                         "operator of the domain " + node.domain});
        return;
    }
    const Rule* rule = rules().find(node.operator_type);
    if (rule == nullptr) {
        found.push_back({node.name, node.operator_type, opset, "operator"});
        return;
    }
    if (opset < rule->oldest_opset) {
        found.push_back({node.name,
                         node.operator_type,
                         opset,
                         "its form before opset " + std::to_string(rule->oldest_opset)});
        return;
    }
    for (const auto& attribute : node.attributes) {
        if (std::find(rule->attributes.begin(), rule->attributes.end(), attribute.name) ==
            rule->attributes.end()) {
            found.push_back({node.name, node.operator_type, opset, "attribute " + attribute.name});
        }
    }
}

// Everything the model needs that the rules lack, in the graph's order.
std::vector<Unsupported> check_model(const ModelDef& model) {
    std::vector<Unsupported> found;
    if (model.opset < 1 || model.opset > newest_opset) {
        found.push_back({"(model)",
                         "",
                         model.opset,
                         "opset " + std::to_string(model.opset) +
                             " of the default domain (opsets 1 to 17 are read)"});
    }
    for (const auto& input : model.inputs) {
        if (!is_real(input.type) && !is_integral(input.type)) {
            found.push_back({"(input " + input.port.name + ")",
                             "",
                             model.opset,
                             "an input of element type " + input.port.element_type});
        }
    }
    for (const auto& node : model.nodes) {
        check_node(node, model.opset, found);
    }
    return found;
}

Shape input_shape(const PortDef& input, const ImportOptions& options) {
    if (!input.port.has_shape) {
        throw ImportError({{"(input " + input.port.name + ")",
                            "",
                            0,
                            "an input whose shape the file does not declare"}});
    }
    std::vector<std::int64_t> extents;
    for (const auto& dimension : input.port.dimensions) {
        if (dimension.extent >= 0) {
            extents.push_back(dimension.extent);
            continue;
        }
        const auto named = options.dimensions.find(dimension.name);
        extents.push_back(static_cast<std::int64_t>(
            named != options.dimensions.end() ? named->second : options.default_extent));
    }
    return shape_of_extents(extents);
}

// ModelError for a known input the graph does not have.
void check_known_inputs(const ModelDef& model, const ImportOptions& options) {
    for (const auto& known : options.known_inputs) {
        const std::string& name = known.first;
        const bool found =
            std::any_of(model.inputs.begin(), model.inputs.end(), [&](const PortDef& input) {
                return input.port.name == name;
            });
        if (!found) {
            std::string names;
            for (const auto& input : model.inputs) {
                names += (names.empty() ? "" : ", ") + input.port.name;
            }
            std::string message = "ImportOptions::known_inputs names " + name;
            message += ", which is not an input of the graph (its inputs: ";
            message += names;
            message += ")";
            throw ModelError(message);
        }
    }
}

// A known input's value as a constant of the input's element type; ModelError
// where its shape contradicts an extent the file declares.
Constant known_constant(const PortDef& input, const Tensor<double>& value) {
    const auto extents = extents_of_shape(value.shape());
    const auto& declared = input.port.dimensions;
    bool fits = !input.port.has_shape || declared.size() == extents.size();
    for (std::size_t axis = 0; fits && axis < declared.size(); ++axis) {
        fits = declared[axis].extent < 0 || declared[axis].extent == extents[axis];
    }
    if (!fits) {
        throw ModelError("the known input " + input.port.name + " has the shape " +
                         value.shape().str() + ", which its declaration in the file contradicts");
    }
    const DataType type =
        is_real(input.type) || is_integral(input.type) ? input.type : DataType::Double;
    const auto data = value.data();
    return Constant::of_reals(type, extents, std::vector<double>(data.begin(), data.end()));
}

template <Element T>
void record_node(Context<T>& context, const NodeDef& node, std::int64_t opset) {
    const Rule* rule = rules().find(node.operator_type);
    try {
        rule->recorder<T>()(context, node);
    } catch (const NotHandled& refusal) {
        throw ImportError({{node.name, node.operator_type, opset, refusal.what, refusal.value}});
    } catch (const ImportError&) {
        throw;
    } catch (const ModelError&) {
        throw;
    } catch (const Error& error) {
        throw ModelError("node " + node.name + " (" + node.operator_type + "): " + error.what());
    }
}

template <Element T>
std::vector<NamedValue<T>> record_graph(Context<T>& context, const ModelDef& model) {
    for (const auto& node : model.nodes) {
        record_node(context, node, model.opset);
    }
    std::vector<NamedValue<T>> outputs;
    for (const auto& output : model.outputs) {
        try {
            outputs.push_back({output.port.name, context.output(output.port.name)});
        } catch (const NotHandled& refusal) {
            throw ImportError({{"(output " + output.port.name + ")",
                                "",
                                model.opset,
                                refusal.what,
                                refusal.value}});
        }
    }
    return outputs;
}

// The whole file, read with one descriptor; only a regular file is opened, and
// one larger than protobuf parses (2 GiB) is refused before it is read.
std::vector<std::byte> file_bytes(const std::filesystem::path& path) {
    const topos::detail::RegularFile file = topos::detail::open_regular_file(path);
    if (file.descriptor < 0) {
        throw ModelError("cannot read the model file " + path.string() + ": " +
                         (file.error != 0 ? std::generic_category().message(file.error)
                                          : "it is " + topos::detail::file_kind(file.mode)));
    }
    const topos::detail::OwnedDescriptor owned(file.descriptor);
    if (file.bytes > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) {
        throw ModelError("the model file " + path.string() +
                         " is larger than protobuf reads (2 GiB)");
    }
    std::vector<std::byte> bytes(static_cast<std::size_t>(file.bytes));
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t got = ::read(owned.get(), bytes.data() + done, bytes.size() - done);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got <= 0) {
            throw ModelError("cannot read the model file " + path.string() + ": " +
                             (got < 0 ? std::generic_category().message(errno) : "it ended early"));
        }
        done += static_cast<std::size_t>(got);
    }
    return bytes;
}

}  // namespace
}  // namespace detail

Model::Model(std::shared_ptr<const detail::ModelDef> definition, Summary summary)
    : definition_(std::move(definition)), summary_(std::move(summary)) {}

Model Model::read(const std::filesystem::path& path) {
    return parse(detail::file_bytes(path));
}

Model Model::parse(std::span<const std::byte> bytes) {
    Summary summary;
    std::shared_ptr<detail::ModelDef> definition = detail::read_model_proto(bytes, summary);
    detail::order_nodes(*definition);
    auto unsupported = detail::check_model(*definition);
    if (!unsupported.empty()) {
        throw ImportError(std::move(unsupported));
    }
    return Model(std::move(definition), std::move(summary));
}

const Summary& Model::summary() const {
    return summary_;
}

template <Element T>
Imported<T> Model::import(const ImportOptions& options) const {
    Imported<T> imported;
    detail::Context<T> context(imported.tape, *definition_, nullptr);
    detail::check_known_inputs(*definition_, options);
    for (const auto& input : definition_->inputs) {
        const auto known = options.known_inputs.find(input.port.name);
        if (known != options.known_inputs.end()) {
            context.define_known(input, detail::known_constant(input, known->second));
            continue;
        }
        imported.inputs.push_back(
            {input.port.name, context.define_input(input, detail::input_shape(input, options))});
    }
    imported.outputs = detail::record_graph(context, *definition_);
    imported.named_parameters_ = context.parameters();
    return imported;
}

template <Element T>
std::vector<NamedValue<T>> Model::record(Tape<T>& tape,
                                         std::span<const Value<T>> inputs,
                                         const std::vector<NamedParameter>& parameters) const {
    if (inputs.size() != definition_->inputs.size()) {
        throw Error("Model::record: the graph has " + std::to_string(definition_->inputs.size()) +
                    " inputs, and " + std::to_string(inputs.size()) + " values are given");
    }
    std::map<std::string, Symbol, std::less<>> by_name;
    for (const auto& parameter : parameters) {
        by_name.emplace(parameter.name, parameter.symbol);
    }
    detail::Context<T> context(tape, *definition_, &by_name);
    for (std::size_t index = 0; index < inputs.size(); ++index) {
        context.bind(definition_->inputs[index], inputs[index]);
    }
    return detail::record_graph(context, *definition_);
}

template <Element T>
Value<T> Imported<T>::input(std::string_view name) const {
    for (const auto& named : inputs) {
        if (named.name == name) {
            return named.value;
        }
    }
    std::string names;
    for (const auto& named : inputs) {
        names += (names.empty() ? "" : ", ") + named.name;
    }
    throw SymbolError("the model has no input " + std::string(name) + " (its inputs: " + names +
                      ")");
}

template <Element T>
Value<T> Imported<T>::output(std::string_view name) const {
    for (const auto& named : outputs) {
        if (named.name == name) {
            return named.value;
        }
    }
    std::string names;
    for (const auto& named : outputs) {
        names += (names.empty() ? "" : ", ") + named.name;
    }
    throw SymbolError("the model has no output " + std::string(name) + " (its outputs: " + names +
                      ")");
}

template <Element T>
std::vector<Symbol> Imported<T>::parameters() const {
    std::vector<Symbol> symbols;
    symbols.reserve(named_parameters_.size());
    for (const auto& parameter : named_parameters_) {
        symbols.push_back(parameter.symbol);
    }
    return symbols;
}

template <Element T>
Imported<T> import(const std::filesystem::path& path, const ImportOptions& options) {
    return Model::read(path).import <T>(options);
}

namespace {

std::string port_line(const Port& port) {
    std::string line = "  " + port.name + " " + port.element_type + " ";
    if (!port.has_shape) {
        return line + "(shape not declared)";
    }
    line += "[";
    for (std::size_t axis = 0; axis < port.dimensions.size(); ++axis) {
        const Dimension& dimension = port.dimensions[axis];
        line += axis == 0 ? "" : ", ";
        if (dimension.extent >= 0) {
            line += std::to_string(dimension.extent);
        } else {
            line += dimension.name.empty() ? "?" : dimension.name;
        }
    }
    return line + "]";
}

}  // namespace

std::string Summary::describe() const {
    std::ostringstream out;
    out << "producer: " << (producer.empty() ? "(not named)" : producer) << " (IR version "
        << ir_version << ")\n";
    out << "opsets:";
    for (const auto& [domain, version] : opsets) {
        out << " " << (domain.empty() ? "ai.onnx" : domain) << " " << version;
    }
    out << "\ninputs:\n";
    for (const auto& input : inputs) {
        out << port_line(input) << "\n";
    }
    out << "outputs:\n";
    for (const auto& output : outputs) {
        out << port_line(output) << "\n";
    }
    std::size_t nodes = 0;
    for (const auto& [type, count] : operators) {
        nodes += count;
    }
    out << "operators: " << nodes << (nodes == 1 ? " node" : " nodes");
    for (const auto& [type, count] : operators) {
        out << (type == operators.begin()->first ? ": " : ", ") << type << " " << count;
    }
    out << "\nparameters: " << parameters
        << (parameters == 1 ? " initializer, " : " initializers, ") << parameter_elements
        << (parameter_elements == 1 ? " element\n" : " elements\n");
    return out.str();
}

template struct Imported<float>;
template Imported<float> Model::import <float>(const ImportOptions&) const;
template std::vector<NamedValue<float>> Model::record<float>(
    Tape<float>&, std::span<const Value<float>>, const std::vector<NamedParameter>&) const;
template Imported<float> import <float>(const std::filesystem::path&, const ImportOptions&);

template struct Imported<double>;
template Imported<double> Model::import <double>(const ImportOptions&) const;
template std::vector<NamedValue<double>> Model::record<double>(
    Tape<double>&, std::span<const Value<double>>, const std::vector<NamedParameter>&) const;
template Imported<double> import <double>(const std::filesystem::path&, const ImportOptions&);

template struct Imported<bf16>;
template Imported<bf16> Model::import <bf16>(const ImportOptions&) const;
template std::vector<NamedValue<bf16>> Model::record<bf16>(
    Tape<bf16>&, std::span<const Value<bf16>>, const std::vector<NamedParameter>&) const;
template Imported<bf16> import <bf16>(const std::filesystem::path&, const ImportOptions&);

}  // namespace topos::onnx
