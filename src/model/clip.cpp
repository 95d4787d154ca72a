// optim::global_norm and clip_by_global_norm: the L2 norm of every gradient
// together, summed in double, and the gradients scaled by
// max_norm / (norm + 1e-6) when that is below 1, as PyTorch's
// clip_grad_norm_ does.
#include <topos/core/error.hpp>
#include <topos/model/clip.hpp>

#include <cmath>
#include <vector>

namespace topos::optim {

template <ComputeElement T>
double global_norm(const Parameters<T>& gradients) {
    double squares = 0;
    for (const Tensor<T>& gradient : gradients.values()) {
        for (const T g : gradient.data()) {
            squares += double{g} * double{g};
        }
    }
    return std::sqrt(squares);
}

template <ComputeElement T>
Clipped<T> clip_by_global_norm(const Parameters<T>& gradients, double max_norm) {
    if (!(max_norm >= 0)) {
        throw Error("clip_by_global_norm needs a max_norm >= 0; got " + std::to_string(max_norm));
    }
    const double norm = global_norm(gradients);
    const double coefficient = max_norm / (norm + 1e-6);
    if (!(coefficient < 1)) {
        return {gradients, norm};
    }
    std::vector<Tensor<T>> scaled;
    for (const Tensor<T>& gradient : gradients.values()) {
        std::vector<T> out(gradient.elements());
        for (std::size_t i = 0; i < out.size(); ++i) {
            out[i] = static_cast<T>(double{gradient.data()[i]} * coefficient);
        }
        scaled.emplace_back(gradient.shape(), out);
    }
    return {gradients.with_values(std::move(scaled)), norm};
}

template Clipped<float> clip_by_global_norm(const Parameters<float>&, double);
template Clipped<double> clip_by_global_norm(const Parameters<double>&, double);
template double global_norm(const Parameters<float>&);
template double global_norm(const Parameters<double>&);

}  // namespace topos::optim
