#include <topos/core/error.hpp>
#include <topos/model/dropout.hpp>
#include <topos/model/init.hpp>

#include <span>
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
    if (!(x.shape() == mask_.shape())) {
        throw ShapeError("this Dropout's mask has shape " + mask_.shape().str() + "; node " +
                         std::to_string(x.index()) + " has shape " + x.shape().str() +
                         " (build the Dropout with the shape of the values it drops)");
    }
    return x * mask_;
}

template <Element T>
Feed<T> Dropout<T>::mask(std::uint64_t seed) const {
    const T kept = static_cast<T>(1.0 / (1.0 - rate_));
    Tensor<T> mask = Tensor<T>::generate(mask_.shape(), [&](std::span<T> out) {
        for (std::size_t i = 0; i < out.size(); ++i) {
            const double draw = static_cast<double>(init::counter_bits(seed, i) >> 11) * 0x1p-53;
            out[i] = draw < rate_ ? T{0} : kept;
        }
    });
    return {mask_.symbol(), std::move(mask)};
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

}  // namespace topos
