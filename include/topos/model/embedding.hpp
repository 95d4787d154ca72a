// Embedding<T>: a table of `vocabulary` rows of `width` numbers; express(indices)
// picks one row per index (a Gather node), so indices of shape [batch, sequence]
// give [batch, sequence, width]. Indices come from Tape::indices; an index
// outside [0, vocabulary) is refused at run time with IndexError.
#pragma once

#include <topos/graph/tape.hpp>
#include <topos/graph/value.hpp>
#include <topos/model/named.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace topos {

template <Element T>
class Embedding {
public:
    // The table, [vocabulary, width], from `table_init` (e.g. init::normal(seed, 0.02)).
    template <class Initialiser>
    Embedding(Tape<T>& tape, std::size_t vocabulary, std::size_t width, Initialiser&& table_init)
        : table_(tape.parameter(table_init.template make<T>(Shape{vocabulary, width}))) {}

    // The table's row for each index: indices [picks...] give [picks..., width].
    Value<T> express(const Value<T>& indices) const;

    // The table.
    std::vector<Value<T>> parameters() const { return {table_}; }

    // "weight", the table, as torch.nn.Embedding names it.
    std::vector<NamedParameter> named_parameters() const { return {{"weight", table_}}; }

    // The table, [vocabulary, width].
    const Value<T>& table() const { return table_; }

    // "Embedding(vocabulary x width)", then the table's shape and node.
    std::string describe() const;

private:
    Value<T> table_;
};

extern template class Embedding<float>;
extern template class Embedding<double>;
extern template class Embedding<bf16>;

}  // namespace topos
