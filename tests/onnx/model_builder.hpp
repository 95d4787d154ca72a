// ModelBuilder: small ONNX models written in a test, node by node, with
// ONNX's own protobuf classes, and serialized to the bytes Model::parse reads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <onnx/onnx_pb.h>
#include <string>
#include <vector>

namespace topos::onnx::testing {

class ModelBuilder {
public:
    explicit ModelBuilder(std::int64_t opset = 13) {
        model_.set_ir_version(8);
        model_.set_producer_name("topos-tests");
        auto* import = model_.add_opset_import();
        import->set_domain("");
        import->set_version(opset);
    }

    // A float32 graph input; an extent below 0 is the symbolic axis `symbol`.
    ModelBuilder& input(const std::string& name,
                        const std::vector<std::int64_t>& extents,
                        const std::string& symbol = "batch",
                        ::onnx::TensorProto::DataType type = ::onnx::TensorProto::FLOAT) {
        describe(*model_.mutable_graph()->add_input(), name, extents, symbol, type);
        return *this;
    }

    ModelBuilder& output(const std::string& name, const std::vector<std::int64_t>& extents = {}) {
        describe(*model_.mutable_graph()->add_output(),
                 name,
                 extents,
                 "batch",
                 ::onnx::TensorProto::FLOAT);
        return *this;
    }

    // A float32 initializer holding `values` (as many as the extents say, unless a test lies).
    ModelBuilder& initializer(const std::string& name,
                              const std::vector<std::int64_t>& extents,
                              const std::vector<float>& values) {
        auto* tensor = model_.mutable_graph()->add_initializer();
        tensor->set_name(name);
        tensor->set_data_type(::onnx::TensorProto::FLOAT);
        for (std::int64_t extent : extents) {
            tensor->add_dims(extent);
        }
        for (float value : values) {
            tensor->add_float_data(value);
        }
        return *this;
    }

    // A node; its attributes are added to the returned proto.
    ::onnx::NodeProto& node(const std::string& type,
                            const std::vector<std::string>& inputs,
                            const std::vector<std::string>& outputs,
                            const std::string& name = "") {
        auto* node = model_.mutable_graph()->add_node();
        node->set_op_type(type);
        node->set_name(name);
        for (const auto& input : inputs) {
            node->add_input(input);
        }
        for (const auto& output : outputs) {
            node->add_output(output);
        }
        return *node;
    }

    static void integer_attribute(::onnx::NodeProto& node,
                                  const std::string& name,
                                  std::int64_t value) {
        auto* attribute = node.add_attribute();
        attribute->set_name(name);
        attribute->set_type(::onnx::AttributeProto::INT);
        attribute->set_i(value);
    }

    std::vector<std::byte> bytes() const {
        const std::string text = model_.SerializeAsString();
        std::vector<std::byte> serialized(text.size());
        for (std::size_t index = 0; index < text.size(); ++index) {
            serialized[index] = static_cast<std::byte>(text[index]);
        }
        return serialized;
    }

    ::onnx::ModelProto& proto() { return model_; }

private:
    static void describe(::onnx::ValueInfoProto& info,
                         const std::string& name,
                         const std::vector<std::int64_t>& extents,
                         const std::string& symbol,
                         ::onnx::TensorProto::DataType type) {
        info.set_name(name);
        auto* tensor = info.mutable_type()->mutable_tensor_type();
        tensor->set_elem_type(type);
        auto* shape = tensor->mutable_shape();
        for (std::int64_t extent : extents) {
            auto* dimension = shape->add_dim();
            if (extent < 0) {
                dimension->set_dim_param(symbol);
            } else {
                dimension->set_dim_value(extent);
            }
        }
    }

    ::onnx::ModelProto model_;
};

}  // namespace topos::onnx::testing
