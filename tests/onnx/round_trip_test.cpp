// PyTorch round trips: models exported by torch.onnx.export
// (tools/export-onnx-fixtures.py wrote data/onnx/) are imported and
// must give PyTorch's outputs, through the interpreter and through Exact and
// Fast plans; the imported LeNet's gradients must be PyTorch's, and it must
// fine-tune. The plan of every model emits StableHLO (checked by mlir-opt in
// onnx.round_trip_stablehlo_parses).
#include <topos/autodiff/adjoints.hpp>
#include <topos/data/npy.hpp>
#include <topos/emit/stablehlo.hpp>
#include <topos/graph/losses.hpp>
#include <topos/onnx.hpp>
#include <topos/plan/plan.hpp>
#include <topos/run/entry.hpp>
#include <topos/run/run.hpp>
#include <topos/show/graph.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace topos::onnx {
namespace {

const std::filesystem::path models = std::filesystem::path(TOPOS_SOURCE_DIR) / "data/onnx";

// The largest difference over the largest magnitude PyTorch gave.
double relative_difference(const Tensor<float>& actual, const Tensor<float>& expected) {
    double largest = 0;
    double difference = 0;
    for (std::size_t index = 0; index < expected.elements(); ++index) {
        largest = std::max(largest, std::abs(static_cast<double>(expected.data()[index])));
        difference = std::max(difference,
                              std::abs(static_cast<double>(actual.data()[index]) -
                                       static_cast<double>(expected.data()[index])));
    }
    return difference / std::max(largest, 1e-30);
}

struct Imports {
    Imported<float> model;
    Tensor<float> input;
    Tensor<float> expected;
};

Imports import_fixture(const std::string& name) {
    Tensor<float> input = data::read_npy<float>(models / (name + ".input.npy"));
    auto model = import(models / (name + ".onnx"), {.dimensions = {{"batch", input.shape()[0]}}});
    return {
        std::move(model), std::move(input), data::read_npy<float>(models / (name + ".output.npy"))};
}

class RoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(RoundTrip, GivesPyTorchsOutputsThroughTheInterpreterAndPlans) {
    auto [imported, input, expected] = import_fixture(GetParam());
    const Symbol x = imported.inputs.at(0).value;
    const Symbol y = imported.outputs.at(0).value;
    const Network<float> network = std::move(imported.tape).into_network();
    const auto parameters = network.parameters();
    const Tensor<float> interpreted = network.forward(parameters, {{x, input}}).of(y);
    ASSERT_EQ(interpreted.shape(), expected.shape());
    EXPECT_LE(relative_difference(interpreted, expected), 1e-5);
    for (Numerics numerics : {Numerics::Exact, Numerics::Fast}) {
        const Plan<float> plan = network.entry({y}).numerics(numerics).lower();
        const Tensor<float> planned = plan.forward(parameters, {{x, input}}).of(y);
        if (numerics == Numerics::Exact) {
            EXPECT_EQ(planned.to_vector(), interpreted.to_vector())
                << "an Exact plan has the oracle's bits";
        }
        EXPECT_LE(relative_difference(planned, expected), 1e-5) << numerics;
    }
}

TEST_P(RoundTrip, PrintsDrawsAndEmitsItsPlan) {
    auto [imported, input, expected] = import_fixture(GetParam());
    const Symbol y = imported.outputs.at(0).value;
    const Network<float> network = std::move(imported.tape).into_network();
    const Plan<float> plan = network.entry({y}).lower();
    EXPECT_NE(plan.describe().find("plan:"), std::string::npos) << plan.describe();
    EXPECT_NE(show::graph(plan).dot().find("digraph"), std::string::npos);
    const std::string module = plan.emit_stablehlo(MlirForm::Generic);
    EXPECT_NE(module.find("func.func"), std::string::npos);
    const auto folder = std::filesystem::path(TOPOS_BINARY_DIR) / "onnx_round_trip_stablehlo";
    std::filesystem::create_directories(folder);
    std::ofstream(folder / (GetParam() + ".generic.mlir")) << module;
}

INSTANTIATE_TEST_SUITE_P(Exported,
                         RoundTrip,
                         ::testing::Values("mlp", "lenet", "residual", "transformer"));

TEST(RoundTrip, LenetGradientsArePyTorchs) {
    auto [imported, input, expected] = import_fixture("lenet");
    const Tensor<float> label_values = data::read_npy<float>(models / "lenet.labels.npy");
    const Value<float> labels = imported.tape.indices(label_values);
    const Value<float> loss = cross_entropy(imported.outputs.at(0).value, labels);
    const auto adjoints = imported.tape.differentiate(loss, imported.parameters());
    const Symbol x = imported.inputs.at(0).value;
    const Network<float> network = std::move(imported.tape).into_network();
    const auto run = network.forward(network.parameters(), {{x, input}});
    std::size_t compared = 0;
    for (const NamedParameter& parameter : imported.named_parameters()) {
        const auto file = models / ("lenet.grad." + parameter.name + ".npy");
        if (!std::filesystem::exists(file)) {
            continue;  // running statistics: buffers in PyTorch, without gradients
        }
        const Tensor<float> torch_gradient = data::read_npy<float>(file);
        const Tensor<float> gradient = run.of(adjoints.of(parameter.symbol));
        ASSERT_EQ(gradient.shape(), torch_gradient.shape()) << parameter.name;
        EXPECT_LE(relative_difference(gradient, torch_gradient), 1e-5) << parameter.name;
        ++compared;
    }
    EXPECT_EQ(compared, 14U);
}

TEST(RoundTrip, LenetFineTunes) {
    auto [imported, input, expected] = import_fixture("lenet");
    const Value<float> labels =
        imported.tape.indices(data::read_npy<float>(models / "lenet.labels.npy"));
    const Value<float> loss = cross_entropy(imported.outputs.at(0).value, labels);
    const auto adjoints = imported.tape.differentiate(loss, imported.parameters());
    const Symbol x = imported.inputs.at(0).value;
    const Network<float> network = std::move(imported.tape).into_network();
    std::vector<Symbol> roots{loss};
    for (const auto& [parameter, gradient] : adjoints.gradients()) {
        roots.push_back(gradient);
    }
    const Plan<float> plan = network.entry(roots).lower();
    Parameters<float> parameters = network.parameters();
    std::vector<float> losses;
    for (int step = 0; step < 5; ++step) {
        const auto run = plan.forward(parameters, {{x, input}});
        losses.push_back(run.of(loss).item());
        parameters = parameters.step(run.recorded_gradients(adjoints),
                                     [](const Tensor<float>& value, const Tensor<float>& gradient) {
                                         return value - gradient * Tensor<float>(0.05F);
                                     });
    }
    EXPECT_LT(losses.back(), losses.front() * 0.9F)
        << "losses " << losses.front() << " .. " << losses.back();
}

}  // namespace
}  // namespace topos::onnx
