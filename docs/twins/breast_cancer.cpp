// The LibTorch twin of examples/gallery/breast_cancer.cpp: the same data, split,
// standardisation, model, loss, optimizer and batches, as a PyTorch user writes
// it in C++.
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <torch/torch.h>
#include <vector>

namespace F = torch::nn::functional;

int main() {
    std::ifstream file(TOPOS_DATA "/breast_cancer.csv");
    std::vector<float> values;
    std::string line;
    std::getline(file, line);  // the header: 569,30,malignant,benign
    while (std::getline(file, line)) {
        std::stringstream fields(line);
        for (std::string field; std::getline(fields, field, ',');) {
            values.push_back(std::stof(field));
        }
    }
    const torch::Tensor table = torch::tensor(values).reshape({-1, 31});
    const torch::Tensor features = table.narrow(1, 0, 30);
    const torch::Tensor train = features.narrow(0, 0, 455);
    const torch::Tensor x = (features - train.mean(0, true)) / train.std(0, true, true);
    const torch::Tensor y = table.narrow(1, 30, 1);

    torch::manual_seed(1);
    torch::nn::Sequential mlp(
        torch::nn::Linear(30, 32), torch::nn::ReLU(), torch::nn::Linear(32, 1));
    torch::optim::Adam adam(mlp->parameters(), torch::optim::AdamOptions(0.001));
    const torch::Tensor train_x = x.narrow(0, 0, 455);
    const torch::Tensor train_y = y.narrow(0, 0, 455);
    for (int epoch = 0, step = 0; epoch < 30; ++epoch) {
        const torch::Tensor order = torch::randperm(455, torch::kLong);
        for (int start = 0; start + 32 <= 455; start += 32, ++step) {
            const torch::Tensor batch = order.narrow(0, start, 32);
            adam.zero_grad();
            const torch::Tensor loss = F::binary_cross_entropy_with_logits(
                mlp->forward(train_x.index_select(0, batch)), train_y.index_select(0, batch));
            loss.backward();
            adam.step();
            if (step % 100 == 0) {
                std::cout << "step " << step + 1 << "/420  loss " << loss.item<float>() << '\n';
            }
        }
    }
    torch::NoGradGuard no_grad;
    const torch::Tensor train_loss =
        F::binary_cross_entropy_with_logits(mlp->forward(train_x), train_y);
    std::cout << "train loss: " << train_loss.item<float>() << '\n';
    const torch::Tensor guesses = mlp->forward(x.narrow(0, 455, 114)).gt(0);
    std::cout << "test accuracy: "
              << guesses.eq(y.narrow(0, 455, 114)).to(torch::kFloat).mean().item<float>() << '\n';
}
