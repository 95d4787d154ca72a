#include "support/pattern_corpus.hpp"

#include "support/random_graphs.hpp"
#include <topos/topos.hpp>

#include <string>

namespace topos::test {
namespace {

// Two 3x3 convolutions of one image: stride 3, padding 1 (its windows miss the
// image's last row and column, so the image is sliced), relu, then a 2x2 max
// pool stride 2 (sliced too) and a 2x2 average pool stride 1; and stride 2,
// padding 1, dilation 2.
template <Element T>
void visit_convolutions_and_pools(EmissionCorpusVisitor& visitor, const std::string& name) {
    Rng rng(11);
    Tape<T> tape;
    auto image = tape.input(rng.tensor<T>(Shape{2, 2, 9, 9}, -1.0, 1.0));
    auto filters = tape.parameter(rng.tensor<T>(Shape{3, 2, 3, 3}, -0.5, 0.5));
    auto bias = tape.parameter(rng.tensor<T>(Shape{3}, -0.1, 0.1));
    auto dilated_filters = tape.parameter(rng.tensor<T>(Shape{2, 2, 3, 3}, -0.5, 0.5));
    auto dilated_bias = tape.parameter(rng.tensor<T>(Shape{2}, -0.1, 0.1));
    auto convolved = conv2d(image, filters, bias, 3, 1).relu();
    auto maxima = max_pool(convolved, 2, 2);
    auto means = average_pool(convolved, 2, 1);
    auto dilated = conv2d(image, dilated_filters, dilated_bias, 2, 1, 2);
    const Network<T> network = std::move(tape).into_network();
    visitor.visit(name, network.entry({maxima, means, dilated}).lower());
}

// A conv net's training plan over its recorded derivative: the forward
// convolution and the filter gradient (a transposed window product) are
// elected, and the average pool's forward fold.
template <Element T>
void visit_conv_net_training(EmissionCorpusVisitor& visitor, const std::string& name) {
    Rng rng(12);
    Tape<T> tape;
    auto image = tape.input(rng.tensor<T>(Shape{2, 2, 8, 8}, -1.0, 1.0));
    auto filters = tape.parameter(rng.tensor<T>(Shape{3, 2, 3, 3}, -0.5, 0.5));
    auto bias = tape.parameter(rng.tensor<T>(Shape{3}, -0.1, 0.1));
    auto convolved = conv2d(image, filters, bias, 2, 2, 2).relu();
    auto loss = average_pool(convolved, 2, 1).square().sum();
    const Adjoints<T> adjoints = tape.differentiate(loss, {filters, bias});
    const Network<T> network = std::move(tape).into_network();
    visitor.visit(name, network.entry(adjoints.roots()).lower());
}

// A window sum written by hand: 2x2 windows, stride 2, dilation 2, of an
// image padded by 1, summed along the tap axis (a striped Sum, not a fold).
template <Element T>
void visit_summed_windows(EmissionCorpusVisitor& visitor, const std::string& name) {
    Rng rng(14);
    Tape<T> tape;
    auto image = tape.input(rng.tensor<T>(Shape{2, 3, 7, 7}, -1.0, 1.0));
    auto rows = image.pad(2, 1, 1);
    auto padded = rows.pad(3, 1, 1);
    auto down = padded.unfold(2, 2, 2, 2);
    auto windows = down.unfold(4, 2, 2, 2);  // [N, C, OH, KH, OW, KW]
    auto ordered = windows.permute({0, 1, 2, 4, 3, 5});
    auto taps = ordered.reshape(Shape{2, 3, 4, 4, 4});
    auto sums = taps.sum(4);
    const Network<T> network = std::move(tape).into_network();
    visitor.visit(name, network.entry({sums}).lower());
}

// Batch norm training of [N, C, H, W] and [N, C], the statistics observed (so
// the named operation's second and third results are returned), and inference.
template <Element T>
void visit_batch_norms(EmissionCorpusVisitor& visitor, const std::string& name) {
    Rng rng(13);
    Tape<T> tape;
    auto images = tape.input(rng.tensor<T>(Shape{4, 3, 2, 3}, -2.0, 2.0));
    auto rows = tape.input(rng.tensor<T>(Shape{6, 3}, -2.0, 2.0));
    auto gamma = tape.parameter(rng.tensor<T>(Shape{3}, 0.5, 1.5));
    auto beta = tape.parameter(rng.tensor<T>(Shape{3}, -0.5, 0.5));
    auto mean = tape.input(rng.tensor<T>(Shape{3}, -0.5, 0.5));
    auto variance = tape.input(rng.tensor<T>(Shape{3}, 0.5, 2.0));
    const BatchNormTraining<T> trained = batch_norm_training(images, gamma, beta);
    const BatchNormTraining<T> trained_rows = batch_norm_training(rows, gamma, beta, 1e-3);
    auto inferred = batch_norm_inference(images, gamma, beta, mean, variance);
    const Network<T> network = std::move(tape).into_network();
    visitor.visit(name + ".training",
                  network.entry({trained.output, trained_rows.output})
                      .observe({trained.mean, trained.variance, trained_rows.variance})
                      .lower());
    visitor.visit(name + ".inference", network.entry({inferred}).lower());
}

template <Element T>
void visit_patterns(EmissionCorpusVisitor& visitor, const std::string& type) {
    visit_convolutions_and_pools<T>(visitor, "pattern.conv_pools.inference." + type);
    visit_conv_net_training<T>(visitor, "pattern.conv_net.training." + type);
    visit_summed_windows<T>(visitor, "pattern.summed_windows.inference." + type);
    visit_batch_norms<T>(visitor, "pattern.batch_norm." + type);
}

}  // namespace

void visit_pattern_plans(EmissionCorpusVisitor& visitor) {
    visit_patterns<float>(visitor, "f32");
    visit_patterns<double>(visitor, "f64");
}

}  // namespace topos::test
