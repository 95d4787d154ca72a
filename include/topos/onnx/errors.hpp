// The errors of topos::onnx. A model that uses what the importer does not
// handle is refused with one ImportError naming everything it cannot import,
// node by node; a file that is not a well-formed model (truncated protobuf,
// data that does not match its shape, a cycle, an undefined name) is refused
// with a ModelError. Neither ever leaves a half-recorded tape behind that a
// caller could mistake for the model.
#pragma once

#include <topos/core/error.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace topos::onnx {

// One thing the importer cannot import: an operator it does not know, or an
// attribute (or attribute value, or element type) of one it knows.
struct Unsupported {
    std::string node;           // the node's name, or "#<index>" for an unnamed node
    std::string operator_type;  // "Conv", "com.microsoft.FusedConv"
    std::int64_t opset = 0;     // the opset version the model imports for its domain
    std::string what;           // "operator", or what about it: "attribute auto_pad=VALID"
    // The value that must be known while recording and is not, where that is
    // what stopped the import: a graph input named here can be given in
    // ImportOptions::known_inputs.
    std::string value = {};

    // Memberwise equality.
    friend bool operator==(const Unsupported&, const Unsupported&) = default;
};

// The model uses operators or attributes the importer does not handle; what()
// lists them all, one line each.
class ImportError : public Error {
public:
    explicit ImportError(std::vector<Unsupported> unsupported);

    // Everything that stopped the import, in the graph's order.
    const std::vector<Unsupported>& unsupported() const { return unsupported_; }

private:
    std::vector<Unsupported> unsupported_;
};

// The file is not a well-formed ONNX model, or a shape in it contradicts the
// operators it feeds; what() says where.
class ModelError : public Error {
public:
    using Error::Error;
};

}  // namespace topos::onnx
