// The ONNX model as plain data: what proto_reader.cpp makes of a ModelProto,
// so that nothing past the reader sees protobuf. Nodes are kept in an order in
// which every name is defined before it is read (graph_order.cpp checks it).
#pragma once

#include "onnx/constant.hpp"
#include <topos/onnx/model.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace topos::onnx::detail {

// One attribute of a node, of one of the kinds ONNX has.
struct AttributeDef {
    enum class Kind : std::uint8_t {
        Int,
        Float,
        String,
        Ints,
        Floats,
        Strings,
        Tensor,
        Graph,  // a subgraph (If, Loop): never imported
        Other,  // sparse tensors, type protos
    };
    std::string name;
    Kind kind = Kind::Other;
    std::int64_t integer = 0;
    double real = 0;
    std::string text;
    std::vector<std::int64_t> integers;
    std::vector<double> reals;
    std::vector<std::string> texts;
    std::shared_ptr<const Constant> tensor;
};

// A node's inputs or outputs by name. Reading past the last one gives "", an
// omitted optional input, so a rule that reads input 2 of a node the file gave
// one input never reads outside the list: the name "" is then refused as a
// missing input (a ModelError), whatever the file holds.
class Names : public std::vector<std::string> {
public:
    using std::vector<std::string>::vector;

    const std::string& operator[](std::size_t index) const {
        return index < size() ? std::vector<std::string>::operator[](index) : none();
    }

    const std::string& at(std::size_t index) const { return (*this)[index]; }

private:
    static const std::string& none() {
        static const std::string empty;
        return empty;
    }
};

// One node: its operator, its inputs and outputs by name ("" for an omitted
// optional input) and its attributes.
struct NodeDef {
    std::string name;  // as the file names it, or "#<index>"
    std::string operator_type;
    std::string domain;  // "" for the default domain ("ai.onnx")
    Names inputs;
    Names outputs;
    std::vector<AttributeDef> attributes;

    // The attribute of that name, or nullptr.
    const AttributeDef* attribute(std::string_view name) const;
};

// A graph input or output.
struct PortDef {
    Port port;
    DataType type = DataType::Undefined;
};

struct ModelDef {
    std::int64_t opset = 0;  // of the default domain
    std::vector<NodeDef> nodes;
    std::vector<PortDef> inputs;  // without the initializers
    std::vector<PortDef> outputs;
    std::map<std::string, std::shared_ptr<const Constant>, std::less<>> initializers;
};

// The bytes of a serialized ModelProto as plain data, its nodes in order.
// Throws ModelError for bytes that are not a well-formed model.
std::shared_ptr<ModelDef> read_model_proto(std::span<const std::byte> bytes, Summary& summary);

// Puts the nodes in an order where every name is defined before it is read.
// Throws ModelError naming a name that is read and never defined, a name
// defined twice, or the nodes of a cycle.
void order_nodes(ModelDef& model);

}  // namespace topos::onnx::detail
