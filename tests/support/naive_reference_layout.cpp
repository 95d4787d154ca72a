// The naive references of the layout and indexing opcodes, each over plain
// coordinates: which operand element every output element reads (or, for Fold
// and ScatterAdd, where every operand element is added, ascending from +0).
#include "support/naive_reference_kernels.hpp"

namespace topos::test::naive {

// ---- layout ----

Expected reshape(const Node& node, const Operands& x) {
    // The same row-major order: output position p is operand position p.
    return exactly(tabulate(node.shape(), [&](const Coordinates& at) {
        return element(x[0], coordinates_of(x[0].shape(), position_of(node.shape(), at)));
    }));
}

Expected permute(const Node& node, const Operands& x) {
    const Axes& order = node.attributes_as<PermuteAttributes>().order;
    return exactly(tabulate(node.shape(), [&](const Coordinates& at) {
        Coordinates source(at.size());
        for (std::size_t axis = 0; axis < at.size(); ++axis) {
            source[order[axis]] = at[axis];
        }
        return element(x[0], source);
    }));
}

Expected broadcast_along(const Node& node, const Operands& x) {
    const std::size_t axis = node.attributes_as<BroadcastAttributes>().axis;
    return exactly(tabulate(
        node.shape(), [&](const Coordinates& at) { return element(x[0], without(at, axis)); }));
}

// Element w of window c reads position c * step + w * dilation.
Expected unfold(const Node& node, const Operands& x) {
    const auto& window = node.attributes_as<WindowAttributes>();
    return exactly(tabulate(node.shape(), [&](const Coordinates& at) {
        Coordinates source = without(at, window.axis + 1);
        source[window.axis] = at[window.axis] * window.step + at[window.axis + 1] * window.dilation;
        return element(x[0], source);
    }));
}

// Every window element added into zeros where it was read from, in row-major
// order of the windows: ascending windows, then ascending window elements.
Expected fold(const Node& node, const Operands& x) {
    const auto& fold = node.attributes_as<FoldAttributes>();
    std::vector<double> out(node.shape().elements(), +0.0);
    for (std::size_t flat = 0; flat < x[0].elements(); ++flat) {
        const Coordinates at = coordinates_of(x[0].shape(), flat);
        Coordinates target = without(at, fold.axis + 1);
        target[fold.axis] = at[fold.axis] * fold.step + at[fold.axis + 1] * fold.dilation;
        out[position_of(node.shape(), target)] += x[0].data()[flat];
    }
    return exactly(Tensor<double>(node.shape(), out));
}

Expected narrow(const Node& node, const Operands& x) {
    const auto& narrow = node.attributes_as<NarrowAttributes>();
    return exactly(tabulate(node.shape(), [&](const Coordinates& at) {
        Coordinates source = at;
        source[narrow.axis] += narrow.start;
        return element(x[0], source);
    }));
}

Expected slice(const Node& node, const Operands& x) {
    const auto& slice = node.attributes_as<SliceAttributes>();
    return exactly(tabulate(node.shape(), [&](const Coordinates& at) {
        Coordinates source = at;
        source[slice.axis] = slice.start + at[slice.axis] * slice.step;
        return element(x[0], source);
    }));
}

// Output position before + i * (interior + 1) holds operand position i; every
// other position is +0.
Expected pad(const Node& node, const Operands& x) {
    const auto& pad = node.attributes_as<PadAttributes>();
    const std::size_t extent = x[0].shape()[pad.axis];
    return exactly(tabulate(node.shape(), [&](const Coordinates& at) {
        const std::size_t position = at[pad.axis];
        if (position < pad.before || (position - pad.before) % (pad.interior + 1) != 0 ||
            (position - pad.before) / (pad.interior + 1) >= extent) {
            return +0.0;
        }
        Coordinates source = at;
        source[pad.axis] = (position - pad.before) / (pad.interior + 1);
        return element(x[0], source);
    }));
}

Expected concat(const Node& node, const Operands& x) {
    const std::size_t axis = node.attributes_as<AxisAttributes>().axis;
    const std::size_t first = x[0].shape()[axis];
    return exactly(tabulate(node.shape(), [&](const Coordinates& at) {
        if (at[axis] < first) {
            return element(x[0], at);
        }
        Coordinates source = at;
        source[axis] -= first;
        return element(x[1], source);
    }));
}

// ---- indexing ----

// Table [rows, rest...] and indices [picks...]: out[p..., r...] = table[index[p...], r...].
Expected gather(const Node& node, const Operands& x) {
    const Tensor<double>& table = x[0];
    const Tensor<double>& indices = x[1];
    const std::size_t picks = indices.shape().rank();
    return exactly(tabulate(node.shape(), [&](const Coordinates& at) {
        const std::size_t row = row_of(element(indices, part(at, 0, picks)));
        return element(table, joined({row}, part(at, picks, at.size())));
    }));
}

// Indices [picks...] and updates [picks..., rest...]: zeros of [rows, rest...],
// each update row added at its index, picks ascending.
Expected scatter_add(const Node& node, const Operands& x) {
    const Tensor<double>& indices = x[0];
    const Tensor<double>& updates = x[1];
    const std::size_t picks = indices.shape().rank();
    std::vector<double> out(node.shape().elements(), +0.0);
    for (std::size_t flat = 0; flat < updates.elements(); ++flat) {
        const Coordinates at = coordinates_of(updates.shape(), flat);
        const std::size_t row = row_of(element(indices, part(at, 0, picks)));
        const Coordinates target = joined({row}, part(at, picks, at.size()));
        out[position_of(node.shape(), target)] += updates.data()[flat];
    }
    return exactly(Tensor<double>(node.shape(), out));
}

// Indices [picks...] give [picks..., depth]: 1 where the last coordinate is the index.
Expected one_hot(const Node& node, const Operands& x) {
    const std::size_t picks = x[0].shape().rank();
    return exactly(tabulate(node.shape(), [&](const Coordinates& at) {
        return at[picks] == row_of(element(x[0], part(at, 0, picks))) ? 1.0 : 0.0;
    }));
}

}  // namespace topos::test::naive
