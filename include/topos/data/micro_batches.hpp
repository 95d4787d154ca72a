// data::MicroBatches: a global batch cut into a fixed number of micro-batches,
// and the one tree their gradients are summed in, so that a training step's
// bits depend on the number of micro-batches and never on how many processes
// compute them (distributed::DataParallel with `.micro_batches`, or one
// process with value_and_gradients_in_micro_batches).
//
// Micro-batch m of a batch of B rows cut into M holds B / M rows, one more for
// the first B % M, contiguous and in order. Each one's loss and gradients are
// computed alone, weighted by its share of the rows (rows / B), and the M
// weighted results are summed in the tree over [0, M): a node [lo, hi) of more
// than one micro-batch is the sum, element by element, of its children
// [lo, lo + h) and [lo + h, hi), h the largest power of two below hi - lo. A
// holder of the contiguous micro-batches [a, b) sums the largest nodes inside
// them (`covering`) itself; whoever holds the rest, the tree is the same.
#pragma once

#include <topos/data/batches.hpp>
#include <topos/model/function.hpp>

#include <cstddef>
#include <map>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

namespace topos::data {

class MicroBatches {
public:
    // Throws Error when `count` is 0 or the batch has fewer rows than micro-batches.
    MicroBatches(std::size_t rows, std::size_t count);

    // The rows of the whole batch.
    std::size_t rows() const { return rows_; }

    // The number of micro-batches.
    std::size_t count() const { return count_; }

    // The rows of micro-batch `index`.
    BatchRange rows_of(std::size_t index) const;

    // Micro-batch `index`'s share of the global mean: its rows / the batch's.
    double weight_of(std::size_t index) const;

    // Micro-batch `index`'s rows of every input (each the whole batch's, its
    // first axis the rows): views, no copy. Throws Error for an input of
    // another row count.
    template <Element T>
    std::vector<Tensor<T>> inputs_of(std::span<const Tensor<T>> inputs, std::size_t index) const;

    // The micro-batches `holder` of `holders` computes: contiguous, count /
    // holders of them, one more for the first count % holders (none when there
    // are more holders than micro-batches).
    BatchRange held_by(std::size_t holder, std::size_t holders) const;

    // The nodes of the tree that make up `micro_batches` (a range of them):
    // the largest whole nodes inside it, left to right.
    std::vector<BatchRange> covering(BatchRange micro_batches) const;

    // The whole tree's root: every micro-batch.
    BatchRange root() const { return {0, count_}; }

    // The two children of a node of more than one micro-batch.
    static std::pair<BatchRange, BatchRange> children(BatchRange node);

private:
    std::size_t rows_;
    std::size_t count_;
};

// Rows `range` of every input, views, no copy: each input's first axis must
// hold the batch's `rows` (Error otherwise: "every input of <step> has the
// batch's 37 rows first; one is [36, 4]").
template <Element T>
std::vector<Tensor<T>> rows_of_inputs(std::span<const Tensor<T>> inputs,
                                      std::size_t rows,
                                      BatchRange range,
                                      std::string_view step);

// The value of the tree's node `node` from the values of nodes that make it
// up (`known`, keyed by (start, count)): a known node's own value, any other
// the element-by-element sum of its children's, left + right.
template <class T>
std::vector<T> tree_value(
    BatchRange node,
    const std::map<std::pair<std::size_t, std::size_t>, std::span<const T>>& known);

// The value of one node of the tree from its micro-batches' values, pushed
// one at a time in order: the same sum as tree_value over them, holding no
// more than log2(micro-batches) + 2 values at once (a node's left child is a
// whole power of two of micro-batches, so equal neighbours merge as they
// come, and what is left folds from the right).
template <class T>
class StreamedTree {
public:
    // The next micro-batch's value.
    void push(std::vector<T> value) {
        std::size_t size = 1;
        while (!pending_.empty() && pending_.back().first == size) {
            add_into(pending_.back().second, value);
            value = std::move(pending_.back().second);
            size *= 2;
            pending_.pop_back();
        }
        pending_.emplace_back(size, std::move(value));
    }

    // Element `i` of the node's value when `last` is element i of the value
    // of its last micro-batch, not pushed: each pending value, from the last
    // pushed back, added on the left, as push and sum would add them. Lets a
    // caller finish the node range by range while the last value is computed.
    T with_last(std::size_t i, T last) const {
        for (auto value = pending_.rbegin(); value != pending_.rend(); ++value) {
            last = value->second[i] + last;
        }
        return last;
    }

    // The node's value, once every micro-batch is pushed.
    std::vector<T> sum() && {
        std::vector<T> sum = std::move(pending_.back().second);
        pending_.pop_back();
        while (!pending_.empty()) {
            add_into(pending_.back().second, sum);
            sum = std::move(pending_.back().second);
            pending_.pop_back();
        }
        return sum;
    }

private:
    static void add_into(std::vector<T>& left, const std::vector<T>& right) {
        for (std::size_t i = 0; i < left.size(); ++i) {
            left[i] += right[i];
        }
    }

    std::vector<std::pair<std::size_t, std::vector<T>>> pending_;  // (micro-batches, value)
};

// The value of the tree's node `node` from its micro-batches' values,
// `leaf(m)` for each m in it, in order (StreamedTree).
template <class T, class Leaf>
std::vector<T> streamed_tree_value(BatchRange node, const Leaf& leaf) {
    StreamedTree<T> tree;
    for (std::size_t m = node.start; m < node.start + node.count; ++m) {
        tree.push(leaf(m));
    }
    return std::move(tree).sum();
}

// The loss and gradients of `loss` over a global batch (`inputs`, the batch
// first in each), computed micro-batch by micro-batch and summed in the tree:
// the bits distributed::DataParallel gives with as many micro-batches, on any
// number of ranks. `loss` must give a rank-0 value (a mean over its rows).
template <ComputeElement T>
ValueAndGradients<T> value_and_gradients_in_micro_batches(const Function<T>& loss,
                                                          const Parameters<T>& parameters,
                                                          std::span<const Tensor<T>> inputs,
                                                          std::size_t micro_batches);

// One micro-batch's weighted loss and gradients, flattened: the loss times
// rows / B first, then every gradient's elements times the same weight, slot
// after slot. What the tree sums.
template <ComputeElement T>
std::vector<T> weighted_micro_batch(const Function<T>& loss,
                                    const Parameters<T>& parameters,
                                    std::span<const Tensor<T>> inputs,
                                    const MicroBatches& micro_batches,
                                    std::size_t index);

// A step's loss and gradients times `weight`, flattened: the loss first,
// then every gradient's elements, slot after slot.
template <ComputeElement T>
std::vector<T> weighted_flat(const ValueAndGradients<T>& step, T weight);

// The flattened sum back as a loss and gradients in the slots of `like`.
template <ComputeElement T>
ValueAndGradients<T> unflattened_step(const Parameters<T>& like, std::span<const T> flat);

}  // namespace topos::data
