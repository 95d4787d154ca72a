// Named parameters: every module names its parameters as the PyTorch module of
// the same kind does ("weight", "bias"), and a model built of modules names
// each part as a PyTorch model names its attributes, so that the names join
// into a state_dict's keys ("conv1.weight", "blocks.0.attention.query.bias").
// Checkpoints saved and loaded by name read these names, not node indices, so
// a file does not depend on the order in which a model was recorded and meets
// a PyTorch state_dict of the same architecture.
//
//   struct Net {
//       Conv2d<float> conv1; Linear<float> fc;
//       std::vector<NamedParameter> named_parameters() const {
//           return topos::named_parameters({{"conv1", conv1}, {"fc", fc}});
//       }
//   };
#pragma once

#include <topos/graph/symbol.hpp>

#include <concepts>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace topos {

// A parameter under its name: "weight" within a module, "conv1.weight" within a model.
struct NamedParameter {
    std::string name;
    Symbol symbol;
    // PyTorch holds this parameter as the transpose of the recorded value: a
    // Linear's weight, which topos records as x.matmul(w) with w [in, out] and
    // torch.nn.Linear holds as [out, in]. Named checkpoints store it as PyTorch does.
    bool transposed_in_pytorch = false;

    // Memberwise equality.
    friend bool operator==(const NamedParameter&, const NamedParameter&) = default;
};

template <class M>
concept NamedModule = requires(const M& module) {
    { module.named_parameters() } -> std::convertible_to<std::vector<NamedParameter>>;
};

// One part of a model under its name: a module, or a single parameter.
class Named {
public:
    // A module as the part `name`: its parameters' names follow "name.".
    template <NamedModule Module>
    Named(std::string name, const Module& module)
        : name_(std::move(name)), parameters_(module.named_parameters()) {}

    // A single parameter as the part `name`.
    Named(std::string name, Symbol parameter)
        : name_(std::move(name)), parameters_{{"", parameter, false}} {}

    // The part's name.
    const std::string& name() const { return name_; }

    // Its parameters, named within the part ("" for a single parameter).
    const std::vector<NamedParameter>& parameters() const { return parameters_; }

private:
    std::string name_;
    std::vector<NamedParameter> parameters_;
};

// Every parameter of `parts`, named "<part>.<name within it>" (or "<part>" for
// a single parameter), in the order given. Throws Error for an empty part
// name or a name given twice, naming it.
std::vector<NamedParameter> named_parameters(std::initializer_list<Named> parts);
std::vector<NamedParameter> named_parameters(const std::vector<Named>& parts);

// A module's own named_parameters().
template <NamedModule Module>
std::vector<NamedParameter> named_parameters(const Module& module) {
    return module.named_parameters();
}

}  // namespace topos
