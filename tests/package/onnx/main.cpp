// The onnx consumer: imports the model file it is given (data/onnx/mlp.onnx)
// at a batch of 2, runs it on zeros, and prints its parameters' count and its
// output's shape.
#include <topos/onnx.hpp>
#include <topos/topos.hpp>

#include <iostream>
#include <utility>

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: topos_onnx_consumer MODEL.onnx\n";
        return 2;
    }
    auto model = topos::onnx::import(argv[1], {.dimensions = {{"batch", 2}}});
    const topos::Symbol output = model.outputs.at(0).value;
    const auto network = std::move(model.tape).into_network();
    const auto run = network.forward(network.parameters());
    std::cout << "parameters: " << model.named_parameters().size() << '\n'
              << "output: " << run.of(output).shape() << '\n';
}
