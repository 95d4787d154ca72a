// Mlp<T>: a stack of Linear layers of the given widths with one activation
// between consecutive layers (none after the last).
#pragma once

#include <topos/model/linear.hpp>
#include <topos/model/named.hpp>

#include <cstddef>
#include <initializer_list>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

namespace topos {

// The activation an Mlp applies between consecutive layers.
enum class Activation : std::uint8_t {
    Identity,
    Tanh,
    Relu,
    Sigmoid,
    Gelu,  // the exact (erf) form
};

// Writes the activation's name in lower case: "relu", "gelu".
std::ostream& operator<<(std::ostream& out, Activation activation);

// x under `activation` (Identity records nothing and returns x).
template <Element T>
Value<T> activate(const Value<T>& x, Activation activation);

template <Element T>
class Mlp {
public:
    // widths = {in, hidden..., out}: one Linear per consecutive pair, whose
    // weights `weight_init` draws in turn, first layer first.
    template <class Initialiser>
    Mlp(Tape<T>& tape,
        std::initializer_list<std::size_t> widths,
        Activation activation,
        Initialiser&& weight_init)
        : Mlp(tape,
              std::vector<std::size_t>(widths),
              activation,
              std::forward<Initialiser>(weight_init)) {}

    // The same, with widths known only at run time (read from a file, or
    // given from Python).
    template <class Initialiser>
    Mlp(Tape<T>& tape,
        std::vector<std::size_t> widths,
        Activation activation,
        Initialiser&& weight_init)
        : widths_(std::move(widths)), activation_(activation) {
        check_widths();
        for (std::size_t i = 0; i + 1 < widths_.size(); ++i) {
            layers_.emplace_back(tape, widths_[i], widths_[i + 1], weight_init);
        }
    }

    // The layers in turn, the activation between consecutive ones.
    Value<T> express(const Value<T>& x) const;

    // Each layer's weight then bias, first layer first.
    std::vector<Value<T>> parameters() const;

    // The names nn.Sequential(Linear, activation, Linear, ...) gives: Linear i
    // is module 2i, so Mlp{30, 32, 1} names "0.weight", "0.bias", "2.weight",
    // "2.bias", and a PyTorch Sequential's state dict loads unchanged; with
    // Activation::Identity (no activation modules) Linear i is module i.
    std::vector<NamedParameter> named_parameters() const;

    // The Linear layers, first to last.
    const std::vector<Linear<T>>& layers() const { return layers_; }

    // "Mlp(in -> ... -> out, activation)", a line per layer, then the parameter count.
    std::string describe() const;

private:
    void check_widths() const;

    std::vector<std::size_t> widths_;
    Activation activation_ = Activation::Identity;
    std::vector<Linear<T>> layers_;
};

extern template class Mlp<float>;
extern template class Mlp<double>;
extern template class Mlp<bf16>;

}  // namespace topos
