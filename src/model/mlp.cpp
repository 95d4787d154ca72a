// The dense modules' out-of-line members: the Activation names and activate(),
// Linear's description, and Mlp, whose layers are recorded in order with the
// activation between them (none after the last) and whose parameters are
// named as an nn.Sequential of the same layers and activations names them.
#include "graph/record.hpp"
#include <topos/core/error.hpp>
#include <topos/graph/scope.hpp>
#include <topos/model/mlp.hpp>

#include <ostream>
#include <sstream>

namespace topos {

std::ostream& operator<<(std::ostream& out, Activation activation) {
    switch (activation) {
        case Activation::Identity:
            return out << "identity";
        case Activation::Tanh:
            return out << "tanh";
        case Activation::Relu:
            return out << "relu";
        case Activation::Sigmoid:
            return out << "sigmoid";
        case Activation::Gelu:
            return out << "gelu";
    }
    return out;
}

template <Element T>
Value<T> activate(const Value<T>& x, Activation activation) {
    switch (activation) {
        case Activation::Identity:
            return x;
        case Activation::Tanh:
            return x.tanh();
        case Activation::Relu:
            return x.relu();
        case Activation::Sigmoid:
            return x.sigmoid();
        case Activation::Gelu:
            return x.gelu();
    }
    return x;
}

template <Element T>
const Value<T>& Linear<T>::bias() const {
    if (!bias_) {
        throw Error("Linear(" + std::to_string(weight_.shape()[0]) + " -> " +
                    std::to_string(weight_.shape()[1]) +
                    ") has no bias: it was built with Bias::None (check has_bias() first)");
    }
    return *bias_;
}

template <Element T>
std::string Linear<T>::describe() const {
    std::ostringstream out;
    out << "Linear(" << weight_.shape()[0] << " -> " << weight_.shape()[1] << "): weight "
        << weight_.shape() << " at node " << weight_.index();
    if (bias_) {
        out << ", bias " << bias_->shape() << " at node " << bias_->index();
    } else {
        out << ", no bias";
    }
    return out.str();
}

template <Element T>
void Mlp<T>::check_widths() const {
    if (widths_.size() < 2) {
        throw ShapeError("an Mlp needs at least two widths (input and output), got " +
                         std::to_string(widths_.size()));
    }
}

template <Element T>
Value<T> Mlp<T>::express(const Value<T>& x) const {
    const detail::RecordScope scope(x);
    const NameScope named("Mlp");
    Value<T> y = x;
    for (std::size_t i = 0; i < layers_.size(); ++i) {
        y = layers_[i].express(y);
        if (i + 1 < layers_.size()) {
            y = activate(y, activation_);
        }
    }
    return y;
}

template <Element T>
std::vector<Value<T>> Mlp<T>::parameters() const {
    std::vector<Value<T>> all;
    for (const Linear<T>& layer : layers_) {
        for (const Value<T>& parameter : layer.parameters()) {
            all.push_back(parameter);
        }
    }
    return all;
}

template <Element T>
std::vector<NamedParameter> Mlp<T>::named_parameters() const {
    // nn.Sequential numbers its modules, the activations between the layers
    // included: Linear i is module 2i, or module i without activations.
    const std::size_t step = activation_ == Activation::Identity ? 1 : 2;
    std::vector<Named> parts;
    for (std::size_t i = 0; i < layers_.size(); ++i) {
        parts.emplace_back(std::to_string(step * i), layers_[i]);
    }
    return topos::named_parameters(parts);
}

template <Element T>
std::string Mlp<T>::describe() const {
    std::ostringstream out;
    std::size_t count = 0;
    out << "Mlp(";
    for (std::size_t i = 0; i < widths_.size(); ++i) {
        out << (i ? " -> " : "") << widths_[i];
    }
    out << ", " << activation_ << ")\n";
    for (const Linear<T>& layer : layers_) {
        out << "  " << layer.describe() << '\n';
        for (const Value<T>& parameter : layer.parameters()) {
            count += parameter.shape().elements();
        }
    }
    out << "  " << count << " parameters";
    return out.str();
}

template Value<float> activate(const Value<float>&, Activation);
template Value<double> activate(const Value<double>&, Activation);
template Value<bf16> activate(const Value<bf16>&, Activation);
template class Linear<float>;
template class Linear<double>;
template class Linear<bf16>;
template class Mlp<float>;
template class Mlp<double>;
template class Mlp<bf16>;

}  // namespace topos
