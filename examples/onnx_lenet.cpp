// A model from PyTorch: the LeNet that tools/export-onnx-fixtures.py exported
// with torch.onnx.export, read, imported onto a tape, planned, fine-tuned and
// emitted as StableHLO. docs/guide/onnx.md walks through this program.
#include <topos/model.hpp>
#include <topos/onnx.hpp>
#include <topos/topos.hpp>

#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using topos::Network;
using topos::Tensor;
using topos::Value;

const std::filesystem::path models = std::filesystem::path(TOPOS_DATA) / "onnx";

// The first `count` lines of `text`.
std::string head(const std::string& text, int count) {
    std::istringstream lines(text);
    std::string line;
    std::string kept;
    for (int index = 0; index < count && std::getline(lines, line); ++index) {
        kept += line + "\n";
    }
    return kept;
}

void read_the_file() {
    std::cout << "== What the file holds\n\n";
    const topos::onnx::Model model = topos::onnx::Model::read(models / "lenet.onnx");
    std::cout << model.summary().describe() << '\n';
}

void import_and_run() {
    std::cout << "== Imported, at a batch of 4\n\n";
    auto lenet = topos::onnx::import(models / "lenet.onnx", {.dimensions = {{"batch", 4}}});
    const Value<float> images = lenet.input("input");
    const Value<float> logits = lenet.output("output");
    std::cout << "input " << images.shape() << ", output " << logits.shape() << ", "
              << lenet.named_parameters().size() << " parameters, the first "
              << lenet.named_parameters()[0].name << '\n';
    const Network<float> network = std::move(lenet.tape).into_network();
    const auto plan = network.entry({logits}).lower();
    std::cout << "patterns elected:";
    for (const auto& pattern : plan.patterns()) {
        std::cout << ' ' << pattern.kind();
    }
    const Tensor<float> batch = topos::data::read_npy<float>(models / "lenet.input.npy");
    const Tensor<float> scores = plan.forward(network.parameters(), {{images, batch}}).of(logits);
    const Tensor<float> torch_scores = topos::data::read_npy<float>(models / "lenet.output.npy");
    const Tensor<float> difference = scores - torch_scores;
    std::cout << "\npredicted classes: " << scores.argmax(1) << ", PyTorch's "
              << torch_scores.argmax(1) << "\nlargest difference from PyTorch's scores: "
              << std::max(difference.max(), (-difference).max()) << "\n\n";
}

void fine_tune() {
    std::cout << "== Fine-tuned\n\n";
    auto lenet = topos::onnx::import(models / "lenet.onnx", {.dimensions = {{"batch", 4}}});
    const Value<float> labels = lenet.tape.indices(Tensor<float>({4}, {3, 1, 4, 1}));
    const Value<float> loss = topos::cross_entropy(lenet.output("output"), labels);
    // Batch norms' running statistics are initializers too, so parameters here;
    // PyTorch keeps them as buffers and does not train them, nor does this.
    std::vector<topos::Symbol> trained;
    for (const topos::NamedParameter& parameter : lenet.named_parameters()) {
        if (!parameter.name.ends_with(".running_mean") &&
            !parameter.name.ends_with(".running_var")) {
            trained.push_back(parameter.symbol);
        }
    }
    const auto gradients = lenet.tape.differentiate(loss, trained);
    const Value<float> images = lenet.input("input");
    const Network<float> network = std::move(lenet.tape).into_network();
    const auto plan = network.entry(gradients.roots()).observe({loss}).lower();
    const Tensor<float> batch = topos::data::read_npy<float>(models / "lenet.input.npy");
    const topos::optim::Sgd sgd({.learning_rate = 0.02});
    auto parameters = network.parameters();
    auto state = sgd.start(parameters);
    for (int step = 1; step <= 5; ++step) {
        const auto run = plan.forward(parameters, {{images, batch}});
        std::cout << "step " << step << ": loss " << std::fixed << std::setprecision(6)
                  << run.of(loss).item() << '\n';
        sgd.step(parameters, run.recorded_gradients(gradients), state).into(parameters, state);
    }
    std::cout << '\n';
}

void emit() {
    std::cout << "== As StableHLO (the first lines)\n\n";
    auto lenet = topos::onnx::import(models / "lenet.onnx", {.dimensions = {{"batch", 4}}});
    const Value<float> logits = lenet.output("output");
    const Network<float> network = std::move(lenet.tape).into_network();
    std::cout << head(network.entry({logits}).lower().emit_stablehlo(), 6);
}

}  // namespace

int main() {
    read_the_file();
    import_and_run();
    fine_tune();
    emit();
}
