// Conv2d: its geometry checked (channels, kernel and stride of at least 1),
// the convolution recorded by conv2d() of compositions.hpp with the module's
// filters and bias, and its one-line description.
#include <topos/core/error.hpp>
#include <topos/graph/scope.hpp>
#include <topos/model/conv2d.hpp>

#include <sstream>

namespace topos {

template <Element T>
const Conv2dGeometry& Conv2d<T>::checked(const Conv2dGeometry& geometry) {
    if (geometry.in_channels == 0 || geometry.out_channels == 0 || geometry.kernel == 0 ||
        geometry.stride == 0) {
        throw ShapeError(
            "a Conv2d needs at least one input and one output channel, a kernel and a "
            "stride of at least 1; got " +
            std::to_string(geometry.in_channels) + " -> " + std::to_string(geometry.out_channels) +
            " channels, kernel " + std::to_string(geometry.kernel) + ", stride " +
            std::to_string(geometry.stride));
    }
    return geometry;
}

template <Element T>
Value<T> Conv2d<T>::express(const Value<T>& x) const {
    const NameScope named("Conv2d");
    return conv2d(x, filters_, bias_, geometry_.stride, geometry_.padding);
}

template <Element T>
std::string Conv2d<T>::describe() const {
    std::ostringstream out;
    out << "Conv2d(" << geometry_.in_channels << " -> " << geometry_.out_channels << ", kernel "
        << geometry_.kernel << ", stride " << geometry_.stride << ", padding " << geometry_.padding
        << "): filters " << filters_.shape() << " at node " << filters_.index() << ", bias "
        << bias_.shape() << " at node " << bias_.index();
    return out.str();
}

template class Conv2d<float>;
template class Conv2d<double>;
template class Conv2d<bf16>;

}  // namespace topos
