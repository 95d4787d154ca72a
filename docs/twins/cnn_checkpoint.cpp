// The LibTorch twin of examples/cnn_checkpoint.cpp: the same network, data,
// optimizer, batches and checkpoint round trip.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <torch/torch.h>
#include <vector>

struct NetImpl : torch::nn::Module {
    NetImpl()
        : conv(register_module("conv",
                               torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 8, 3).padding(1)))),
          fc(register_module("fc", torch::nn::Linear(8 * 4 * 4, 10))) {}

    torch::Tensor forward(const torch::Tensor& x) {
        return fc(torch::flatten(torch::max_pool2d(torch::relu(conv(x)), 2), 1));
    }

    torch::nn::Conv2d conv;
    torch::nn::Linear fc;
};

TORCH_MODULE(Net);

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
    const torch::Tensor images = (table.narrow(1, 0, 64) / 16).reshape({1797, 1, 8, 8});
    const torch::Tensor labels = table.select(1, 64).to(torch::kLong);

    torch::manual_seed(1);
    Net net;
    torch::optim::Adam adam(net->parameters(), torch::optim::AdamOptions(0.01));
    const torch::Tensor train_images = images.narrow(0, 0, 1500);
    const torch::Tensor train_labels = labels.narrow(0, 0, 1500);
    for (int epoch = 0, step = 0; epoch < 3; ++epoch) {
        const torch::Tensor order = torch::randperm(1500, torch::kLong);
        for (int start = 0; start < 1500; start += 50, ++step) {
            const torch::Tensor batch = order.narrow(0, start, 50);
            adam.zero_grad();
            const torch::Tensor loss = torch::nn::functional::cross_entropy(
                net(train_images.index_select(0, batch)), train_labels.index_select(0, batch));
            loss.backward();
            adam.step();
            if (step % 30 == 0) {
                std::cout << "step " << step + 1 << "/90  loss " << loss.item<float>() << '\n';
            }
        }
    }
    const auto path = std::filesystem::temp_directory_path() / "torch_cnn.pt";
    torch::save(net, path.string());

    Net fresh;
    torch::load(fresh, path.string());
    torch::NoGradGuard no_grad;
    const torch::Tensor test = images.narrow(0, 1500, 297);
    const torch::Tensor logits = net(test);
    const torch::Tensor again = fresh(test);
    std::cout
        << "test accuracy: "
        << logits.argmax(1).eq(labels.narrow(0, 1500, 297)).to(torch::kFloat).mean().item<float>()
        << "\nthe loaded model gives the same logits: "
        << (torch::equal(again, logits) ? "yes" : "no") << '\n';
}
