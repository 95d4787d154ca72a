// The collectives' agreements: words gathered from every rank in one
// MPI_Allgather and compared; when they differ, every rank gathers the
// descriptions too (all ranks take that branch alike, so no rank waits) and
// throws the same message.
#include "distributed/agreement.hpp"

#include "distributed/environment.hpp"

#include <climits>
#include <cstdint>
#include <vector>

namespace topos::distributed::detail {
namespace {

// Shown in full up to this many distinct holdings; the rest are counted.
constexpr std::size_t holdings_shown = 4;

// A description longer than this is cut, so a message stays readable.
constexpr std::size_t description_shown = 200;

std::string shortened(const std::string& description) {
    if (description.size() <= description_shown) {
        return description;
    }
    return description.substr(0, description_shown) + "... (" + std::to_string(description.size()) +
           " characters)";
}

// Every rank's `text`, in rank order.
std::vector<std::string> gathered_texts(MPI_Comm communicator, int size, const std::string& text) {
    const int length = static_cast<int>(std::min<std::size_t>(text.size(), INT_MAX / size));
    std::vector<int> lengths(static_cast<std::size_t>(size));
    check(MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, communicator),
          "MPI_Allgather");
    std::vector<int> starts(lengths.size());
    int total = 0;
    for (std::size_t r = 0; r < lengths.size(); ++r) {
        starts[r] = total;
        total += lengths[r];
    }
    std::string all(static_cast<std::size_t>(total), ' ');
    check(MPI_Allgatherv(text.data(),
                         length,
                         MPI_CHAR,
                         all.data(),
                         lengths.data(),
                         starts.data(),
                         MPI_CHAR,
                         communicator),
          "MPI_Allgatherv");
    std::vector<std::string> texts;
    for (std::size_t r = 0; r < lengths.size(); ++r) {
        texts.push_back(
            all.substr(static_cast<std::size_t>(starts[r]), static_cast<std::size_t>(lengths[r])));
    }
    return texts;
}

// "rank 0 has X; ranks 1 and 2 have Y": the ranks grouped by what they hold,
// in the order of each group's first rank.
std::string holdings(const std::vector<std::uint64_t>& words,
                     const std::vector<std::string>& descriptions) {
    std::vector<std::size_t> firsts;
    for (std::size_t r = 0; r < words.size(); ++r) {
        bool seen = false;
        for (const std::size_t first : firsts) {
            seen = seen || words[first] == words[r];
        }
        if (!seen) {
            firsts.push_back(r);
        }
    }
    std::string text;
    for (std::size_t group = 0; group < firsts.size() && group < holdings_shown; ++group) {
        std::vector<std::size_t> ranks;
        for (std::size_t r = 0; r < words.size(); ++r) {
            if (words[r] == words[firsts[group]]) {
                ranks.push_back(r);
            }
        }
        std::string names;
        for (std::size_t i = 0; i < ranks.size(); ++i) {
            names +=
                (i == 0 ? "" : (i + 1 == ranks.size() ? " and " : ", ")) + std::to_string(ranks[i]);
        }
        text += (group == 0 ? "" : "; ") + std::string(ranks.size() == 1 ? "rank " : "ranks ") +
                names + (ranks.size() == 1 ? " has " : " have ") + descriptions[firsts[group]];
    }
    if (firsts.size() > holdings_shown) {
        text += "; and " + std::to_string(firsts.size() - holdings_shown) + " other holdings";
    }
    return text;
}

}  // namespace

Agreement element_count(std::size_t count, std::string what) {
    return {
        std::move(what), count, std::to_string(count) + (count == 1 ? " element" : " elements")};
}

template <ComputeElement T>
Agreement shapes_of(std::span<const Tensor<T>> tensors, std::string what) {
    std::uint64_t digest = 14695981039346656037ull;
    const auto mix = [&](std::uint64_t word) { digest = (digest ^ word) * 1099511628211ull; };
    mix(tensors.size());
    std::string description;
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        const Shape& shape = tensors[i].shape();
        mix(shape.rank());
        for (const std::size_t extent : shape.extents()) {
            mix(extent);
        }
        description += (i == 0 ? "" : ", ") + shape.str();
    }
    if (tensors.empty()) {
        description = "none";
    }
    return {std::move(what), digest, description};
}

void check_agreement(MPI_Comm communicator, int size, std::span<const Agreement> agreements) {
    const std::size_t count = agreements.size();
    std::vector<std::uint64_t> mine;
    for (const Agreement& agreement : agreements) {
        mine.push_back(agreement.word);
    }
    std::vector<std::uint64_t> all(count * static_cast<std::size_t>(size));
    check(MPI_Allgather(mine.data(),
                        static_cast<int>(count),
                        MPI_UINT64_T,
                        all.data(),
                        static_cast<int>(count),
                        MPI_UINT64_T,
                        communicator),
          "MPI_Allgather");
    for (std::size_t i = 0; i < count; ++i) {
        std::vector<std::uint64_t> words;
        for (std::size_t r = 0; r < static_cast<std::size_t>(size); ++r) {
            words.push_back(all[r * count + i]);
        }
        for (const std::uint64_t word : words) {
            if (word != words.front()) {
                const std::vector<std::string> descriptions =
                    gathered_texts(communicator, size, shortened(agreements[i].description));
                throw CommunicationError("the ranks disagree on " + agreements[i].what + ": " +
                                         holdings(words, descriptions));
            }
        }
    }
}

template Agreement shapes_of(std::span<const Tensor<float>>, std::string);
template Agreement shapes_of(std::span<const Tensor<double>>, std::string);

}  // namespace topos::distributed::detail
