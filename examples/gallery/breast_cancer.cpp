// A binary classifier of breast tumours, malignant (0) or benign (1), from 30
// measures of their cell nuclei (data/breast_cancer.csv, 569 rows). The first
// 455 rows train, the last 114 test; the features are standardised by the
// training rows' mean and standard deviation. An Mlp(30 -> 32 -> 1) with ReLU
// learns its logit by binary cross-entropy, with Adam on shuffled batches of
// 32, through a Function; then the loss over the training rows and the
// accuracy on the test rows are printed; with --report PATH, the loss chart,
// the model's card, the loss Function's card and a picture of the prediction
// plan, parameters named and layers grouped, are written as HTML.
// Its LibTorch twin: docs/twins/breast_cancer.cpp.
#include "support/data_path.hpp"
#include "support/report.hpp"
#include <topos/topos.hpp>

#include <iostream>

using namespace topos;

int main(int argc, char** argv) {
    gallery::TrainingReport report("Breast cancer: a binary classifier", argc, argv);
    const Tensor<float> table =
        data::read_csv<float>(gallery::data_path("breast_cancer.csv"), {.header = true});
    const Tensor<float> measures = table.narrow(1, 0, 30);
    const Tensor<float> train = measures.narrow(0, 0, 455);
    const Tensor<float> features = (measures - train.mean(0, true)) / train.std(0, true);
    const Tensor<float> labels = table.narrow(1, 30, 1);

    Tape<float> tape;
    const Mlp<float> mlp(tape, {30, 32, 1}, Activation::Relu, init::kaiming(1));
    const Network<float> model = std::move(tape).into_network();
    const Function<float> loss(model,
                               [&](const Value<float>& x, const Value<float>& y) {
                                   return binary_cross_entropy_with_logits(mlp.express(x), y);
                               },
                               {Argument::Real, Argument::Real});
    const Function<float> predict(model, [&](const Value<float>& x) { return mlp.express(x); });

    const data::Loader<float> loader(
        data::Dataset<float>({features.narrow(0, 0, 455), labels.narrow(0, 0, 455)}),
        {.batch_size = 32, .seed = 7, .drop_last = true});
    const optim::Adam adam({.learning_rate = 0.001});
    Parameters<float> parameters = model.parameters();
    optim::AdamState<float> state = adam.start(parameters);
    data::Progress progress(30 * loader.batches_per_epoch(), {.every = 100});
    for (std::size_t epoch = 0, step = 0; epoch < 30; ++epoch) {
        for (const data::Batch<float>& batch : loader.epoch(epoch)) {
            const auto [value, gradients] =
                loss.value_and_gradients(parameters, batch[0], batch[1]);
            adam.step_in_place(parameters, gradients, state);
            progress.update(step++, value.item(), batch.size());
        }
    }
    progress.finish();
    const Tensor<float> train_loss =
        loss(parameters, features.narrow(0, 0, 455), labels.narrow(0, 0, 455));
    std::cout << "train loss: " << train_loss.item() << '\n';
    const Tensor<float> guesses = predict(parameters, features.narrow(0, 455, 114)).greater(0.0F);
    std::cout << "test accuracy: " << guesses.equal(labels.narrow(0, 455, 114)).mean() << '\n';
    report.losses("binary cross-entropy", progress.losses());
    report.add("The model", show::card(mlp, parameters));
    report.add("Its loss", show::card(loss));
    report.add("The plan of a prediction",
               show::graph(predict.plan({Shape{114, 30}}), {.names = mlp.named_parameters()}));
    report.finish();
}
