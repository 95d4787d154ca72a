// A plan's forward allocates per run, never per node: the count of heap
// allocations in steady state does not grow with the number of nodes.
#include <topos/topos.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <vector>

namespace {
std::atomic<std::size_t> allocations{0};
}  // namespace

// Every form of the global allocation functions is replaced, so all memory
// goes through malloc and free (a sanitizer sees matching pairs) and every
// allocation is counted.
void* operator new(std::size_t size) {
    ++allocations;
    if (void* memory = std::malloc(size == 0 ? 1 : size)) {
        return memory;
    }
    throw std::bad_alloc();
}

void* operator new[](std::size_t size) {
    return operator new(size);
}

void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
    ++allocations;
    return std::malloc(size == 0 ? 1 : size);
}

void* operator new[](std::size_t size, const std::nothrow_t& tag) noexcept {
    return operator new(size, tag);
}

void operator delete(void* memory) noexcept {
    std::free(memory);
}

void operator delete[](void* memory) noexcept {
    std::free(memory);
}

void operator delete(void* memory, std::size_t) noexcept {
    std::free(memory);
}

void operator delete[](void* memory, std::size_t) noexcept {
    std::free(memory);
}

void operator delete(void* memory, const std::nothrow_t&) noexcept {
    std::free(memory);
}

void operator delete[](void* memory, const std::nothrow_t&) noexcept {
    std::free(memory);
}

namespace topos {
namespace {

// A chain of `length` elementwise nodes over a [16] input, and its plan.
std::size_t allocations_per_forward(std::size_t length) {
    Tape<float> tape;
    auto x = tape.input(Tensor<float>::filled({16}, 0.5f));
    auto y = x;
    for (std::size_t i = 0; i < length; ++i) {
        y = (y * x).tanh() + x;
    }
    const Symbol loss = y.sum();
    const auto network = std::move(tape).into_network();
    const auto parameters = network.parameters();
    const Plan<float> plan = network.entry({loss}).lower();
    for (int warm = 0; warm < 3; ++warm) {
        plan.forward(parameters, {});
    }
    const std::size_t before = allocations.load();
    constexpr std::size_t runs = 10;
    for (std::size_t run = 0; run < runs; ++run) {
        plan.forward(parameters, {});
    }
    return (allocations.load() - before) / runs;
}

TEST(PlanAllocations, SteadyStateForwardAllocatesPerRunNotPerNode) {
    const std::size_t short_chain = allocations_per_forward(10);
    const std::size_t long_chain = allocations_per_forward(200);
    EXPECT_EQ(short_chain, long_chain);
    EXPECT_LE(long_chain, 8u);
}

// The allocations of one steady-state run of a plan that declares `declared`
// values of 64 elements each, by forward (a new run each time) or by
// forward_into (the previous run given up).
struct RunAllocations {
    std::size_t forward;
    std::size_t forward_into;
};

RunAllocations allocations_per_run(std::size_t declared) {
    Tape<float> tape;
    auto x = tape.input(Tensor<float>::filled({64}, 0.5f));
    std::vector<Symbol> roots;
    auto y = x;
    for (std::size_t i = 0; i < declared; ++i) {
        y = (y * x).tanh();
        roots.push_back(y);
    }
    const auto network = std::move(tape).into_network();
    const auto parameters = network.parameters();
    const Plan<float> plan = network.entry(roots).lower();
    constexpr std::size_t runs = 10;
    auto per_run = [&](auto&& one_run) {
        for (int warm = 0; warm < 3; ++warm) {
            one_run();
        }
        const std::size_t before = allocations.load();
        for (std::size_t run = 0; run < runs; ++run) {
            one_run();
        }
        return (allocations.load() - before) / runs;
    };
    topos::Run<float> run = plan.forward(parameters);
    return {per_run([&] { run = plan.forward(parameters); }),
            per_run([&] { plan.forward_into(run, parameters); })};
}

TEST(PlanAllocations, ForwardIntoAllocatesNoValueBuffersInSteadyState) {
    const RunAllocations few = allocations_per_run(4);
    const RunAllocations many = allocations_per_run(40);
    EXPECT_EQ(few.forward_into, many.forward_into);
    EXPECT_LE(many.forward_into, 8u);
    // forward allocates one buffer per declared value; forward_into none.
    EXPECT_EQ(many.forward - few.forward, 36u);
}

}  // namespace
}  // namespace topos
