// order_nodes: ONNX requires a graph's nodes in topological order, but files
// from hand-written tools do not always keep it, so the nodes are sorted
// (Kahn's algorithm, stable: a well-ordered graph keeps its order). A name
// read and never defined, defined twice, or a cycle is a ModelError.
#include "onnx/model_def.hpp"
#include <topos/onnx/errors.hpp>

#include <cstddef>
#include <map>
#include <queue>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace topos::onnx::detail {
namespace {

// Every name defined by the graph itself: its inputs and initializers.
std::set<std::string, std::less<>> graph_names(const ModelDef& model) {
    std::set<std::string, std::less<>> names;
    for (const auto& input : model.inputs) {
        names.insert(input.port.name);
    }
    for (const auto& [name, initializer] : model.initializers) {
        names.insert(name);
    }
    return names;
}

// The node that defines each node output; ModelError for a name defined twice.
std::map<std::string, std::size_t, std::less<>> producers(
    const ModelDef& model, const std::set<std::string, std::less<>>& given) {
    std::map<std::string, std::size_t, std::less<>> producer;
    for (std::size_t index = 0; index < model.nodes.size(); ++index) {
        for (const auto& output : model.nodes[index].outputs) {
            if (output.empty()) {
                continue;
            }
            if (given.contains(output) || !producer.emplace(output, index).second) {
                throw ModelError("not a well-formed ONNX model: the name " + output +
                                 " is defined twice (node " + model.nodes[index].name + ")");
            }
        }
    }
    return producer;
}

}  // namespace

void order_nodes(ModelDef& model) {
    const auto given = graph_names(model);
    const auto producer = producers(model, given);
    const std::size_t count = model.nodes.size();
    std::vector<std::size_t> waiting(count, 0);
    std::vector<std::vector<std::size_t>> readers(count);
    for (std::size_t index = 0; index < count; ++index) {
        for (const auto& input : model.nodes[index].inputs) {
            if (input.empty() || given.contains(input)) {
                continue;
            }
            const auto found = producer.find(input);
            if (found == producer.end()) {
                throw ModelError("not a well-formed ONNX model: node " + model.nodes[index].name +
                                 " (" + model.nodes[index].operator_type + ") reads " + input +
                                 ", which no input, initializer or node defines");
            }
            ++waiting[index];
            readers[found->second].push_back(index);
        }
    }
    std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> ready;
    for (std::size_t index = 0; index < count; ++index) {
        if (waiting[index] == 0) {
            ready.push(index);
        }
    }
    std::vector<NodeDef> ordered;
    ordered.reserve(count);
    while (!ready.empty()) {
        const std::size_t index = ready.top();
        ready.pop();
        ordered.push_back(model.nodes[index]);
        for (std::size_t reader : readers[index]) {
            if (--waiting[reader] == 0) {
                ready.push(reader);
            }
        }
    }
    if (ordered.size() != count) {
        std::string cycle;
        for (std::size_t index = 0; index < count; ++index) {
            if (waiting[index] != 0) {
                cycle += (cycle.empty() ? "" : ", ") + model.nodes[index].name;
            }
        }
        throw ModelError("not a well-formed ONNX model: its nodes form a cycle (" + cycle + ")");
    }
    model.nodes = std::move(ordered);
    for (const auto& output : model.outputs) {
        if (!given.contains(output.port.name) && !producer.contains(output.port.name)) {
            throw ModelError("not a well-formed ONNX model: the graph output " + output.port.name +
                             " is never defined");
        }
    }
}

}  // namespace topos::onnx::detail
