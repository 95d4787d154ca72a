// libFuzzer target for the checkpoint loader. Each input is loaded as a whole
// file in memory into a small fixed network in float and in double, as
// parameters, an Sgd state and an Adam state, and once more through the file
// reader (a memfd, so no file system is involved). A CheckpointError is the
// expected refusal; any other exception, a crash or a sanitizer report is a
// finding. The seed corpus (fuzz/corpus/checkpoint/) holds valid checkpoints
// of this network, written by fuzz/corpus/make_checkpoint_corpus.py, and
// crafted headers (crafted_*: deep nesting, duplicate keys, escapes and
// surrogates, malformed UTF-8, numbers past 64 bits).
#include "memory_file.hpp"
#include "model/checkpoint_bytes.hpp"
#include <topos/core/error.hpp>
#include <topos/graph/network.hpp>
#include <topos/graph/tape.hpp>
#include <topos/model/checkpoint.hpp>
#include <topos/model/init.hpp>
#include <topos/model/mlp.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace {

using topos::CheckpointError;
using topos::Element;
using topos::Network;

// parameter.0 [3, 4], parameter.1 [4], parameter.2 [4, 2], parameter.3 [2].
template <Element T>
Network<T> small_mlp() {
    topos::Tape<T> tape;
    const topos::Mlp<T> mlp(tape, {3, 4, 2}, topos::Activation::Tanh, topos::init::normal(1, 1.0));
    (void)mlp.express(tape.input(topos::Tensor<T>::filled(topos::Shape{1, 3}, T{1})));
    return std::move(tape).into_network();
}

template <Element T>
const Network<T>& network() {
    static const Network<T> fixed = small_mlp<T>();
    return fixed;
}

template <Element T>
void load_every_way(std::span<const std::byte> bytes) {
    const std::string origin = "the fuzzer's input";
    try {
        (void)topos::checkpoint::load_from_bytes(bytes, network<T>(), origin);
    } catch (const CheckpointError&) {
    }
    try {
        (void)topos::checkpoint::load_sgd_state_from_bytes(bytes, network<T>(), origin);
    } catch (const CheckpointError&) {
    }
    try {
        (void)topos::checkpoint::load_adam_state_from_bytes(bytes, network<T>(), origin);
    } catch (const CheckpointError&) {
    }
}

void load_through_a_file(std::span<const std::byte> bytes) {
    static const topos::fuzz::MemoryFile file("checkpoint_fuzz");
    try {
        (void)topos::checkpoint::load(file.path_holding(bytes.data(), bytes.size()),
                                      network<float>());
    } catch (const CheckpointError&) {
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
    load_every_way<float>(bytes);
    load_every_way<double>(bytes);
    load_through_a_file(bytes);
    return 0;
}
