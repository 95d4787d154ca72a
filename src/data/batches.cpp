// data::batches: the consecutive ranges of `size` examples that cover `count`,
// the last one shorter unless drop_last leaves it out.
#include <topos/core/error.hpp>
#include <topos/data/batches.hpp>

namespace topos::data {

std::vector<BatchRange> batches(std::size_t count, std::size_t size, BatchOptions options) {
    if (size == 0) {
        throw Error("batches of size 0 hold nothing; give a batch size of at least 1");
    }
    std::vector<BatchRange> ranges;
    for (std::size_t start = 0; start < count; start += size) {
        const std::size_t left = count - start;
        if (left < size && options.drop_last) {
            break;
        }
        ranges.push_back({start, left < size ? left : size});
    }
    return ranges;
}

}  // namespace topos::data
