// Symbol: the detached name of one node, valid against the network it was
// recorded into and every network reopened from it. It outlives the tape.
#pragma once

#include <concepts>
#include <cstdint>
#include <iosfwd>
#include <ranges>
#include <vector>

namespace topos {

class Symbol {
public:
    Symbol() = default;

    Symbol(std::uint32_t index, std::uint64_t lineage) : index_(index), lineage_(lineage) {}

    std::uint32_t index() const { return index_; }

    // The identity of the tape that recorded the node.
    std::uint64_t lineage() const { return lineage_; }

    friend bool operator==(const Symbol&, const Symbol&) = default;

private:
    std::uint32_t index_ = 0;
    std::uint64_t lineage_ = 0;
};

std::ostream& operator<<(std::ostream& out, const Symbol& symbol);

// A range of symbols (or of values, which convert to symbols) other than a
// std::vector<Symbol>: what the templated overloads of entry, differentiate and
// vjp take, beside their std::vector<Symbol> overloads.
template <class R>
concept SymbolRange = std::ranges::input_range<R> && !std::same_as<R, std::vector<Symbol>>;

}  // namespace topos
