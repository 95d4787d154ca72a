// Symbol: the detached name of one node, valid against the network it was
// recorded into and every network reopened from it. It outlives the tape.
#pragma once

#include <cstdint>
#include <iosfwd>

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

}  // namespace topos
