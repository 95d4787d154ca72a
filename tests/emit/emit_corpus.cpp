// topos_emit_corpus DIR: writes every plan of the emission corpus into DIR, as
//   NAME.mlir          the pretty form (what tools/validate-stablehlo.py compiles)
//   NAME.generic.mlir  the generic form (what CTest hands to mlir-opt)
//   NAME.safetensors   the arguments @main takes (arg0, arg1, ...) and what the
//                      interpreter computes for its results (result0, ...)
// The tensors come from Network::forward on the recorded payloads: the oracle.
#include "support/emission_corpus.hpp"
#include <topos/topos.hpp>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace {

struct NamedTensor {
    std::string name;
    std::string dtype;  // safetensors spelling: F32, F64, BF16
    std::vector<std::size_t> shape;
    std::string bytes;  // little-endian elements
};

template <topos::Element T>
NamedTensor named(std::string name, const topos::Tensor<T>& tensor) {
    const char* dtype = sizeof(T) == 2 ? "BF16" : (sizeof(T) == 4 ? "F32" : "F64");
    NamedTensor out{std::move(name), dtype, {}, {}};
    out.shape.assign(tensor.shape().extents().begin(), tensor.shape().extents().end());
    out.bytes.resize(tensor.data().size() * sizeof(T));
    std::memcpy(out.bytes.data(), tensor.data().data(), out.bytes.size());
    return out;
}

// safetensors: an 8-byte little-endian header length, a JSON header naming each
// tensor's dtype, shape and byte range, then the bytes.
void write_safetensors(const std::filesystem::path& path, const std::vector<NamedTensor>& tensors) {
    std::string header = "{";
    std::size_t offset = 0;
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        const NamedTensor& t = tensors[i];
        header +=
            (i == 0 ? "\"" : ",\"") + t.name + "\":{\"dtype\":\"" + t.dtype + "\",\"shape\":[";
        for (std::size_t a = 0; a < t.shape.size(); ++a) {
            if (a > 0) {
                header += ',';
            }
            header += std::to_string(t.shape[a]);
        }
        header += "],\"data_offsets\":[" + std::to_string(offset) + ',' +
                  std::to_string(offset + t.bytes.size()) + "]}";
        offset += t.bytes.size();
    }
    header += '}';
    header.append((8 - header.size() % 8) % 8, ' ');
    std::ofstream out(path, std::ios::binary);
    const std::uint64_t length = header.size();
    for (int byte = 0; byte < 8; ++byte) {
        out.put(static_cast<char>((length >> (8 * byte)) & 0xFF));
    }
    out << header;
    for (const NamedTensor& t : tensors) {
        out << t.bytes;
    }
}

class CorpusWriter : public topos::test::EmissionCorpusVisitor {
public:
    explicit CorpusWriter(std::filesystem::path directory) : directory_(std::move(directory)) {}

    void visit(const std::string& name, const topos::Plan<float>& plan) override {
        write(name, plan);
    }

    void visit(const std::string& name, const topos::Plan<double>& plan) override {
        write(name, plan);
    }

    void visit(const std::string& name, const topos::Plan<topos::bf16>& plan) override {
        write(name, plan);
    }

    std::size_t written() const { return written_; }

private:
    template <topos::Element T>
    void write(const std::string& name, const topos::Plan<T>& plan) {
        std::ofstream(directory_ / (name + ".mlir")) << plan.emit_stablehlo();
        std::ofstream(directory_ / (name + ".generic.mlir"))
            << plan.emit_stablehlo(topos::MlirForm::Generic);
        const topos::Network<T>& network = plan.entry().network();
        const topos::Run<T> oracle = network.forward(network.parameters(), {});
        std::vector<NamedTensor> tensors;
        std::size_t argument = 0;
        for (const topos::Node& node : plan.nodes()) {
            if (node.opcode() == topos::Opcode::Parameter ||
                node.opcode() == topos::Opcode::Input) {
                tensors.push_back(
                    named("arg" + std::to_string(argument++), oracle.of(node.symbol())));
            }
        }
        const std::vector<topos::Symbol> declared = plan.entry().declared();
        for (std::size_t i = 0; i < declared.size(); ++i) {
            tensors.push_back(named("result" + std::to_string(i), oracle.of(declared[i])));
        }
        write_safetensors(directory_ / (name + ".safetensors"), tensors);
        ++written_;
    }

    std::filesystem::path directory_;
    std::size_t written_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: topos_emit_corpus DIRECTORY\n";
        return 2;
    }
    const std::filesystem::path directory(argv[1]);
    std::filesystem::create_directories(directory);
    CorpusWriter writer(directory);
    topos::test::visit_emission_corpus(writer);
    std::cout << "wrote " << writer.written() << " plans to " << directory.string() << '\n';
    return 0;
}
