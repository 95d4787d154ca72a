// A token embedding read as data: each token id's row of the table, copied
// into place, for Llama::embed and the generator's embedded feeds.
#pragma once

#include <topos/core/error.hpp>
#include <topos/core/tensor.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace topos::detail {

// Writes the table's row (hidden values) of tokens[i] at out[i * hidden], for
// every i; an id outside [0, vocabulary) is an IndexError naming it and its
// place. table holds vocabulary rows, out tokens.size() of them.
template <Element T>
void copy_embedding_rows(std::span<const T> table,
                         std::size_t vocabulary,
                         std::size_t hidden,
                         std::span<const std::int64_t> tokens,
                         std::span<T> out) {
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const std::int64_t token = tokens[i];
        if (token < 0 || static_cast<std::size_t>(token) >= vocabulary) {
            throw IndexError("token id " + std::to_string(token) + " at position " +
                             std::to_string(i) + " is outside the vocabulary of " +
                             std::to_string(vocabulary));
        }
        const auto row = table.subspan(static_cast<std::size_t>(token) * hidden, hidden);
        std::copy(row.begin(), row.end(), out.begin() + static_cast<std::ptrdiff_t>(i * hidden));
    }
}

}  // namespace topos::detail
