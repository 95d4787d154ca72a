// elect: matches that another subsumes are dropped, then those that would
// write a value a kept match covers; the rest are withdrawn one at a time until
// each one standing keeps its interior values unread outside standing matches,
// undeclared and unretained, and its written results read only after its root.
#include "plan/election.hpp"

#include <algorithm>
#include <numeric>

namespace topos::detail {
namespace {

bool contains(const std::vector<std::uint32_t>& sorted_or_not, std::uint32_t index) {
    return std::find(sorted_or_not.begin(), sorted_or_not.end(), index) != sorted_or_not.end();
}

bool covers(const Match& match, std::uint32_t index) {
    return std::binary_search(match.nodes.begin(), match.nodes.end(), index);
}

// By node: the scheduled nodes that read it, in schedule order, each once.
std::vector<std::vector<std::uint32_t>> readers_of(const std::vector<Node>& nodes,
                                                   const Schedule& schedule) {
    std::vector<std::vector<std::uint32_t>> readers(nodes.size());
    for (std::uint32_t reader : schedule.order) {
        for (std::uint32_t operand : nodes[reader].operands()) {
            auto& list = readers[operand];
            if (list.empty() || list.back() != reader) {  // a reader repeats only at the back
                list.push_back(reader);
            }
        }
    }
    return readers;
}

// Whether `outer` covers every node of `inner` and more: `inner` is the same
// structure stopped short (a fold before its crop, say).
bool subsumes(const Match& outer, const Match& inner) {
    return outer.nodes.size() > inner.nodes.size() && covers(outer, inner.root) &&
           std::includes(
               outer.nodes.begin(), outer.nodes.end(), inner.nodes.begin(), inner.nodes.end());
}

// Drops the matches another match subsumes.
std::vector<Match> without_subsumed(std::vector<Match> matches) {
    std::vector<bool> subsumed(matches.size(), false);
    for (std::size_t inner = 0; inner < matches.size(); ++inner) {
        for (std::size_t outer = 0; outer < matches.size() && !subsumed[inner]; ++outer) {
            subsumed[inner] = outer != inner && subsumes(matches[outer], matches[inner]);
        }
    }
    std::vector<Match> kept;
    for (std::size_t m = 0; m < matches.size(); ++m) {
        if (!subsumed[m]) {
            kept.push_back(std::move(matches[m]));
        }
    }
    return kept;
}

// Keeps matches in root order unless one would write a value another covers.
std::vector<Match> without_conflicts(std::vector<Match> matches, std::size_t node_count) {
    std::vector<bool> written(node_count, false);  // a result of a kept match
    std::vector<bool> covered(node_count, false);  // covered by a kept match
    std::vector<Match> kept;
    for (Match& match : matches) {
        const bool conflict = std::any_of(match.nodes.begin(), match.nodes.end(), [&](auto n) {
            return written[n] || (covered[n] && contains(match.results, n));
        });
        if (conflict) {
            continue;
        }
        for (std::uint32_t n : match.results) {
            written[n] = true;
        }
        for (std::uint32_t n : match.nodes) {
            covered[n] = true;
        }
        kept.push_back(std::move(match));
    }
    return kept;
}

// By node: the candidates that cover it.
std::vector<std::vector<std::uint32_t>> candidates_covering(std::size_t node_count,
                                                            const std::vector<Match>& candidates) {
    std::vector<std::vector<std::uint32_t>> covering(node_count);
    for (std::uint32_t c = 0; c < candidates.size(); ++c) {
        for (std::uint32_t node : candidates[c].nodes) {
            covering[node].push_back(c);
        }
    }
    return covering;
}

class Ballot {
public:
    Ballot(const std::vector<Node>& nodes,
           const Schedule& schedule,
           const std::vector<bool>& declared,
           const std::vector<bool>& retained,
           const std::vector<Match>& candidates)
        : schedule_(schedule),
          declared_(declared),
          retained_(retained),
          candidates_(candidates),
          readers_(readers_of(nodes, schedule)),
          covering_(candidates_covering(nodes.size(), candidates)) {}

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

    // Whether candidate `c` may be elected beside the candidates still standing.
    bool acceptable(std::uint32_t c, const std::vector<bool>& standing) const {
        const Match& match = candidates_[c];
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
            if (declared_[node] || retained_[node] || !readers_fused(c, node, standing)) {
                return false;
            }
        }
        return true;
    }

    const std::vector<std::uint32_t>& covering(std::uint32_t node) const { return covering_[node]; }

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

    // Every reader of an interior value lies in a standing candidate that
    // covers the value as interior too, so no one needs it materialised.
    bool readers_fused(std::uint32_t c,
                       std::uint32_t node,
                       const std::vector<bool>& standing) const {
        const Match& match = candidates_[c];
        const auto& readers = readers_[node];
        const auto& others = covering_[node];
        return std::all_of(readers.begin(), readers.end(), [&](std::uint32_t reader) {
            if (covers(match, reader)) {
                return true;
            }
            return std::any_of(others.begin(), others.end(), [&](std::uint32_t other) {
                return other != c && standing[other] && covers(candidates_[other], reader) &&
                       !contains(candidates_[other].results, node);
            });
        });
    }

    const Schedule& schedule_;
    const std::vector<bool>& declared_;
    const std::vector<bool>& retained_;
    const std::vector<Match>& candidates_;
    std::vector<std::vector<std::uint32_t>> readers_;
    std::vector<std::vector<std::uint32_t>> covering_;
};

// Withdraws candidates until every one standing is acceptable beside the
// others. Withdrawing one can only make others unacceptable, so the standing
// set is the largest consistent one whatever the order; a withdrawal
// re-examines only the candidates that share a node with it.
std::vector<bool> standing_candidates(const Ballot& ballot, const std::vector<Match>& candidates) {
    std::vector<bool> standing(candidates.size(), true);
    std::vector<bool> queued(candidates.size(), true);
    std::vector<std::uint32_t> pending(candidates.size());
    std::iota(pending.begin(), pending.end(), std::uint32_t{0});
    while (!pending.empty()) {
        const std::uint32_t c = pending.back();
        pending.pop_back();
        queued[c] = false;
        if (ballot.acceptable(c, standing)) {
            continue;
        }
        standing[c] = false;
        for (std::uint32_t node : candidates[c].nodes) {
            for (std::uint32_t other : ballot.covering(node)) {
                if (standing[other] && !queued[other]) {
                    queued[other] = true;
                    pending.push_back(other);
                }
            }
        }
    }
    return standing;
}

}  // namespace

std::vector<Election> elect(const std::vector<Node>& nodes,
                            const Schedule& schedule,
                            std::vector<Match> matches,
                            const std::vector<bool>& declared,
                            const std::vector<bool>& retained) {
    const std::vector<Match> candidates =
        without_conflicts(without_subsumed(std::move(matches)), nodes.size());
    const Ballot ballot(nodes, schedule, declared, retained, candidates);
    const std::vector<bool> standing = standing_candidates(ballot, candidates);
    std::vector<Election> elections;
    for (std::size_t c = 0; c < candidates.size(); ++c) {
        if (standing[c]) {
            elections.push_back({candidates[c], ballot.writes(candidates[c])});
        }
    }
    return elections;
}

}  // namespace topos::detail
