// Dropout<T>: the mask input, its shape check, and the training masks drawn
// by init::dropout.
#include <topos/core/error.hpp>
#include <topos/graph/scope.hpp>
#include <topos/model/dropout.hpp>
#include <topos/model/init.hpp>

#include <sstream>

namespace topos {

template <Element T>
Dropout<T>::Dropout(Tape<T>& tape, const Shape& shape, double rate)
    : rate_(rate), mask_(tape.input(Tensor<T>::filled(shape, T{1}))) {
    if (!(rate >= 0 && rate < 1)) {
        throw ShapeError("a Dropout rate is a probability in [0, 1); got " + std::to_string(rate));
    }
}

template <Element T>
Value<T> Dropout<T>::express(const Value<T>& x) const {
    const NameScope named("Dropout");
    if (!(x.shape() == mask_.shape())) {
        throw ShapeError("this Dropout's mask has shape " + mask_.shape().str() + "; node " +
                         std::to_string(x.index()) + " has shape " + x.shape().str() +
                         " (build the Dropout with the shape of the values it drops)");
    }
    return x * mask_;
}

template <Element T>
Feed<T> Dropout<T>::mask(std::uint64_t seed) const {
    return {mask_.symbol(), init::dropout(seed, 1.0 - rate_).make<T>(mask_.shape())};
}

template <Element T>
std::string Dropout<T>::describe() const {
    std::ostringstream out;
    out << "Dropout(rate " << rate_ << "): mask input " << mask_.shape() << " at node "
        << mask_.index();
    return out.str();
}

template class Dropout<float>;
template class Dropout<double>;
template class Dropout<bf16>;

}  // namespace topos
