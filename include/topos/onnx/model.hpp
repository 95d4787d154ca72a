// topos::onnx: a model exported from PyTorch (torch.onnx.export) or any other
// ONNX producer, recorded on a topos tape as catalog operations. Initializers
// become parameters under their ONNX names (so named checkpoints and PyTorch
// state dicts apply to them), graph inputs become inputs under theirs, and the
// graph's outputs come back as values by name. Shape computations (Shape,
// Constant, ConstantOfShape, Range over known shapes) fold while the model is
// recorded; symbolic axes ("batch") take the extents the caller gives.
//
//   auto model = topos::onnx::import("lenet.onnx", {.dimensions = {{"batch", 32}}});
//   Value<float> loss = cross_entropy(model.output("logits"), labels);
//   Network<float> network = std::move(model.tape).into_network();
//
// Opsets 6 to 17 of the default domain are read, with each operator's
// semantics at the version the model imports.
#pragma once

#include <topos/core/shape.hpp>
#include <topos/core/tensor.hpp>
#include <topos/graph/tape.hpp>
#include <topos/graph/value.hpp>
#include <topos/model/named.hpp>
#include <topos/onnx/errors.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace topos::onnx {

namespace detail {
struct ModelDef;
}  // namespace detail

// How a model is recorded: the extents of its symbolic axes, and the graph
// inputs whose values are known while recording.
struct ImportOptions {
    // Extents of named symbolic axes: {{"batch", 32}}.
    std::map<std::string, std::size_t, std::less<>> dimensions = {};
    // The extent of a symbolic axis the map does not name (and of an axis with no name).
    std::size_t default_extent = 1;
    // Graph inputs given their values now, by name: the model is recorded for
    // them as for constants, so a graph that feeds a Reshape's shape or a
    // Resize's scales as inputs imports (an ImportError names such inputs).
    // They are not inputs of the tape, and Imported::inputs leaves them out.
    // Integer inputs take the values truncated toward zero.
    std::map<std::string, Tensor<double>, std::less<>> known_inputs = {};
};

// One axis of a graph input or output as the file declares it: an extent, a
// name (a symbolic axis), or neither.
struct Dimension {
    std::int64_t extent = -1;  // -1 when symbolic or unknown
    std::string name;          // the symbolic axis's name, or ""

    // Memberwise equality.
    friend bool operator==(const Dimension&, const Dimension&) = default;
};

// A graph input or output as the file declares it.
struct Port {
    std::string name;
    std::string element_type;  // "float32", "int64", ...
    std::vector<Dimension> dimensions;
    bool has_shape = false;
};

// What a model file holds, read without recording anything.
struct Summary {
    std::string producer;  // "pytorch 1.13.1"
    std::int64_t ir_version = 0;
    std::map<std::string, std::int64_t> opsets;  // by domain; "" is the default domain
    std::vector<Port> inputs;                    // the initializers left out
    std::vector<Port> outputs;
    std::map<std::string, std::size_t> operators;  // node counts by operator type
    std::size_t parameters = 0;                    // initializers
    std::size_t parameter_elements = 0;            // their elements, all together

    // Several lines: producer, opsets, inputs and outputs with their shapes,
    // operator counts, parameters.
    std::string describe() const;
};

// A graph value recorded under its ONNX name.
template <Element T>
struct NamedValue {
    std::string name;
    Value<T> value;
};

// A model recorded on a tape of its own, still open: record a loss on the
// outputs (or more layers) and seal it with std::move(imported.tape).into_network().
template <Element T>
struct Imported {
    Tape<T> tape;
    std::vector<NamedValue<T>> inputs;   // the graph's inputs, in its order (but the known ones)
    std::vector<NamedValue<T>> outputs;  // the graph's outputs, in its order

    // The input or output of that name; throws SymbolError naming the ones there are.
    Value<T> input(std::string_view name) const;
    Value<T> output(std::string_view name) const;

    // Every initializer the graph reads as data, as a parameter under its ONNX
    // name ("conv1.weight"), in the order the graph first reads them: a
    // NamedModule, so named checkpoints and PyTorch state dicts load into it.
    const std::vector<NamedParameter>& named_parameters() const { return named_parameters_; }

    // Their symbols, in the same order (to differentiate with respect to).
    std::vector<Symbol> parameters() const;

private:
    friend class Model;
    std::vector<NamedParameter> named_parameters_;
};

// A model file, read and checked once, recordable any number of times.
class Model {
public:
    // Reads and checks a model file. Throws ModelError when the file cannot be
    // read or is not a well-formed model, and ImportError when it uses an
    // operator, attribute or element type the importer does not handle (every
    // one of them, named). Linear in the file's size.
    static Model read(const std::filesystem::path& path);

    // The same from the bytes of a serialized ModelProto.
    static Model parse(std::span<const std::byte> bytes);

    // What the file holds.
    const Summary& summary() const;

    // Records the model on a new tape: inputs as tape inputs (zeros until fed;
    // integer inputs as indices), initializers as parameters, outputs by name.
    // Throws ModelError where the file's shapes contradict its operators and
    // ImportError where an attribute's value is one the importer cannot honour.
    template <Element T = float>
    Imported<T> import(const ImportOptions& options = {}) const;

    // Records the model on `tape` over values the caller already has: `inputs`
    // in the graph's order, and the parameters by ONNX name (those import gave,
    // on a tape reopened from its network, so that a Function re-records the
    // model at any batch size over the same parameters). Returns the outputs.
    template <Element T>
    std::vector<NamedValue<T>> record(Tape<T>& tape,
                                      std::span<const Value<T>> inputs,
                                      const std::vector<NamedParameter>& parameters) const;

private:
    explicit Model(std::shared_ptr<const detail::ModelDef> definition, Summary summary);

    std::shared_ptr<const detail::ModelDef> definition_;
    Summary summary_;
};

// Model::read(path).import<T>(options): `topos::onnx::import(path)` records
// the model in float, `topos::onnx::import<double>(path)` in double.
template <Element T = float>
Imported<T> import(const std::filesystem::path& path, const ImportOptions& options = {});

}  // namespace topos::onnx
