// The LibTorch twin of examples/hessian_vector_product.cpp: the same loss,
// point and direction; LibTorch has no StableHLO emission, so it prints H v only.
#include <iostream>
#include <torch/torch.h>

int main() {
    torch::Tensor w = torch::tensor({0.5, -1.0, 2.0}, torch::kDouble).requires_grad_();
    const torch::Tensor v = torch::tensor({1.0, 0.0, -1.0}, torch::kDouble);
    const torch::Tensor loss = (w.tanh() * w).sum() + (w * w).sum().log();
    const torch::Tensor gradient = torch::autograd::grad({loss}, {w}, {}, true, true)[0];
    const torch::Tensor hv = torch::autograd::grad({(gradient * v).sum()}, {w})[0];
    std::cout << "H v = " << hv << '\n';
}
