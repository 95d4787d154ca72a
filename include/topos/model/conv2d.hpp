// Conv2d<T>: a 2-D convolution of NCHW images by OIHW filters plus a bias, the
// `conv2d` composition as a module. Filters [out, in, kernel, kernel] come from
// an initialiser (init::kaiming for a ReLU network, init::xavier otherwise: both
// read the fans of a rank-4 shape as in = in * kernel^2, out = out * kernel^2);
// the bias [out] starts at zero.
#pragma once

#include <topos/graph/compositions.hpp>
#include <topos/graph/tape.hpp>
#include <topos/graph/value.hpp>
#include <topos/model/init.hpp>
#include <topos/model/named.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace topos {

// A convolution's channels, square kernel, stride and zero padding.
struct Conv2dGeometry {
    std::size_t in_channels;
    std::size_t out_channels;
    std::size_t kernel;
    std::size_t stride = 1;
    std::size_t padding = 0;
};

template <Element T>
class Conv2d {
public:
    // Throws ShapeError when a channel count, the kernel or the stride is 0.
    template <class Initialiser>
    Conv2d(Tape<T>& tape, const Conv2dGeometry& geometry, Initialiser&& filter_init)
        : geometry_(checked(geometry)),
          filters_(tape.parameter(filter_init.template make<T>(Shape{
              geometry.out_channels, geometry.in_channels, geometry.kernel, geometry.kernel}))),
          bias_(tape.parameter(Tensor<T>::filled(Shape{geometry.out_channels}, T{0}))) {}

    // x: [batch, in_channels, height, width] to [batch, out_channels, OH, OW].
    Value<T> express(const Value<T>& x) const;

    // filters, then bias.
    std::vector<Value<T>> parameters() const { return {filters_, bias_}; }

    // "weight" (the filters, OIHW as PyTorch holds them) and "bias".
    std::vector<NamedParameter> named_parameters() const {
        return {{"weight", filters_}, {"bias", bias_}};
    }

    // The filters, [out, in, kernel, kernel].
    const Value<T>& filters() const { return filters_; }

    // The bias, [out].
    const Value<T>& bias() const { return bias_; }

    // The geometry it was built with.
    const Conv2dGeometry& geometry() const { return geometry_; }

    // "Conv2d(in -> out, kernel k, stride s, padding p)", then filters' and bias' shapes and nodes.
    std::string describe() const;

private:
    static const Conv2dGeometry& checked(const Conv2dGeometry& geometry);

    Conv2dGeometry geometry_;
    Value<T> filters_;
    Value<T> bias_;
};

extern template class Conv2d<float>;
extern template class Conv2d<double>;
extern template class Conv2d<bf16>;

}  // namespace topos
