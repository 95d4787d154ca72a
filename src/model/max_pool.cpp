// MaxPool2d: its window and stride checked to be at least 1, and its one-line
// description.
#include <topos/core/error.hpp>
#include <topos/model/max_pool.hpp>

#include <sstream>

namespace topos {

template <Element T>
MaxPool2d<T>::MaxPool2d(std::size_t size, std::size_t stride) : size_(size), stride_(stride) {
    if (size == 0 || stride == 0) {
        throw ShapeError("a MaxPool2d needs a window and a stride of at least 1; got size " +
                         std::to_string(size) + ", stride " + std::to_string(stride));
    }
}

template <Element T>
std::string MaxPool2d<T>::describe() const {
    std::ostringstream out;
    out << "MaxPool2d(" << size_ << " x " << size_ << ", stride " << stride_ << ")";
    return out.str();
}

template class MaxPool2d<float>;
template class MaxPool2d<double>;
template class MaxPool2d<bf16>;

}  // namespace topos
