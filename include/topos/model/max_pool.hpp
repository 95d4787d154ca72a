// MaxPool2d: the maximum of each size x size window of an NCHW input, windows
// `stride` apart (the `max_pool` composition as a module; it has no
// parameters). The stride defaults to the size: windows that do not overlap.
#pragma once

#include <topos/graph/compositions.hpp>
#include <topos/graph/scope.hpp>
#include <topos/graph/value.hpp>
#include <topos/model/named.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace topos {

template <Element T>
class MaxPool2d {
public:
    // Throws ShapeError when the size or the stride is 0.
    explicit MaxPool2d(std::size_t size) : MaxPool2d(size, size) {}

    // Windows `size` x `size`, `stride` apart; ShapeError when either is 0.
    MaxPool2d(std::size_t size, std::size_t stride);

    // x: [batch, channels, height, width] to [batch, channels, (H - size) / stride + 1, ...].
    Value<T> express(const Value<T>& x) const {
        const NameScope named("MaxPool2d");
        return max_pool(x, size_, stride_);
    }

    // None: pooling has no parameters.
    std::vector<Value<T>> parameters() const { return {}; }

    // None.
    std::vector<NamedParameter> named_parameters() const { return {}; }

    // "MaxPool2d(size x size, stride s)".
    std::string describe() const;

private:
    std::size_t size_ = 0;
    std::size_t stride_ = 0;
};

extern template class MaxPool2d<float>;
extern template class MaxPool2d<double>;
extern template class MaxPool2d<bf16>;

}  // namespace topos
