// Live volume along two plans of one [8, 32, 32, 4] MLP: the training plan
// (loss and gradients, recorded on the tape) and the inference plan (loss
// only) over the same network, as the plans account for it: the elements
// alive after each scheduled node.
#include <topos/topos.hpp>

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <vector>

namespace {

// The row's elements of `series`, right-aligned; nothing past its end.
void print_column(const std::vector<std::size_t>& series, std::size_t row) {
    if (row < series.size()) {
        std::cout << "  " << std::setw(12) << series[row];
    }
}

}  // namespace

int main() {
    topos::Tape<float> tape;
    const topos::Mlp<float> mlp(
        tape, {8, 32, 32, 4}, topos::Activation::Tanh, topos::init::xavier(3));
    const topos::Tensor<float> features = topos::init::normal(5, 1.0)(topos::Shape{64, 8});
    auto predicted = mlp.express(tape.input(features));
    auto loss = (predicted * predicted).sum();
    const auto adjoints = tape.differentiate(loss, mlp.parameters());
    const topos::Symbol loss_symbol = loss;
    const auto network = std::move(tape).into_network();
    const auto training = network.entry(adjoints.roots()).lower();
    const auto inference = network.entry({loss_symbol}).lower();

    const auto& trained = training.live_series();
    const auto& inferred = inference.live_series();
    std::cout << "live volume along two plans of one [8, 32, 32, 4] mlp (elements alive)\n\n"
              << "scheduled node  loss + gradients   loss only\n";
    for (std::size_t row = 0; row < std::max(trained.size(), inferred.size()); ++row) {
        std::cout << std::setw(14) << row;
        print_column(trained, row);
        print_column(inferred, row);
        std::cout << '\n';
    }
    std::cout << "\npeak: " << *std::max_element(trained.begin(), trained.end())
              << " elements training, " << *std::max_element(inferred.begin(), inferred.end())
              << " elements inference\n";
}
