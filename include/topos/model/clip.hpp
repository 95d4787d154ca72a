// Clipping by global norm, as torch.nn.utils.clip_grad_norm_ with the 2-norm:
// the norm of all gradients taken together, n = sqrt(sum of every element
// squared), and when n exceeds `max_norm` every gradient is scaled by
// max_norm / (n + 1e-6). A pure transform, like the optimizers.
#pragma once

#include <topos/run/parameters.hpp>

namespace topos::optim {

// What clip_by_global_norm returns: the gradients, clipped, and their norm before.
template <ComputeElement T>
struct Clipped {
    Parameters<T> gradients;
    double norm;  // the global norm before clipping
};

// Throws Error for a negative max_norm.
template <ComputeElement T>
Clipped<T> clip_by_global_norm(const Parameters<T>& gradients, double max_norm);

// The global 2-norm of the gradients, accumulated in double in slot order.
template <ComputeElement T>
double global_norm(const Parameters<T>& gradients);

extern template Clipped<float> clip_by_global_norm(const Parameters<float>&, double);
extern template Clipped<double> clip_by_global_norm(const Parameters<double>&, double);
extern template double global_norm(const Parameters<float>&);
extern template double global_norm(const Parameters<double>&);

}  // namespace topos::optim
