// The one file that reads protobuf: a serialized ModelProto becomes a ModelDef
// of plain data and a Summary. Every tensor's data is checked against its
// shape here, so that nothing later reads past what a file holds.
#include "onnx/proto_reader.hpp"

#include "onnx/model_def.hpp"
#include <topos/onnx/errors.hpp>

#include <bit>
#include <climits>
#include <cstring>
#include <limits>
#include <onnx/onnx_pb.h>
#include <string>
#include <utility>

namespace topos::onnx::detail {
namespace {

[[noreturn]] void malformed(const std::string& what) {
    throw ModelError("not a well-formed ONNX model: " + what);
}

float float_of_half(std::uint16_t bits) {
    const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000U) << 16U;
    std::uint32_t exponent = (bits >> 10U) & 0x1fU;
    std::uint32_t mantissa = bits & 0x3ffU;
    if (exponent == 0x1fU) {
        return std::bit_cast<float>(sign | 0x7f800000U | (mantissa << 13U));
    }
    if (exponent == 0) {
        if (mantissa == 0) {
            return std::bit_cast<float>(sign);
        }
        // A subnormal half is mantissa * 2^-24, exactly representable in float.
        const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
        return sign != 0 ? -magnitude : magnitude;
    }
    exponent += 127 - 15;
    return std::bit_cast<float>(sign | (exponent << 23U) | (mantissa << 13U));
}

float float_of_bfloat16(std::uint16_t bits) {
    return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16U);
}

std::size_t element_bytes(DataType type) {
    switch (type) {
        case DataType::Bool:
        case DataType::Uint8:
        case DataType::Int8:
            return 1;
        case DataType::Uint16:
        case DataType::Int16:
        case DataType::Float16:
        case DataType::Bfloat16:
            return 2;
        case DataType::Int32:
        case DataType::Uint32:
        case DataType::Float:
            return 4;
        case DataType::Int64:
        case DataType::Uint64:
        case DataType::Double:
            return 8;
        default:
            return 0;
    }
}

// One element of little-endian raw data.
template <class Bits>
Bits load(const char* bytes) {
    Bits bits;
    std::memcpy(&bits, bytes, sizeof(Bits));
    return bits;
}

void decode_raw(const std::string& raw, Constant& constant, const std::string& where) {
    const std::size_t size = element_bytes(constant.type);
    if (raw.size() != constant.elements() * size) {
        malformed(where + " holds " + std::to_string(raw.size()) +
                  " bytes of data where its shape needs " +
                  std::to_string(constant.elements() * size));
    }
    if (is_real(constant.type)) {
        constant.reals.reserve(constant.elements());
    } else {
        constant.integers.reserve(constant.elements());
    }
    for (std::size_t at = 0; at < raw.size(); at += size) {
        const char* bytes = raw.data() + at;
        switch (constant.type) {
            case DataType::Float:
                constant.reals.push_back(load<float>(bytes));
                break;
            case DataType::Double:
                constant.reals.push_back(load<double>(bytes));
                break;
            case DataType::Float16:
                constant.reals.push_back(float_of_half(load<std::uint16_t>(bytes)));
                break;
            case DataType::Bfloat16:
                constant.reals.push_back(float_of_bfloat16(load<std::uint16_t>(bytes)));
                break;
            case DataType::Bool:
                constant.integers.push_back(load<std::uint8_t>(bytes) != 0 ? 1 : 0);
                break;
            case DataType::Uint8:
                constant.integers.push_back(load<std::uint8_t>(bytes));
                break;
            case DataType::Int8:
                constant.integers.push_back(load<std::int8_t>(bytes));
                break;
            case DataType::Uint16:
                constant.integers.push_back(load<std::uint16_t>(bytes));
                break;
            case DataType::Int16:
                constant.integers.push_back(load<std::int16_t>(bytes));
                break;
            case DataType::Int32:
                constant.integers.push_back(load<std::int32_t>(bytes));
                break;
            case DataType::Uint32:
                constant.integers.push_back(load<std::uint32_t>(bytes));
                break;
            case DataType::Int64:
                constant.integers.push_back(load<std::int64_t>(bytes));
                break;
            case DataType::Uint64:
                constant.integers.push_back(static_cast<std::int64_t>(load<std::uint64_t>(bytes)));
                break;
            default:
                malformed(where + " has raw data of type " + type_name(constant.type));
        }
    }
}

void decode_fields(const ::onnx::TensorProto& tensor, Constant& constant) {
    switch (constant.type) {
        case DataType::Float:
            constant.reals.assign(tensor.float_data().begin(), tensor.float_data().end());
            break;
        case DataType::Double:
            constant.reals.assign(tensor.double_data().begin(), tensor.double_data().end());
            break;
        case DataType::Float16:
        case DataType::Bfloat16:
            for (std::int32_t bits : tensor.int32_data()) {
                const auto half = static_cast<std::uint16_t>(bits);
                constant.reals.push_back(constant.type == DataType::Float16
                                             ? float_of_half(half)
                                             : float_of_bfloat16(half));
            }
            break;
        case DataType::Bool:
        case DataType::Uint8:
        case DataType::Int8:
        case DataType::Uint16:
        case DataType::Int16:
        case DataType::Int32:
            for (std::int32_t value : tensor.int32_data()) {
                constant.integers.push_back(constant.type == DataType::Bool ? (value != 0) : value);
            }
            break;
        case DataType::Int64:
            constant.integers.assign(tensor.int64_data().begin(), tensor.int64_data().end());
            break;
        case DataType::Uint32:
        case DataType::Uint64:
            for (std::uint64_t value : tensor.uint64_data()) {
                constant.integers.push_back(static_cast<std::int64_t>(value));
            }
            break;
        default:
            break;
    }
}

}  // namespace

Constant read_tensor(const ::onnx::TensorProto& tensor, const std::string& where) {
    Constant constant;
    constant.type = static_cast<DataType>(tensor.data_type());
    if (!is_real(constant.type) && !is_integral(constant.type)) {
        throw ImportError({{where, "", 0, "tensor of element type " + type_name(constant.type)}});
    }
    if (tensor.data_location() == ::onnx::TensorProto::EXTERNAL) {
        throw ImportError(
            {{where,
              "",
              0,
              "tensor data in an external file (save the model with its data inside)"}});
    }
    std::size_t elements = 1;
    for (std::int64_t extent : tensor.dims()) {
        if (extent < 0 ||
            (extent > 0 && elements > (std::size_t{1} << 40U) / static_cast<std::size_t>(extent))) {
            malformed(where + " has the extent " + std::to_string(extent));
        }
        elements *= static_cast<std::size_t>(extent);
        constant.extents.push_back(extent);
    }
    if (tensor.has_raw_data()) {
        decode_raw(tensor.raw_data(), constant, where);
        return constant;
    }
    decode_fields(tensor, constant);
    const std::size_t held =
        is_real(constant.type) ? constant.reals.size() : constant.integers.size();
    if (held != elements) {
        malformed(where + " holds " + std::to_string(held) + " elements where its shape " +
                  "needs " + std::to_string(elements));
    }
    return constant;
}

Constant parse_tensor(std::span<const std::byte> bytes, const std::string& where) {
    ::onnx::TensorProto tensor;
    if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()) ||
        !tensor.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
        malformed(where + " is not a TensorProto");
    }
    return read_tensor(tensor, where);
}

namespace {

AttributeDef read_attribute(const ::onnx::AttributeProto& attribute, const std::string& node) {
    AttributeDef definition;
    definition.name = attribute.name();
    using Proto = ::onnx::AttributeProto;
    switch (attribute.type()) {
        case Proto::INT:
            definition.kind = AttributeDef::Kind::Int;
            definition.integer = attribute.i();
            break;
        case Proto::FLOAT:
            definition.kind = AttributeDef::Kind::Float;
            definition.real = attribute.f();
            break;
        case Proto::STRING:
            definition.kind = AttributeDef::Kind::String;
            definition.text = attribute.s();
            break;
        case Proto::INTS:
            definition.kind = AttributeDef::Kind::Ints;
            definition.integers.assign(attribute.ints().begin(), attribute.ints().end());
            break;
        case Proto::FLOATS:
            definition.kind = AttributeDef::Kind::Floats;
            definition.reals.assign(attribute.floats().begin(), attribute.floats().end());
            break;
        case Proto::STRINGS:
            definition.kind = AttributeDef::Kind::Strings;
            definition.texts.assign(attribute.strings().begin(), attribute.strings().end());
            break;
        case Proto::TENSOR:
            definition.kind = AttributeDef::Kind::Tensor;
            definition.tensor = std::make_shared<const Constant>(
                read_tensor(attribute.t(), "attribute " + attribute.name() + " of node " + node));
            break;
        case Proto::GRAPH:
        case Proto::GRAPHS:
            definition.kind = AttributeDef::Kind::Graph;
            break;
        default:
            definition.kind = AttributeDef::Kind::Other;
            break;
    }
    return definition;
}

PortDef read_port(const ::onnx::ValueInfoProto& info) {
    PortDef definition;
    definition.port.name = info.name();
    if (!info.type().has_tensor_type()) {
        definition.port.element_type = "not a tensor";
        return definition;
    }
    const auto& tensor = info.type().tensor_type();
    definition.type = static_cast<DataType>(tensor.elem_type());
    definition.port.element_type = type_name(definition.type);
    definition.port.has_shape = tensor.has_shape();
    for (const auto& dimension : tensor.shape().dim()) {
        Dimension axis;
        if (dimension.has_dim_value()) {
            axis.extent = dimension.dim_value();
        } else if (dimension.has_dim_param()) {
            axis.name = dimension.dim_param();
        }
        definition.port.dimensions.push_back(axis);
    }
    return definition;
}

void read_nodes(const ::onnx::GraphProto& graph, ModelDef& model, Summary& summary) {
    for (int index = 0; index < graph.node_size(); ++index) {
        const auto& proto = graph.node(index);
        NodeDef node;
        node.name = proto.name().empty() ? "#" + std::to_string(index) : proto.name();
        node.operator_type = proto.op_type();
        node.domain = proto.domain() == "ai.onnx" ? "" : proto.domain();
        node.inputs.assign(proto.input().begin(), proto.input().end());
        node.outputs.assign(proto.output().begin(), proto.output().end());
        for (const auto& attribute : proto.attribute()) {
            node.attributes.push_back(read_attribute(attribute, node.name));
        }
        const std::string counted =
            node.domain.empty() ? node.operator_type : node.domain + "." + node.operator_type;
        ++summary.operators[counted];
        model.nodes.push_back(std::move(node));
    }
}

}  // namespace

std::shared_ptr<ModelDef> read_model_proto(std::span<const std::byte> bytes, Summary& summary) {
    if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
        malformed("the file is larger than protobuf reads (2 GiB)");
    }
    ::onnx::ModelProto proto;
    if (!proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
        malformed("its bytes are not a ModelProto (truncated, or another kind of file)");
    }
    if (!proto.has_graph()) {
        malformed("it has no graph");
    }
    auto model = std::make_shared<ModelDef>();
    summary.producer = proto.producer_name();
    if (!proto.producer_version().empty()) {
        summary.producer += " " + proto.producer_version();
    }
    summary.ir_version = proto.ir_version();
    for (const auto& opset : proto.opset_import()) {
        const std::string domain = opset.domain() == "ai.onnx" ? "" : opset.domain();
        summary.opsets[domain] = opset.version();
    }
    // IR version 3 and later name their opsets; earlier files import opset 1.
    model->opset = summary.opsets.contains("") ? summary.opsets.at("") : 1;
    const auto& graph = proto.graph();
    for (const auto& initializer : graph.initializer()) {
        if (initializer.name().empty()) {
            malformed("an initializer has no name");
        }
        auto constant = std::make_shared<const Constant>(
            read_tensor(initializer, "initializer " + initializer.name()));
        summary.parameter_elements += constant->elements();
        if (!model->initializers.emplace(initializer.name(), std::move(constant)).second) {
            malformed("the initializer " + initializer.name() + " is given twice");
        }
    }
    summary.parameters = model->initializers.size();
    for (const auto& input : graph.input()) {
        // Before IR version 4 every initializer is listed among the inputs too.
        if (model->initializers.contains(input.name())) {
            continue;
        }
        model->inputs.push_back(read_port(input));
        summary.inputs.push_back(model->inputs.back().port);
    }
    for (const auto& output : graph.output()) {
        model->outputs.push_back(read_port(output));
        summary.outputs.push_back(model->outputs.back().port);
    }
    read_nodes(graph, *model, summary);
    return model;
}

}  // namespace topos::onnx::detail
