// Batches of a sequence of examples: consecutive ranges of positions.
#pragma once

#include <cstddef>
#include <vector>

namespace topos::data {

// Positions start, start + 1, ..., start + count - 1 of an order of examples.
struct BatchRange {
    std::size_t start = 0;
    std::size_t count = 0;

    // Memberwise equality.
    friend bool operator==(const BatchRange&, const BatchRange&) = default;
};

// The options of batches().
struct BatchOptions {
    // Without it, the last batch holds what is left (count % size examples).
    bool drop_last = false;
};

// The batches of `count` examples, `size` each. Throws Error for a size of 0.
std::vector<BatchRange> batches(std::size_t count, std::size_t size, BatchOptions options = {});

}  // namespace topos::data
