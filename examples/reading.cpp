// Reading a computation: the walk-through network read six ways (its spec, its
// recorded derivative, its plan, its StableHLO, its values and gradients, its
// picture), then the live volume of a training plan against an inference plan
// as a terminal chart. The text goes to standard output;
//   reading --report PATH    also writes every reading as a self-contained HTML report,
//   reading --figures DIR    writes the pictures (DOT, and SVG with Graphviz) and the
//                            live-volume chart (SVG): the site's figures.
#include <topos/show.hpp>
#include <topos/topos.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

namespace {

using topos::Symbol;
using topos::Tape;
using topos::Tensor;
namespace show = topos::show;

// The walk-through with its gradient recorded: loss = sum(tanh(input weights)^2).
struct Walkthrough {
    topos::Network<float> network;
    topos::Adjoints<float> adjoints;
    Symbol weights;
    Symbol hidden;
    Symbol loss;
};

Walkthrough record_walkthrough() {
    Tape<float> tape;
    auto weights = tape.parameter(Tensor<float>({2, 2}, {0.5f, -0.25f, 0.25f, 0.4f}));
    auto input = tape.input(Tensor<float>({1, 2}, {1.0f, 2.0f}));
    auto hidden = input.matmul(weights).tanh();
    auto loss = (hidden * hidden).sum();
    auto adjoints = tape.differentiate(loss, {weights});
    return {std::move(tape).into_network(), std::move(adjoints), weights, hidden, loss};
}

// The seeds' comparison: a training plan and an inference plan of one [8, 32, 32, 4] MLP.
struct TwoPlans {
    topos::Plan<float> training;
    topos::Plan<float> inference;
};

TwoPlans record_two_plans() {
    Tape<float> tape;
    const topos::Mlp<float> mlp(
        tape, {8, 32, 32, 4}, topos::Activation::Tanh, topos::init::xavier(3));
    const Tensor<float> features = topos::init::normal(5, 1.0)(topos::Shape{64, 8});
    auto predicted = mlp.express(tape.input(features));
    auto loss = (predicted * predicted).sum();
    const auto adjoints = tape.differentiate(loss, mlp.parameters());
    const Symbol loss_symbol = loss;
    const auto network = std::move(tape).into_network();
    return {network.entry(adjoints.roots()).lower(), network.entry({loss_symbol}).lower()};
}

// The seeds' convolution and pooling network, whose plan elects two patterns.
topos::Plan<float> convolution_plan() {
    Tape<float> tape;
    auto image = tape.input(topos::init::normal(1, 1.0)(topos::Shape{1, 1, 6, 6}));
    auto filters = tape.parameter(topos::init::normal(2, 0.3)(topos::Shape{2, 1, 3, 3}));
    auto bias = tape.parameter(Tensor<float>::filled(topos::Shape{2}, 0.0f));
    auto pooled = topos::max_pool(topos::conv2d(image, filters, bias, 1, 0).relu(), 2, 2);
    const Symbol loss = pooled.sum();
    return std::move(tape).into_network().entry({loss}).lower();
}

void heading(const std::string& title) {
    std::cout << "== " << title << "\n\n";
}

struct Options {
    std::filesystem::path report;
    std::filesystem::path figures;
};

Options options_of(int argc, char** argv) {
    Options options;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        if (flag == "--report") {
            options.report = argv[i + 1];
        } else if (flag == "--figures") {
            options.figures = argv[i + 1];
        } else {
            throw topos::Error("usage: reading [--report PATH] [--figures DIR]; got " + flag);
        }
    }
    return options;
}

void write_file(const std::filesystem::path& path, const std::string& text) {
    std::ofstream(path) << text;
}

}  // namespace

int main(int argc, char** argv) {
    const Options options = options_of(argc, argv);
    const Walkthrough walk = record_walkthrough();
    const auto gradient = walk.adjoints.of(walk.weights);
    const auto plan = walk.network.entry({walk.loss, gradient}).observe({walk.hidden}).lower();
    const auto run = plan.forward(walk.network.parameters());
    const show::Picture picture = show::graph(
        plan,
        {.title = "the walk-through's plan", .derived_from = walk.adjoints.target().index() + 1});

    heading("1. The spec, with its recorded derivative");
    std::cout << walk.network.describe() << '\n';
    heading("2. The derivative: the nodes differentiation appended, shaded in the picture");
    const show::Picture derived = show::graph(walk.network, walk.adjoints);
    std::cout << "d loss / d weights is node " << gradient.index() << "; "
              << walk.network.nodes().size() - walk.adjoints.target().index() - 1
              << " nodes were appended after the loss\n\n";
    heading("3. The plan over the loss and the gradient, observing hidden");
    std::cout << plan.describe() << '\n';
    heading("4. StableHLO");
    std::cout << plan.emit_stablehlo() << '\n';
    heading("5. Values and gradients");
    std::cout << "loss = " << run.of(walk.loss) << "\nhidden = " << run.of(walk.hidden)
              << "\nd loss / d weights = " << run.of(gradient) << "\n\n";
    heading("6. The picture (Graphviz DOT)");
    std::cout << picture.dot() << '\n';

    const TwoPlans plans = record_two_plans();
    const show::Plot live =
        show::live_volume({{"training", plans.training}, {"inference", plans.inference}});
    heading("Live volume along two plans of one [8, 32, 32, 4] MLP");
    std::cout << live.text(72, 18) << '\n';

    if (!options.figures.empty()) {
        const topos::Plan<float> fused = convolution_plan();
        const std::vector<std::pair<std::string, show::Picture>> pictures{
            {"walkthrough-plan", picture},
            {"walkthrough-derivative", derived},
            {"convolution-plan", show::graph(fused)},
            {"convolution-plan-collapsed", show::graph(fused, {.collapse_patterns = true})}};
        std::filesystem::create_directories(options.figures);
        write_file(options.figures / "live-volume.svg", live.svg());
        for (const auto& [name, drawn] : pictures) {
            write_file(options.figures / (name + ".dot"), drawn.dot());
            if (show::Picture::can_lay_out()) {
                write_file(options.figures / (name + ".svg"), drawn.svg());
            }
        }
    }
    if (!options.report.empty()) {
        show::Report report("The walk-through read six ways");
        report.add("1. The spec", show::card(walk.network))
            .add("2. The derivative", derived)
            .add("3. The plan", show::card(plan))
            .add("4. StableHLO", show::StableHlo(plan.emit_stablehlo()))
            .add("5. Values", show::card(run))
            .add("5. Gradients of the weights", show::card(run.of(gradient)))
            .add("6. The picture", picture)
            .add("The entry", show::card(plan.entry()))
            .add("Live volume: training against inference", live)
            .add("The training plan", show::card(plans.training));
        report.write(options.report);
        std::cout << "report: " << options.report.string() << '\n';
    }
}
