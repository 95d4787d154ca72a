// The digits CNN (digits_cnn.cpp's first member) trained twice from the same
// start on the same batches: in float, and in bf16 mixed precision, where an
// Autocast makes each convolution's and the Linear layer's product read its
// operands rounded to bf16 and round its result to bf16, while BatchNorm, ReLU,
// pooling, the loss and AdamW's float master weights stay in float, as
// torch.autocast(dtype=torch.bfloat16) trains. Both are evaluated on the
// held-out digits, the mixed-precision model with bf16 products too.
#include "support/classifier.hpp"
#include "support/digits_cnn.hpp"
#include "support/report.hpp"
#include <topos/topos.hpp>

#include <chrono>
#include <cstddef>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>

namespace {

// Within one point of float's accuracy.
constexpr double largest_accuracy_loss = 0.01;

struct Result {
    double accuracy;
    double milliseconds_per_step;
    topos::Parameters<float> parameters;
};

Result train_and_test(const gallery::Digits& training,
                      const gallery::Digits& test,
                      gallery::TrainingReport& report,
                      std::optional<topos::ElementType> products) {
    using namespace gallery;
    const std::string label = products ? "bf16 products" : "float";
    const Recipe recipe = digits_cnn_recipe();
    DigitsCnn cnn(0);
    const Classifier classifier = cnn.record(recipe, test, products);
    const auto started = std::chrono::steady_clock::now();
    const Trained trained = train_classifier(classifier, recipe, digits_cnn_schedule(7), training);
    const std::chrono::duration<double, std::milli> took =
        std::chrono::steady_clock::now() - started;
    report.losses(label, trained.losses);
    const double accuracy = gallery::accuracy(test_logits(classifier, trained), test.labels);
    std::ostringstream line;
    line << std::fixed << std::setprecision(2) << label << ": test accuracy " << accuracy * 100
         << "%\n";
    std::cout << line.str();
    return {
        accuracy, took.count() / static_cast<double>(trained.losses.size()), trained.parameters};
}

template <topos::Element T>
std::size_t bytes_of(const topos::Parameters<T>& parameters) {
    std::size_t bytes = 0;
    for (const topos::Tensor<T>& value : parameters.values()) {
        bytes += value.elements() * sizeof(T);
    }
    return bytes;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace gallery;
    TrainingReport report("The digits CNN in bf16 mixed precision", argc, argv);
    const Digits training = training_digits();
    const Digits test = test_digits();
    const Result in_float = train_and_test(training, test, report, std::nullopt);
    const Result mixed = train_and_test(training, test, report, topos::ElementType::BF16);
    std::cout << "parameters: " << bytes_of(mixed.parameters) << " bytes in float, "
              << bytes_of(mixed.parameters.convert<topos::bf16>()) << " bytes in bf16\n";
    std::ostringstream timing;
    timing << std::fixed << std::setprecision(2) << "time per step: float "
           << in_float.milliseconds_per_step << " ms, bf16 products " << mixed.milliseconds_per_step
           << " ms\n";
    std::cout << timing.str();
    const bool close = mixed.accuracy >= in_float.accuracy - largest_accuracy_loss;
    std::cout << (close ? "bf16 products are within one point of float's accuracy\n"
                        : "BF16 PRODUCTS ARE MORE THAN ONE POINT BELOW FLOAT\n");
    report.finish();
    return close ? 0 : 1;
}
