// describe(): a tensor laid out for people, after PyTorch's printing. << stays
// one line because golden files and logs compare it; describe() instead names
// the type and shape, puts each row on its own line with its columns aligned,
// and elides the middle of large tensors so that the text stays short.
#include "core/float_text.hpp"
#include <topos/core/tensor.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace topos {
namespace {

// Stands, among the positions shown of an axis, where the elided ones are.
constexpr std::size_t ellipsis = std::numeric_limits<std::size_t>::max();

// The shortest round-trip decimal, as << writes it, except that every NaN is
// "nan": the sign of a NaN means nothing to a reader.
template <TensorElement T>
std::string decimal(T value) {
    if constexpr (std::same_as<T, bf16>) {
        return decimal(static_cast<float>(value)) == "nan" ? "nan" : to_string(value);
    } else {
        if (std::isnan(value)) {
            return "nan";
        }
        char buffer[64];
        const auto result = detail::to_chars(buffer, buffer + sizeof buffer, value);
        return {buffer, result.ptr};
    }
}

std::vector<std::size_t> shown_of_axis(std::size_t extent, bool elide, std::size_t edge) {
    std::vector<std::size_t> shown;
    if (!elide || extent <= 2 * edge) {
        for (std::size_t p = 0; p < extent; ++p) {
            shown.push_back(p);
        }
        return shown;
    }
    for (std::size_t p = 0; p < edge; ++p) {
        shown.push_back(p);
    }
    shown.push_back(ellipsis);
    for (std::size_t p = extent - edge; p < extent; ++p) {
        shown.push_back(p);
    }
    return shown;
}

// The nested rows of a tensor of rank >= 1 with at least one element. Column k
// of the last axis has one width over the whole printout, so that columns line
// up across every row and every block.
template <TensorElement T>
class Layout {
public:
    Layout(const Tensor<T>& tensor, const DescribeOptions& options)
        : x_(tensor.data().data()),
          rank_(tensor.shape().rank()),
          strides_(tensor.shape().strides()) {
        const bool elide = !options.full && tensor.elements() > options.threshold;
        for (std::size_t axis = 0; axis < rank_; ++axis) {
            shown_.push_back(shown_of_axis(tensor.shape()[axis], elide, options.edge_items));
        }
        widths_.assign(shown_.back().size(), 0);
        measure(0, 0);
    }

    std::string text() const {
        std::string out;
        write(out, 0, 0);
        return out;
    }

private:
    void measure(std::size_t axis, std::size_t offset) {
        const auto& shown = shown_[axis];
        for (std::size_t k = 0; k < shown.size(); ++k) {
            if (shown[k] == ellipsis) {
                continue;
            }
            const std::size_t at = offset + shown[k] * strides_[axis];
            if (axis + 1 == rank_) {
                widths_[k] = std::max(widths_[k], decimal(x_[at]).size());
            } else {
                measure(axis + 1, at);
            }
        }
    }

    void write_row(std::string& out, std::size_t offset) const {
        const auto& shown = shown_.back();
        for (std::size_t k = 0; k < shown.size(); ++k) {
            out += k == 0 ? "" : ", ";
            if (shown[k] == ellipsis) {
                out += "...";
                continue;
            }
            const std::string text = decimal(x_[offset + shown[k]]);
            out.append(widths_[k] - text.size(), ' ');
            out += text;
        }
    }

    // As torch separates them: blocks of rank r by r - 1 newlines, each line
    // indented past the brackets already open.
    void write(std::string& out, std::size_t axis, std::size_t offset) const {
        out += '[';
        if (axis + 1 == rank_) {
            write_row(out, offset);
        } else {
            std::string separator(1, ',');
            separator.append(rank_ - 1 - axis, '\n');
            separator.append(axis + 1, ' ');
            const auto& shown = shown_[axis];
            for (std::size_t k = 0; k < shown.size(); ++k) {
                out += k == 0 ? "" : separator;
                if (shown[k] == ellipsis) {
                    out += "...";
                } else {
                    write(out, axis + 1, offset + shown[k] * strides_[axis]);
                }
            }
        }
        out += ']';
    }

    const T* x_;
    std::size_t rank_;
    std::array<std::size_t, Shape::max_rank> strides_;
    std::vector<std::vector<std::size_t>> shown_;
    std::vector<std::size_t> widths_;
};

template <TensorElement T>
std::string body(const Tensor<T>& tensor, const DescribeOptions& options) {
    if (tensor.elements() == 0) {
        return "[]";
    }
    if (tensor.shape().rank() == 0) {
        return decimal(tensor.data()[0]);
    }
    return Layout<T>(tensor, options).text();
}

}  // namespace

template <TensorElement T>
std::string Tensor<T>::describe(const DescribeOptions& options) const {
    const char* type = std::same_as<T, float>    ? "Tensor<float> "
                       : std::same_as<T, double> ? "Tensor<double> "
                                                 : "Tensor<bf16> ";
    return type + shape_.str() + "\n" + body(*this, options);
}

template std::string Tensor<float>::describe(const DescribeOptions&) const;
template std::string Tensor<double>::describe(const DescribeOptions&) const;
template std::string Tensor<bf16>::describe(const DescribeOptions&) const;

}  // namespace topos
