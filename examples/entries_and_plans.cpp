// Entries and plans: declare what a run may read, lower it into a plan, and read
// the plan: its schedule, its liveness, its live volume, its postures.
#include <topos/topos.hpp>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <string>

namespace {

using topos::Symbol;
using topos::Tape;
using topos::Tensor;

struct Walkthrough {
    topos::Network<float> network;
    Symbol weights;
    Symbol hidden;
    Symbol loss;
};

// The walk-through graph: loss = sum(tanh(input weights)^2).
Walkthrough record_walkthrough() {
    Tape<float> tape;
    auto weights = tape.parameter(Tensor<float>({2, 2}, {0.5f, -0.25f, 0.25f, 0.4f}));
    auto input = tape.input(Tensor<float>({1, 2}, {1.0f, 2.0f}));
    auto hidden = input.matmul(weights).tanh();
    auto loss = (hidden * hidden).sum();
    return Walkthrough{std::move(tape).into_network(), weights, hidden, loss};
}

void lowering() {
    std::cout << "== Lowering\n\n";
    const Walkthrough graph = record_walkthrough();
    std::cout << graph.network.entry({graph.loss}).lower().describe() << '\n';
}

void observability_is_a_license() {
    std::cout << "== Observability is a license\n\n";
    const Walkthrough graph = record_walkthrough();
    const auto roots_only = graph.network.entry({graph.loss}).lower();
    const auto observed = graph.network.entry({graph.loss}).observe({graph.hidden}).lower();
    std::cout << "roots only:\n" << roots_only.describe() << '\n';
    std::cout << "observe hidden:\n" << observed.describe() << '\n';
}

void unreached_nodes_are_not_scheduled() {
    std::cout << "== Nodes an entry does not reach\n\n";
    Tape<float> tape;
    auto weights = tape.parameter(Tensor<float>({2, 2}, {0.5f, -0.25f, 0.25f, 0.4f}));
    auto input = tape.input(Tensor<float>({1, 2}, {1.0f, 2.0f}));
    auto hidden = input.matmul(weights).tanh();
    auto loss = (hidden * hidden).sum();
    const auto adjoints = tape.differentiate(loss, {weights});
    const auto network = std::move(tape).into_network();
    const auto training = network.entry(adjoints.roots()).lower();
    std::cout << training.describe() << '\n';
}

void live_volume() {
    std::cout << "== Live volume\n\n";
    Tape<float> tape;
    topos::Mlp mlp(tape, {8, 32, 32, 4}, topos::Activation::Tanh, topos::init::xavier(3));
    const Tensor<float> features = topos::init::normal(5, 1.0)(topos::Shape{64, 8});
    auto predicted = mlp.express(tape.input(features));
    auto loss = (predicted * predicted).sum();
    const auto adjoints = tape.differentiate(loss, mlp.parameters());
    const Symbol loss_symbol = loss;
    const auto network = std::move(tape).into_network();
    const auto training = network.entry(adjoints.roots()).lower();
    const auto inference = network.entry({loss_symbol}).lower();
    for (const auto& [name, plan] :
         {std::pair{"loss + gradients", &training}, std::pair{"loss only", &inference}}) {
        std::cout << name << ": " << plan->live_series().size()
                  << " scheduled nodes, elements alive:\n ";
        for (std::size_t elements : plan->live_series()) {
            std::cout << ' ' << elements;
        }
        std::cout << "\n\n";
    }
}

// What a run of the plan really holds beside the plan's accounting: the arena
// (every intermediate) against the live-volume peak, both in bytes.
void arena_against_live_volume() {
    std::cout << "== The arena\n\n";
    for (const std::size_t batch : {std::size_t{1}, std::size_t{64}, std::size_t{128}}) {
        Tape<float> tape;
        topos::Mlp mlp(tape, {64, 128, 128, 10}, topos::Activation::Tanh, topos::init::xavier(1));
        auto predicted =
            mlp.express(tape.input(topos::init::normal(2, 1.0)(topos::Shape{batch, 64})));
        auto loss = (predicted * predicted).mean();
        const auto adjoints = tape.differentiate(loss, mlp.parameters());
        const Symbol loss_symbol = loss;
        const auto network = std::move(tape).into_network();
        for (const auto& [name, plan] :
             {std::pair{"training ", network.entry(adjoints.roots()).lower()},
              std::pair{"inference", network.entry({loss_symbol}).lower()}}) {
            const std::size_t peak =
                *std::max_element(plan.live_series().begin(), plan.live_series().end());
            std::cout << "mlp 64-128-128-10, batch " << batch << ", " << name << ": arena "
                      << plan.arena_elements() * sizeof(float) << " bytes, live-volume peak "
                      << peak * sizeof(float) << " bytes\n";
        }
    }
    std::cout << '\n';
}

void the_backward_posture() {
    std::cout << "== The backward posture\n\n";
    const Walkthrough graph = record_walkthrough();
    const auto plan = graph.network.entry({graph.loss}).backward().lower();
    const auto run = plan.forward(graph.network.parameters(), {});
    const auto gradients = run.backward(graph.loss);
    std::cout << plan.describe() << '\n'
              << "d loss / d weights through the plan's run: " << gradients.of(graph.weights)
              << "\n\n";
}

// The seeds' wording, made true in every build: a backend that reorders sums
// may be compiled in and still decline a product this small; where the bits
// differ, the tally names the backends that did not compute exactly.
std::string fast_versus_exact(bool same_bits, const topos::Tally& tally) {
    if (!same_bits) {
        std::string served;
        for (const topos::Service& service : tally.services()) {
            if (service.fidelity != topos::Fidelity::Exact) {
                served += (served.empty() ? "" : ", ") + service.backend + " served " +
                          service.formula + " (" + std::string(topos::name_of(service.fidelity)) +
                          ")";
            }
        }
        return "no: " + served;
    }
    const auto backends = topos::Backend::available();
    const bool reorders = std::any_of(backends.begin(), backends.end(), [](const auto& backend) {
        return backend.fidelity == topos::Fidelity::Reordered;
    });
    return reorders ? "yes, no backend served a product this small"
                    : "yes, no backend is on in this build";
}

void exact_and_fast() {
    std::cout << "== Exact and Fast\n\n";
    Tape<float> tape;
    auto weights = tape.parameter(topos::init::xavier(3)(topos::Shape{64, 64}));
    auto batch = tape.input(topos::init::normal(5, 1.0)(topos::Shape{32, 64}));
    const Symbol loss = batch.matmul(weights).tanh().sum();
    const auto network = std::move(tape).into_network();
    const auto parameters = network.parameters();
    const auto interpreter = network.forward(parameters, {});
    const auto exact =
        network.entry({loss}).numerics(topos::Numerics::Exact).lower().forward(parameters, {});
    topos::Run<float> fast = exact;
    const topos::Tally tally = topos::Backend::tallied(
        [&] { fast = network.entry({loss}).lower().forward(parameters, {}); });
    if (!interpreter.of(loss).bit_equal(exact.of(loss))) {
        std::cerr << "an exact plan differs from the interpreter\n";
        std::exit(1);
    }
    std::cout << "interpreter " << interpreter.of(loss) << '\n'
              << "exact plan  " << exact.of(loss) << '\n'
              << "fast plan   " << fast.of(loss) << "\n"
              << "(the seeds print 15.916065 for the same operands: their products and sum\n"
                 " add in another order, docs/exact-math.md#the-seeds-figure-digit-by-digit)\n\n"
              << "exact == interpreter: asserted, in every build\n"
              << "fast == exact: "
              << fast_versus_exact(fast.of(loss).bit_equal(exact.of(loss)), tally)
              << "\n\nwho served the fast plan:\n"
              << tally;
}

// A recorded second derivative carries noise: products with a broadcast 1 and
// the same product written twice. Entry::simplify folds and merges them.
void simplification() {
    std::cout << "\n== Simplification\n\n";
    topos::Tape<double> tape;
    const auto w = tape.parameter(topos::Tensor<double>(topos::Shape{3}, {0.5, -1.0, 2.0}));
    const auto v = tape.input(topos::Tensor<double>(topos::Shape{3}, {1.0, 0.0, -1.0}));
    const auto loss = (w.tanh() * w).sum();
    const topos::Symbol hv = grad((grad(loss, w) * v).sum(), w);
    const auto entry = std::move(tape).into_network().entry({hv});
    const auto plain = entry.lower();
    const auto simplified = entry.simplify().lower();
    std::cout << plain.nodes().size() << " nodes scheduled, " << simplified.nodes().size()
              << " simplified\n"
              << simplified.describe() << "same bits: "
              << (simplified.forward().of(hv).bit_equal(plain.forward().of(hv)) ? "yes" : "no")
              << '\n';
}

// A training loop gives each step's run up to the next: forward_into writes
// the new values into the last run's buffers, and the optimizer updates the
// parameters in place, so a step in steady state allocates no tensor.
void runs_in_a_loop() {
    std::cout << "\n== Runs in a loop\n\n";
    Tape<float> tape;
    const auto weights = tape.parameter(Tensor<float>({2, 2}, {0.5f, -0.25f, 0.25f, 0.4f}));
    const auto input = tape.input(Tensor<float>({1, 2}, {1.0f, 2.0f}));
    const auto hidden = input.matmul(weights).tanh();
    const auto loss = (hidden * hidden).sum();
    const auto adjoints = tape.differentiate(loss, {weights});
    const auto network = std::move(tape).into_network();
    const auto plan = network.entry(adjoints.roots()).numerics(topos::Numerics::Exact).lower();
    auto parameters = network.parameters();
    const topos::optim::Sgd sgd({.learning_rate = 0.1});
    auto state = sgd.start(parameters);
    topos::Run<float> run = plan.forward(parameters);
    const float* gradient_buffer = run.of(adjoints.of(weights)).data().data();
    for (int step = 1; step <= 3; ++step) {
        sgd.step_in_place(parameters, run.recorded_gradients(adjoints), state);
        plan.forward_into(run, parameters);
        std::cout << "step " << step << ": loss " << run.of(loss) << '\n';
    }
    const bool same_bits = run.of(loss).bit_equal(network.forward(parameters, {}).of(loss));
    const bool reused = run.of(adjoints.of(weights)).data().data() == gradient_buffer;
    std::cout << "same bits as the interpreter: " << (same_bits ? "yes" : "no")
              << "\nthe gradient's buffer reused: " << (reused ? "yes" : "no") << '\n';
}

}  // namespace

int main() {
    lowering();
    observability_is_a_license();
    unreached_nodes_are_not_scheduled();
    live_volume();
    arena_against_live_volume();
    the_backward_posture();
    exact_and_fast();
    simplification();
    runs_in_a_loop();
}
