// The text of the opcode vocabulary: opcodes, element kinds and comparison
// directions (EQ, NE, ... as StableHLO spells them), Axes (checked against the
// maximum rank), and every attribute struct as key=value pairs for describe().
#include <topos/core/error.hpp>
#include <topos/ops/opcode.hpp>

#include <algorithm>
#include <ostream>

namespace topos {

std::ostream& operator<<(std::ostream& out, Opcode opcode) {
    return out << name_of(opcode);
}

std::ostream& operator<<(std::ostream& out, DType dtype) {
    switch (dtype) {
        case DType::Real:
            return out << "real";
        case DType::Index:
            return out << "index";
    }
    return out;
}

std::ostream& operator<<(std::ostream& out, Comparison comparison) {
    switch (comparison) {
        case Comparison::Equal:
            return out << "EQ";
        case Comparison::NotEqual:
            return out << "NE";
        case Comparison::Less:
            return out << "LT";
        case Comparison::LessEqual:
            return out << "LE";
        case Comparison::Greater:
            return out << "GT";
        case Comparison::GreaterEqual:
            return out << "GE";
    }
    return out;
}

std::ostream& operator<<(std::ostream& out, ElementType type) {
    switch (type) {
        case ElementType::F32:
            return out << "f32";
        case ElementType::F64:
            return out << "f64";
        case ElementType::BF16:
            return out << "bf16";
    }
    return out;
}

Axes::Axes(std::initializer_list<std::size_t> axes)
    : Axes(std::span<const std::size_t>(axes.begin(), axes.size())) {}

Axes::Axes(std::span<const std::size_t> axes) : size_(axes.size()) {
    if (axes.size() > Shape::max_rank) {
        throw ShapeError("an axis list of " + std::to_string(axes.size()) +
                         " entries exceeds the maximum rank of " + std::to_string(Shape::max_rank));
    }
    std::copy(axes.begin(), axes.end(), axes_.begin());
}

bool operator==(const Axes& a, const Axes& b) {
    return std::equal(a.values().begin(), a.values().end(), b.values().begin(), b.values().end());
}

std::ostream& operator<<(std::ostream& out, const Axes& axes) {
    out << '[';
    for (std::size_t i = 0; i < axes.size(); ++i) {
        out << (i ? ", " : "") << axes[i];
    }
    return out << ']';
}

namespace {

struct AttributePrinter {
    std::ostream& out;

    void operator()(const NoAttributes&) const {}

    void operator()(const AxisAttributes& a) const { out << "axis=" << a.axis; }

    void operator()(const ReshapeAttributes& a) const { out << "shape=" << a.shape; }

    void operator()(const PermuteAttributes& a) const { out << "order=" << a.order; }

    void operator()(const BroadcastAttributes& a) const {
        out << "axis=" << a.axis << " extent=" << a.extent;
    }

    void operator()(const WindowAttributes& a) const {
        out << "axis=" << a.axis << " size=" << a.size << " step=" << a.step
            << " dilation=" << a.dilation;
    }

    void operator()(const FoldAttributes& a) const {
        out << "axis=" << a.axis << " size=" << a.size << " step=" << a.step
            << " dilation=" << a.dilation << " extent=" << a.extent;
    }

    void operator()(const NarrowAttributes& a) const {
        out << "axis=" << a.axis << " start=" << a.start << " len=" << a.length;
    }

    void operator()(const PadAttributes& a) const {
        out << "axis=" << a.axis << " before=" << a.before << " after=" << a.after;
        if (a.interior != 0) {
            out << " interior=" << a.interior;
        }
    }

    void operator()(const SliceAttributes& a) const {
        out << "axis=" << a.axis << " start=" << a.start << " len=" << a.length
            << " step=" << a.step;
    }

    void operator()(const CompareAttributes& a) const { out << "direction=" << a.direction; }

    void operator()(const RowsAttributes& a) const { out << "rows=" << a.rows; }

    void operator()(const ConvertAttributes& a) const { out << "to=" << a.to; }
};

}  // namespace

std::ostream& operator<<(std::ostream& out, const Attributes& attributes) {
    std::visit(AttributePrinter{out}, attributes);
    return out;
}

}  // namespace topos
