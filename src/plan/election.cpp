#include "plan/election.hpp"

#include <algorithm>

namespace topos::detail {
namespace {

bool contains(const std::vector<std::uint32_t>& sorted_or_not, std::uint32_t index) {
    return std::find(sorted_or_not.begin(), sorted_or_not.end(), index) != sorted_or_not.end();
}

bool covers(const Match& match, std::uint32_t index) {
    return std::binary_search(match.nodes.begin(), match.nodes.end(), index);
}

bool covers_as_interior(const Match& match, std::uint32_t index) {
    return covers(match, index) && !contains(match.results, index);
}

// By node: the scheduled nodes that read it.
std::vector<std::vector<std::uint32_t>> readers_of(const std::vector<Node>& nodes,
                                                   const Schedule& schedule) {
    std::vector<std::vector<std::uint32_t>> readers(nodes.size());
    for (std::uint32_t reader : schedule.order) {
        for (std::uint32_t operand : nodes[reader].operands()) {
            if (!contains(readers[operand], reader)) {
                readers[operand].push_back(reader);
            }
        }
    }
    return readers;
}

// Keeps matches in root order unless one would write a value another covers.
std::vector<Match> without_conflicts(std::vector<Match> matches) {
    std::vector<Match> kept;
    for (Match& match : matches) {
        const bool conflict = std::any_of(kept.begin(), kept.end(), [&](const Match& other) {
            return std::any_of(match.nodes.begin(), match.nodes.end(), [&](std::uint32_t n) {
                return contains(other.results, n) ||
                       (covers(other, n) && contains(match.results, n));
            });
        });
        if (!conflict) {
            kept.push_back(std::move(match));
        }
    }
    return kept;
}

class Ballot {
public:
    Ballot(const std::vector<Node>& nodes,
           const Schedule& schedule,
           const std::vector<bool>& declared,
           const std::vector<bool>& retained)
        : schedule_(schedule),
          declared_(declared),
          retained_(retained),
          readers_(readers_of(nodes, schedule)) {}

    // Whether the kernel must write each result: the root always, a named
    // result when it is declared or read outside the match.
    std::vector<bool> writes(const Match& match) const {
        std::vector<bool> writes(match.results.size());
        for (std::size_t i = 0; i < match.results.size(); ++i) {
            const std::uint32_t result = match.results[i];
            writes[i] = i == 0 || declared_[result] || read_outside(match, result);
        }
        return writes;
    }

    bool acceptable(const Match& match, const std::vector<const Match*>& elected) const {
        const std::vector<bool> written = writes(match);
        for (std::uint32_t node : match.nodes) {
            const auto result = std::find(match.results.begin(), match.results.end(), node);
            if (result != match.results.end() &&
                written[static_cast<std::size_t>(result - match.results.begin())]) {
                if (!readers_run_after(match, node)) {
                    return false;
                }
                continue;
            }
            if (declared_[node] || retained_[node] || !readers_fused(match, node, elected)) {
                return false;
            }
        }
        return true;
    }

private:
    bool read_outside(const Match& match, std::uint32_t node) const {
        const auto& readers = readers_[node];
        return std::any_of(readers.begin(), readers.end(), [&](std::uint32_t reader) {
            return !covers(match, reader);
        });
    }

    bool readers_run_after(const Match& match, std::uint32_t node) const {
        const std::int32_t root = schedule_.position[match.root];
        const auto& readers = readers_[node];
        return std::all_of(readers.begin(), readers.end(), [&](std::uint32_t reader) {
            return covers(match, reader) || schedule_.position[reader] > root;
        });
    }

    // Every reader of an interior value lies in an elected match that covers
    // the value as interior too, so no one needs it materialised.
    bool readers_fused(const Match& match,
                       std::uint32_t node,
                       const std::vector<const Match*>& elected) const {
        const auto& readers = readers_[node];
        return std::all_of(readers.begin(), readers.end(), [&](std::uint32_t reader) {
            if (covers(match, reader)) {
                return true;
            }
            return std::any_of(elected.begin(), elected.end(), [&](const Match* other) {
                return other != &match && covers(*other, reader) &&
                       covers_as_interior(*other, node);
            });
        });
    }

    const Schedule& schedule_;
    const std::vector<bool>& declared_;
    const std::vector<bool>& retained_;
    std::vector<std::vector<std::uint32_t>> readers_;
};

}  // namespace

std::vector<Election> elect(const std::vector<Node>& nodes,
                            const Schedule& schedule,
                            std::vector<Match> matches,
                            const std::vector<bool>& declared,
                            const std::vector<bool>& retained) {
    const std::vector<Match> candidates = without_conflicts(std::move(matches));
    const Ballot ballot(nodes, schedule, declared, retained);
    std::vector<const Match*> elected;
    elected.reserve(candidates.size());
    for (const Match& match : candidates) {
        elected.push_back(&match);
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (auto it = elected.begin(); it != elected.end(); ++it) {
            if (!ballot.acceptable(**it, elected)) {
                elected.erase(it);
                changed = true;
                break;
            }
        }
    }
    std::vector<Election> elections;
    elections.reserve(elected.size());
    for (const Match* match : elected) {
        elections.push_back({*match, ballot.writes(*match)});
    }
    return elections;
}

}  // namespace topos::detail
