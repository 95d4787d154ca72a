#include "plan/timed_election.hpp"

#include "core/thread_pool.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace topos::detail {
namespace {

using Seconds = std::chrono::duration<double>;

// How much faster than the reference a timed server must run a trial's
// product to serve it. A tie is not worth the exact sums; and a library's
// threads spin for a while after its calls (OpenBLAS's do), taking cores from
// the next kernel that runs, the reference's runs of a later trial and the
// plan's next steps alike, so a trial within noise of a tie is no win.
constexpr double required_speedup = 1.1;

// Timed runs of each kernel, after one to warm.
constexpr int trial_rounds = 5;

// The fastest of `trial_rounds` runs of `kernel` over `operands`, after one to warm.
template <Element T>
double fastest_run(Kernel<T> kernel,
                   const NodeView& node,
                   std::span<const View<T>> operands,
                   std::vector<T>& out) {
    kernel(node, operands, out.data());
    double fastest = std::numeric_limits<double>::infinity();
    for (int round = 0; round < trial_rounds; ++round) {
        const auto start = std::chrono::steady_clock::now();
        kernel(node, operands, out.data());
        fastest = std::min(fastest, Seconds(std::chrono::steady_clock::now() - start).count());
    }
    return fastest;
}

template <Element T>
bool server_runs_faster(const Server& server, const Node& node, std::span<const Shape> shapes) {
    std::vector<std::vector<T>> values;
    std::vector<View<T>> operands;
    values.reserve(shapes.size());
    for (const Shape& shape : shapes) {
        // Ones: every kernel's speed on them is its speed on normal values.
        values.emplace_back(shape.elements(), T{1});
    }
    for (std::size_t i = 0; i < shapes.size(); ++i) {
        operands.push_back({values[i].data(), &shapes[i]});
    }
    const NodeView view(node.opcode(), node.attributes(), node.shape());
    std::vector<T> out(node.shape().elements());
    const Kernel<T> reference_kernel = op_info(node.opcode()).template kernel<T>();
    const Kernel<T> server_kernel = server.template kernel<T>();
    // The reference first: a library's threads may spin for a while after its
    // calls, and would take the cores from the reference's runs.
    const double reference = fastest_run<T>(reference_kernel, view, operands, out);
    const double served = fastest_run<T>(server_kernel, view, operands, out);
    return served * required_speedup < reference;
}

// What a trial is known by, as text: server, opcode, element size, the pool's
// thread count and the operand shapes.
std::string trial_key(const Server& server,
                      const Node& node,
                      std::span<const Shape> shapes,
                      std::size_t element_bytes) {
    std::string text = std::string(server.name) + ' ' + std::string(name_of(node.opcode())) + ' ' +
                       std::to_string(element_bytes) + ' ' +
                       std::to_string(ThreadPool::instance().thread_count());
    for (const Shape& shape : shapes) {
        text += ' ' + shape.str();
    }
    return text;
}

}  // namespace

template <Element T>
bool wins_timed_trial(const Server& server, const Node& node, std::span<const Shape> operands) {
    static std::mutex mutex;
    static std::map<std::string, bool> outcomes;
    const std::string key = trial_key(server, node, operands, sizeof(T));
    const std::lock_guard lock(mutex);
    const auto known = outcomes.find(key);
    if (known != outcomes.end()) {
        return known->second;
    }
    const bool wins = server_runs_faster<T>(server, node, operands);
    outcomes.emplace(key, wins);
    return wins;
}

template bool wins_timed_trial<float>(const Server&, const Node&, std::span<const Shape>);
template bool wins_timed_trial<double>(const Server&, const Node&, std::span<const Shape>);

}  // namespace topos::detail
