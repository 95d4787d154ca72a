// The LibTorch twin of examples/logistic_regression.cpp: the same model, data,
// optimizer and batches, as a PyTorch user writes it in C++.
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <torch/torch.h>
#include <vector>

int main() {
    std::ifstream file(TOPOS_DATA "/digits.csv");
    std::vector<float> values;
    for (std::string line; std::getline(file, line);) {
        std::stringstream fields(line);
        for (std::string field; std::getline(fields, field, ',');) {
            values.push_back(std::stof(field));
        }
    }
    const torch::Tensor table = torch::tensor(values).reshape({-1, 65});
    const torch::Tensor pixels = table.narrow(1, 0, 64) / 16;
    const torch::Tensor labels = table.select(1, 64).to(torch::kLong);

    torch::manual_seed(1);
    torch::nn::Linear linear(64, 10);
    torch::optim::Adam adam(linear->parameters(), torch::optim::AdamOptions(0.01));
    const torch::Tensor train_pixels = pixels.narrow(0, 0, 1500);
    const torch::Tensor train_labels = labels.narrow(0, 0, 1500);
    for (int epoch = 0, step = 0; epoch < 10; ++epoch) {
        const torch::Tensor order = torch::randperm(1500, torch::kLong);
        for (int start = 0; start < 1500; start += 50, ++step) {
            const torch::Tensor batch = order.narrow(0, start, 50);
            adam.zero_grad();
            const torch::Tensor loss = torch::nn::functional::cross_entropy(
                linear(train_pixels.index_select(0, batch)), train_labels.index_select(0, batch));
            loss.backward();
            adam.step();
            if (step % 100 == 0) {
                std::cout << "step " << step + 1 << "/300  loss " << loss.item<float>() << '\n';
            }
        }
    }
    torch::NoGradGuard no_grad;
    const torch::Tensor guesses = linear(pixels.narrow(0, 1500, 297)).argmax(1);
    std::cout << "test accuracy: "
              << guesses.eq(labels.narrow(0, 1500, 297)).to(torch::kFloat).mean().item<float>()
              << '\n';
}
