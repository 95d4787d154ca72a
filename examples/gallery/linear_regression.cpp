// Linear regression: 4 features, 1,000 examples drawn with a seeded generator
// from y = x . (2, -3, 0.5, 1) + 4 + noise, fitted by full-batch gradient
// descent on the mean squared error through a compiled plan. The fit is
// compared with the least-squares solution of the normal equations.
#include "support/report.hpp"
#include <topos/topos.hpp>

#include <array>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <vector>

namespace {

constexpr std::size_t examples = 1000;
constexpr std::size_t features = 4;
constexpr std::array<double, features> true_weights{2, -3, 0.5, 1};
constexpr double true_bias = 4;

struct Data {
    std::vector<double> x;  // examples * features
    std::vector<double> y;  // examples
};

// Features uniform in [-1, 1), noise uniform in [-0.1, 0.1).
Data draw_data() {
    topos::data::Generator generator(2024);
    Data data;
    for (std::size_t e = 0; e < examples; ++e) {
        double y = true_bias;
        for (std::size_t f = 0; f < features; ++f) {
            data.x.push_back(2 * generator.unit() - 1);
            y += true_weights[f] * data.x.back();
        }
        data.y.push_back(y + 0.2 * generator.unit() - 0.1);
    }
    return data;
}

// The least-squares weights and bias: the normal equations [X 1]^T [X 1] b =
// [X 1]^T y, solved by Gaussian elimination with partial pivoting.
std::array<double, features + 1> least_squares(const Data& data) {
    constexpr std::size_t n = features + 1;
    std::array<std::array<double, n + 1>, n> system{};
    for (std::size_t e = 0; e < examples; ++e) {
        std::array<double, n> row{};
        for (std::size_t f = 0; f < features; ++f) {
            row[f] = data.x[e * features + f];
        }
        row[features] = 1;
        for (std::size_t i = 0; i < n; ++i) {
            for (std::size_t j = 0; j < n; ++j) {
                system[i][j] += row[i] * row[j];
            }
            system[i][n] += row[i] * data.y[e];
        }
    }
    for (std::size_t pivot = 0; pivot < n; ++pivot) {
        std::size_t best = pivot;
        for (std::size_t r = pivot + 1; r < n; ++r) {
            best = std::abs(system[r][pivot]) > std::abs(system[best][pivot]) ? r : best;
        }
        std::swap(system[pivot], system[best]);
        for (std::size_t r = 0; r < n; ++r) {
            if (r == pivot) {
                continue;
            }
            const double factor = system[r][pivot] / system[pivot][pivot];
            for (std::size_t c = pivot; c <= n; ++c) {
                system[r][c] -= factor * system[pivot][c];
            }
        }
    }
    std::array<double, n> solution{};
    for (std::size_t i = 0; i < n; ++i) {
        solution[i] = system[i][n] / system[i][i];
    }
    return solution;
}

constexpr std::array<const char*, features> weight_names{"w0", "w1", "w2", "w3"};

void print_row(const char* name, double truth, double exact, double fitted) {
    std::cout << std::left << std::setw(9) << name << std::right << std::setw(10) << truth
              << std::setw(15) << exact << std::setw(18) << fitted << '\n';
}

}  // namespace

int main(int argc, char** argv) {
    gallery::TrainingReport report("Linear regression by gradient descent", argc, argv);
    const Data data = draw_data();
    topos::Tape<double> tape;
    const topos::Linear<double> linear(tape, features, 1, topos::init::zeros());
    auto x = tape.input(topos::Tensor<double>(topos::Shape{examples, features}, data.x));
    auto y = tape.input(topos::Tensor<double>(topos::Shape{examples, 1}, data.y));
    auto loss = topos::mse(linear.express(x), y);
    const auto adjoints = tape.differentiate(loss, linear.parameters());
    const auto network = std::move(tape).into_network();
    const auto plan = network.entry(adjoints.roots()).numerics(topos::Numerics::Exact).lower();

    const std::size_t steps = 200;
    topos::data::Progress progress(steps, {.every = 25});
    auto parameters = network.parameters();
    for (std::size_t step = 0; step < steps; ++step) {
        const auto run = plan.forward(parameters, {});
        parameters = parameters.step(
            run.recorded_gradients(adjoints),
            [](const auto& p, const auto& g) { return p - g * topos::Tensor<double>(0.3); });
        progress.update(step, run.of(loss).scalar(), examples);
    }
    progress.finish();

    const auto fitted = parameters.of(linear.weight()).data();
    const double fitted_bias = parameters.of(linear.bias()).data()[0];
    const auto exact = least_squares(data);
    double largest_gap = std::abs(fitted_bias - exact[features]);
    std::cout << std::fixed << std::setprecision(6)
              << "parameter       true  least squares  gradient descent\n";
    for (std::size_t f = 0; f < features; ++f) {
        print_row(weight_names[f], true_weights[f], exact[f], fitted[f]);
        largest_gap = std::max(largest_gap, std::abs(fitted[f] - exact[f]));
    }
    print_row("bias", true_bias, exact[features], fitted_bias);
    const bool converged = largest_gap < 1e-6;
    std::cout << "gradient descent within 1e-6 of least squares: " << (converged ? "yes" : "no")
              << '\n';
    report.losses("mean squared error", progress.losses());
    report.add("The plan", topos::show::card(plan));
    report.add("The fitted parameters", topos::show::card(parameters));
    report.finish();
    return converged ? 0 : 1;
}
