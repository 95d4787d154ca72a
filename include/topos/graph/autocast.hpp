// Autocast: while one is open on the recording thread, the matrix products
// recorded there compute in a narrower element type, as torch.autocast makes a
// float model's products bf16 and leaves the rest in float32:
//
//   {
//       topos::Autocast products(topos::ElementType::BF16);
//       logits = model.express(images);  // each product in bf16, the rest in float
//   }
//   loss = topos::cross_entropy(logits, labels);  // float
//
// A product recorded under it (matmul, and so Linear, conv2d and attention)
// reads its operands rounded to the type and rounds its result to it: Convert
// nodes (Value::rounded_to) before and after the MatMul. conv2d rounds the
// image and the filters before it gathers windows, which is the same rounding
// in fewer nodes. Bias additions, activations, normalisation, softmax and
// losses compute in the tape's type on what they are given. Where the type is
// at least as wide as the tape's, nothing is recorded. An Autocast belongs to
// the thread that opened it and lasts as long as it does (a block, usually);
// one opened inside another overrides it until it closes.
#pragma once

#include <topos/ops/opcode.hpp>

#include <optional>

namespace topos {

class Autocast {
public:
    // Products recorded on this thread compute in `products` until this closes.
    explicit Autocast(ElementType products);
    ~Autocast();
    Autocast(const Autocast&) = delete;
    Autocast& operator=(const Autocast&) = delete;
    Autocast(Autocast&&) = delete;
    Autocast& operator=(Autocast&&) = delete;

    // The type this thread's products compute in, or nullopt outside any Autocast.
    static std::optional<ElementType> current();

private:
    std::optional<ElementType> enclosing_;
};

}  // namespace topos
