// conv2d, max_pool, average_pool and batch normalisation recorded from catalog
// operations: convolution as padding, two unfolds and one matrix product
// (im2col); pooling as a left-to-right fold of the window's taps; batch norm
// as means over every axis but the channels. Shapes are checked before the
// first node is recorded.
#include "graph/autocast_rounding.hpp"
#include "graph/one_tape.hpp"
#include "graph/record.hpp"
#include <topos/core/error.hpp>
#include <topos/graph/compositions.hpp>

#include <string>

namespace topos {
namespace {

std::string shape_text(const Shape& shape) {
    std::string text = "[";
    for (std::size_t axis = 0; axis < shape.rank(); ++axis) {
        text += (axis > 0 ? ", " : "") + std::to_string(shape[axis]);
    }
    return text + "]";
}

void require(bool condition, const std::string& operation, const std::string& problem) {
    if (!condition) {
        throw ShapeError(operation + ": " + problem);
    }
}

// The number of windows of `size` taps `dilation` apart, `step` apart, in
// `extent` padded by `padding` on both sides; 0 where none fits, or where the
// padded extent or the window's span would not even be representable.
std::size_t window_count(std::size_t extent,
                         std::size_t padding,
                         std::size_t size,
                         std::size_t step,
                         std::size_t dilation) {
    std::size_t padded = 0;
    std::size_t span = 0;
    if (size == 0 || __builtin_mul_overflow(padding, 2, &padded) ||
        __builtin_add_overflow(padded, extent, &padded) ||
        __builtin_mul_overflow(dilation, size - 1, &span) || span >= padded) {
        return 0;
    }
    return (padded - span - 1) / step + 1;
}

void check_convolution(const Shape& image,
                       const Shape& filters,
                       const Shape& bias,
                       std::size_t stride,
                       std::size_t padding,
                       std::size_t dilation) {
    const std::string op = "conv2d";
    require(image.rank() == 4,
            op,
            "the image " + shape_text(image) +
                " must be NCHW (rank 4); add a batch axis with "
                "unsqueeze(0)");
    require(
        filters.rank() == 4, op, "the filters " + shape_text(filters) + " must be OIHW (rank 4)");
    require(filters[1] == image[1],
            op,
            "the filters " + shape_text(filters) + " take " + std::to_string(filters[1]) +
                " input channels but the image " + shape_text(image) + " has " +
                std::to_string(image[1]));
    require(bias.rank() == 1 && bias[0] == filters[0],
            op,
            "the bias " + shape_text(bias) + " must be [" + std::to_string(filters[0]) +
                "], one per output channel");
    require(stride >= 1 && dilation >= 1, op, "stride and dilation must be at least 1");
    require(window_count(image[2], padding, filters[2], stride, dilation) > 0 &&
                window_count(image[3], padding, filters[3], stride, dilation) > 0,
            op,
            "the filters " + shape_text(filters) + " do not fit the padded image " +
                shape_text(image) + " (padding " + std::to_string(padding) + ", dilation " +
                std::to_string(dilation) + "); pad more or use smaller filters");
}

// Unfolds H (axis 2) then W: [N, C, H, W] -> [N, C, OH, KH, OW, KW].
template <Element T>
Value<T> windows_of(const Value<T>& image,
                    std::size_t height,
                    std::size_t width,
                    std::size_t stride,
                    std::size_t dilation) {
    const Value<T> rows = image.unfold(2, height, stride, dilation);
    return rows.unfold(4, width, stride, dilation);
}

// Pooling folds its taps one node at a time (the ReduceWindow pattern matches
// that chain), so the window's side is bounded: 256 x 256 taps, 65,536 nodes.
constexpr std::size_t largest_pooling_size = 256;

// The windows of a pooling as [N, C, OH, OW, size * size], row-major in the window.
template <Element T>
Value<T> pooling_windows(const Value<T>& input, std::size_t size, std::size_t stride) {
    const Shape shape = input.shape();
    require(
        shape.rank() == 4, "pooling", "the input " + shape_text(shape) + " must be NCHW (rank 4)");
    require(size >= 1 && stride >= 1, "pooling", "size and stride must be at least 1");
    require(size <= largest_pooling_size,
            "pooling",
            "a " + std::to_string(size) + "x" + std::to_string(size) +
                " window is too large: pooling records one node per tap, and windows are at most " +
                std::to_string(largest_pooling_size) + "x" + std::to_string(largest_pooling_size) +
                "; reduce a wider window with unfold and max or sum along its axis");
    require(shape[2] >= size && shape[3] >= size,
            "pooling",
            "a " + std::to_string(size) + "x" + std::to_string(size) +
                " window does not fit the input " + shape_text(shape));
    const Value<T> windows = windows_of(input, size, size, stride, 1);
    const Shape unfolded = windows.shape();
    const Value<T> ordered = windows.permute({0, 1, 2, 4, 3, 5});
    return ordered.reshape(Shape{unfolded[0], unfolded[1], unfolded[2], unfolded[4], size * size});
}

// Folds the window axis (4) of pooling windows with `combine`, left to right.
template <Element T, class Combine>
Value<T> fold_windows(const Value<T>& windows, Combine combine) {
    const Shape shape = windows.shape();
    Value<T> result = windows.narrow(4, 0, 1);
    for (std::size_t tap = 1; tap < shape[4]; ++tap) {
        const Value<T> next = windows.narrow(4, tap, 1);
        result = combine(result, next);
    }
    return result.reshape(Shape{shape[0], shape[1], shape[2], shape[3]});
}

// A Leaf of `anchor`'s shape holding `value` everywhere.
template <Element T>
Value<T> leaf_like(const Value<T>& anchor, T value) {
    return detail::GraphAccess::value(
        detail::GraphAccess::state(anchor),
        detail::append_source(*detail::GraphAccess::state(anchor),
                              Opcode::Leaf,
                              Tensor<T>::filled(anchor.shape(), value)));
}

// A per-channel [C] vector spread over `like`'s shape (channels on axis 1).
template <Element T>
Value<T> spread(const Value<T>& channels, const Shape& like) {
    Value<T> result = channels.broadcast_along(0, like[0]);
    for (std::size_t axis = 2; axis < like.rank(); ++axis) {
        result = result.broadcast_along(axis, like[axis]);
    }
    return result;
}

// Every axis but the channel axis 1.
Axes statistics_axes(const Shape& shape) {
    std::vector<std::size_t> axes{0};
    for (std::size_t axis = 2; axis < shape.rank(); ++axis) {
        axes.push_back(axis);
    }
    return Axes(std::span<const std::size_t>(axes));
}

template <Element T>
void check_batch_norm(const Value<T>& input, std::initializer_list<const Value<T>*> vectors) {
    const Shape shape = input.shape();
    require(shape.rank() >= 2,
            "batch_norm",
            "the input " + shape_text(shape) + " needs a batch axis and a channel axis");
    for (const Value<T>* vector : vectors) {
        require(vector->shape() == Shape{shape[1]},
                "batch_norm",
                "a per-channel operand is " + shape_text(vector->shape()) + "; the input " +
                    shape_text(shape) + " has " + std::to_string(shape[1]) +
                    " channels, so it must be [" + std::to_string(shape[1]) + "]");
    }
}

// One value per channel has no variance to learn from: its batch variance is
// 0 and its output beta whatever the input, so training on it is refused, as
// torch.nn.functional.batch_norm refuses it. No value at all (an empty batch)
// is allowed: it trains nothing.
void check_more_than_one_value_per_channel(const Shape& shape) {
    std::size_t values = 1;
    for (std::size_t axis = 0; axis < shape.rank(); ++axis) {
        values *= axis == 1 ? 1 : shape[axis];
    }
    require(values != 1,
            "batch_norm",
            "the input " + shape_text(shape) +
                " holds one value per channel; training needs more than one to take a "
                "variance (a batch of one row, or larger images)");
}

// (input - mean) * (rsqrt(variance + epsilon) * gamma) + beta, given the
// centred input.
template <Element T>
Value<T> normalise(const Value<T>& centred,
                   const Value<T>& variance,
                   const Value<T>& gamma,
                   const Value<T>& beta,
                   double epsilon) {
    const Value<T> shifted = variance + leaf_like(variance, static_cast<T>(epsilon));
    const Value<T> scale = shifted.rsqrt() * gamma;
    const Value<T> scaled = centred * spread(scale, centred.shape());
    return scaled + spread(beta, centred.shape());
}

}  // namespace

template <Element T>
Value<T> conv2d(const Value<T>& given_image,
                const Value<T>& given_filters,
                const Value<T>& given_bias,
                std::size_t stride,
                std::size_t padding,
                std::size_t dilation) {
    const auto [given_on_one_tape, filters_on_one_tape, bias] =
        detail::on_one_tape("conv2d", given_image, given_filters, given_bias);
    const Shape f = filters_on_one_tape.shape();
    check_convolution(given_on_one_tape.shape(), f, bias.shape(), stride, padding, dilation);
    const detail::RecordScope scope(given_on_one_tape);
    // An open Autocast rounds the product's operands here, before the windows
    // repeat each pixel, and its result below.
    const Value<T> image = detail::autocast_rounded(given_on_one_tape);
    const Value<T> filters = detail::autocast_rounded(filters_on_one_tape);
    Value<T> padded = image;
    if (padding > 0) {
        const Value<T> rows = image.pad(2, padding, padding);
        padded = rows.pad(3, padding, padding);
    }
    const Value<T> windows = windows_of(padded, f[2], f[3], stride, dilation);
    const Shape w = windows.shape();  // [N, C, OH, KH, OW, KW]
    const Value<T> ordered = windows.permute({0, 2, 4, 1, 3, 5});
    const Value<T> patches = ordered.reshape(Shape{w[0] * w[2] * w[4], w[1] * w[3] * w[5]});
    const Value<T> taps = filters.permute({1, 2, 3, 0});
    const Value<T> matrix = taps.reshape(Shape{f[1] * f[2] * f[3], f[0]});
    const Value<T> product =
        detail::autocast_rounded(patches.apply(Opcode::MatMul, {patches, matrix}));
    const Value<T> shifted = product + bias;
    const Value<T> channels_last = shifted.reshape(Shape{w[0], w[2], w[4], f[0]});
    return channels_last.permute({0, 3, 1, 2});
}

template <Element T>
Value<T> max_pool(const Value<T>& input, std::size_t size, std::size_t stride) {
    const detail::RecordScope scope(input);
    return fold_windows(pooling_windows(input, size, stride),
                        [](const Value<T>& a, const Value<T>& b) { return a.maximum(b); });
}

template <Element T>
Value<T> average_pool(const Value<T>& input, std::size_t size, std::size_t stride) {
    const detail::RecordScope scope(input);
    const Value<T> total = fold_windows(pooling_windows(input, size, stride),
                                        [](const Value<T>& a, const Value<T>& b) { return a + b; });
    return total / leaf_like(total, static_cast<T>(size * size));
}

template <Element T>
BatchNormTraining<T> batch_norm_training(const Value<T>& given_input,
                                         const Value<T>& given_gamma,
                                         const Value<T>& given_beta,
                                         double epsilon) {
    const auto [input, gamma, beta] =
        detail::on_one_tape("batch_norm", given_input, given_gamma, given_beta);
    check_batch_norm(input, {&gamma, &beta});
    check_more_than_one_value_per_channel(input.shape());
    const detail::RecordScope scope(input);
    const Axes axes = statistics_axes(input.shape());
    const Value<T> mean = input.mean(axes);
    const Value<T> centred = input - spread(mean, input.shape());
    const Value<T> squares = centred.square();
    const Value<T> variance = squares.mean(axes);
    return {normalise(centred, variance, gamma, beta, epsilon), mean, variance};
}

template <Element T>
Value<T> batch_norm_inference(const Value<T>& given_input,
                              const Value<T>& given_gamma,
                              const Value<T>& given_beta,
                              const Value<T>& given_mean,
                              const Value<T>& given_variance,
                              double epsilon) {
    const auto [input, gamma, beta, running_mean, running_variance] = detail::on_one_tape(
        "batch_norm", given_input, given_gamma, given_beta, given_mean, given_variance);
    check_batch_norm(input, {&gamma, &beta, &running_mean, &running_variance});
    const detail::RecordScope scope(input);
    const Value<T> centred = input - spread(running_mean, input.shape());
    return normalise(centred, running_variance, gamma, beta, epsilon);
}

#define TOPOS_INSTANTIATE(T)                                                                       \
    template Value<T> conv2d(                                                                      \
        const Value<T>&, const Value<T>&, const Value<T>&, std::size_t, std::size_t, std::size_t); \
    template Value<T> max_pool(const Value<T>&, std::size_t, std::size_t);                         \
    template Value<T> average_pool(const Value<T>&, std::size_t, std::size_t);                     \
    template BatchNormTraining<T> batch_norm_training(                                             \
        const Value<T>&, const Value<T>&, const Value<T>&, double);                                \
    template Value<T> batch_norm_inference(const Value<T>&,                                        \
                                           const Value<T>&,                                        \
                                           const Value<T>&,                                        \
                                           const Value<T>&,                                        \
                                           const Value<T>&,                                        \
                                           double);
TOPOS_INSTANTIATE(float)
TOPOS_INSTANTIATE(double)
TOPOS_INSTANTIATE(bf16)
#undef TOPOS_INSTANTIATE

}  // namespace topos
