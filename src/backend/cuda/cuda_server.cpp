// The CUDA backend (TOPOS_ENABLE_CUDA): under Numerics::Fast it serves
// products (cuBLAS), elementwise operations, reductions and layout operations
// on an NVIDIA GPU, with sums in its own order (Fidelity::Reordered; the
// tolerances are in docs/guide/backends.md). Without a device at run time it
// serves nothing and every plan runs on the reference kernels. A plan with
// steps it serves keeps its arena on the device (device_run.hpp); the kernel
// here is the same computation on host memory, each call a round trip.
#include "backend/cuda/device.hpp"
#include "backend/cuda/device_run.hpp"
#include "backend/cuda/device_serve.hpp"
#include "graph/node_view.hpp"
#include "plan/backend_seam.hpp"

#include <array>

namespace topos::detail {
namespace {

bool serves(const Node& node, std::span<const Shape> operands, Precision) {
    return cuda::device_present() && cuda::worth_serving(view_of(node), operands);
}

// Uploads the operands, runs the node on the device, downloads the result.
template <Element T>
void round_trip(const NodeView& node, std::span<const View<T>> operands, T* out) {
    thread_local cuda::DeviceBuffer<T> memory;
    std::size_t total = node.shape().elements();
    for (const View<T>& operand : operands) {
        total += operand.shape->elements();
    }
    T* next = memory.reserve(total);
    std::array<View<T>, Node::max_operands> on_device{};
    for (std::size_t i = 0; i < operands.size(); ++i) {
        const std::size_t count = operands[i].shape->elements();
        cuda::upload(operands[i].data, next, count);
        on_device[i] = {next, operands[i].shape};
        next += count;
    }
    cuda::run_on_device<T>(node, std::span<const View<T>>(on_device.data(), operands.size()), next);
    cuda::download(next, out, node.shape().elements());
}

std::vector<std::string> formulas() {
    std::vector<std::string> names;
    for (Opcode opcode : cuda::device_opcodes()) {
        names.emplace_back(name_of(opcode));
    }
    return names;
}

}  // namespace

const Server& cuda_server() {
    static const Server server{"cuda",
                               Fidelity::Reordered,
                               formulas(),
                               serves,
                               round_trip<float>,
                               round_trip<double>,
                               &cuda::device_executor()};
    return server;
}

}  // namespace topos::detail
