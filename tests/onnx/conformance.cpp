// ONNX's own backend tests, run through topos::onnx: every model of a suite
// (a folder of test folders, each a model.onnx with test_data_set_* folders of
// input_N.pb and output_N.pb TensorProtos) is imported, run by the
// interpreter on every data set, and compared with the expected outputs at
// ONNX's tolerances (rtol 1e-3, atol 1e-7). A graph input the import needs
// known while recording (a Reshape's shape fed as an input) is given the data
// set's value (ImportOptions::known_inputs), and such passes are counted. A
// model that uses what the importer does not import is skipped, and the
// reasons are counted. Prints one line per suite and exits 1 when any test fails.
//
//   topos_onnx_conformance [--verbose] [--filter TEXT] SUITE_DIR...
// A folder of suites (/usr/share/libonnx-testdata/data) stands for all of them.
#include "onnx/constant.hpp"
#include "onnx/context.hpp"
#include "onnx/proto_reader.hpp"
#include <topos/core/error.hpp>
#include <topos/onnx.hpp>
#include <topos/run/run.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

namespace {

namespace fs = std::filesystem;
namespace onnx = topos::onnx;
using onnx::detail::Constant;
using onnx::detail::DataType;

constexpr double relative_tolerance = 1e-3;
constexpr double absolute_tolerance = 1e-7;

struct Outcome {
    enum class Kind {
        Passed,
        Failed,
        Skipped
    } kind = Kind::Passed;
    std::string message;
    std::set<std::string> reasons;  // for a skipped test
    bool specialised = false;       // imported with inputs known while recording
};

Constant read_pb(const fs::path& path) {
    std::ifstream file(path, std::ios::binary);
    std::vector<char> chars((std::istreambuf_iterator<char>(file)),
                            std::istreambuf_iterator<char>());
    std::vector<std::byte> bytes(chars.size());
    std::transform(chars.begin(), chars.end(), bytes.begin(), [](char c) { return std::byte(c); });
    return onnx::detail::parse_tensor(bytes, path.string());
}

std::vector<Constant> read_numbered(const fs::path& folder, const std::string& prefix) {
    std::vector<Constant> tensors;
    for (std::size_t index = 0;; ++index) {
        const fs::path path = folder / (prefix + std::to_string(index) + ".pb");
        if (!fs::exists(path)) {
            return tensors;
        }
        tensors.push_back(read_pb(path));
    }
}

std::vector<fs::path> data_sets(const fs::path& test) {
    std::vector<fs::path> sets;
    for (const auto& entry : fs::directory_iterator(test)) {
        if (entry.is_directory() &&
            entry.path().filename().string().starts_with("test_data_set_")) {
            sets.push_back(entry.path());
        }
    }
    std::sort(sets.begin(), sets.end());
    return sets;
}

// The symbolic axes' extents as the data set's inputs give them.
onnx::ImportOptions options_for(const onnx::Summary& summary, const std::vector<Constant>& inputs) {
    onnx::ImportOptions options;
    for (std::size_t index = 0; index < summary.inputs.size() && index < inputs.size(); ++index) {
        const auto& dimensions = summary.inputs[index].dimensions;
        for (std::size_t axis = 0; axis < dimensions.size() && axis < inputs[index].extents.size();
             ++axis) {
            if (dimensions[axis].extent < 0 && !dimensions[axis].name.empty()) {
                options.dimensions[dimensions[axis].name] =
                    static_cast<std::size_t>(inputs[index].extents[axis]);
            }
        }
    }
    if (!inputs.empty() && !inputs[0].extents.empty()) {
        options.default_extent = static_cast<std::size_t>(inputs[0].extents[0]);
    }
    return options;
}

template <topos::Element T>
std::string compare(const Constant& expected,
                    const topos::Tensor<T>& actual,
                    const std::string& name) {
    const auto extents = onnx::detail::extents_of_shape(actual.shape());
    if (extents != expected.extents) {
        return name + ": shape " + actual.shape().str() + ", expected " +
               onnx::detail::shape_of_extents(expected.extents).str();
    }
    const auto values = expected.as_reals();
    const auto data = actual.data();
    const bool exact = onnx::detail::is_integral(expected.type);
    for (std::size_t index = 0; index < values.size(); ++index) {
        const double want = values[index];
        const auto got = static_cast<double>(data[index]);
        const bool close =
            exact
                ? got == want
                : (std::isnan(want) ? std::isnan(got)
                                    : (got == want || std::abs(got - want) <=
                                                          absolute_tolerance +
                                                              relative_tolerance * std::abs(want)));
        if (!close) {
            std::ostringstream out;
            out.precision(9);
            out << name << "[" << index << "] = " << got << ", expected " << want;
            return out.str();
        }
    }
    return "";
}

// The data set's value of the graph input `name`, or nullptr.
const Constant* input_named(const onnx::Summary& summary,
                            const std::vector<Constant>& inputs,
                            const std::string& name) {
    for (std::size_t index = 0; index < summary.inputs.size() && index < inputs.size(); ++index) {
        if (summary.inputs[index].name == name) {
            return &inputs[index];
        }
    }
    return nullptr;
}

// The model imported for the data set. Where the import needs a graph input
// known while recording (a Reshape's shape, a Resize's scales fed as inputs),
// the data set's value is given in ImportOptions::known_inputs and the import
// tried again: the model specialised to that value, as a user would.
template <topos::Element T>
onnx::Imported<T> import_for(const onnx::Model& model,
                             const std::vector<Constant>& inputs,
                             bool& specialised) {
    onnx::ImportOptions options = options_for(model.summary(), inputs);
    for (;;) {
        try {
            return model.import <T>(options);
        } catch (const onnx::ImportError& error) {
            bool added = false;
            for (const auto& item : error.unsupported()) {
                const Constant* value = input_named(model.summary(), inputs, item.value);
                if (value != nullptr && !options.known_inputs.contains(item.value)) {
                    options.known_inputs.emplace(item.value,
                                                 onnx::detail::tensor_of<double>(*value));
                    added = true;
                }
            }
            if (!added) {
                throw;
            }
            specialised = true;
        }
    }
}

template <topos::Element T>
Outcome run_data_set(const onnx::Model& model, const fs::path& folder, bool& specialised) {
    const auto inputs = read_numbered(folder, "input_");
    const auto expected = read_numbered(folder, "output_");
    auto imported = import_for<T>(model, inputs, specialised);
    std::vector<topos::Feed<T>> feeds;
    for (const auto& input : imported.inputs) {
        const Constant* value = input_named(model.summary(), inputs, input.name);
        if (value == nullptr) {
            return {
                Outcome::Kind::Failed, "the data set has no value for the input " + input.name, {}};
        }
        feeds.push_back({input.value, onnx::detail::tensor_of<T>(*value)});
    }
    std::vector<topos::Symbol> outputs;
    for (const auto& output : imported.outputs) {
        outputs.push_back(output.value);
    }
    auto network = std::move(imported.tape).into_network();
    auto run = network.forward(network.parameters(), feeds);
    for (std::size_t index = 0; index < expected.size() && index < outputs.size(); ++index) {
        const std::string mismatch =
            compare(expected[index], run.of(outputs[index]), imported.outputs[index].name);
        if (!mismatch.empty()) {
            return {Outcome::Kind::Failed, folder.filename().string() + ": " + mismatch, {}};
        }
    }
    return {};
}

// The element type the test's reals are in: float32, float64, or none (integers only).
DataType real_type(const onnx::Summary& summary) {
    DataType found = DataType::Undefined;
    auto visit = [&](const onnx::Port& port) {
        if (port.element_type == "float32") {
            found = found == DataType::Undefined ? DataType::Float : found;
        } else if (port.element_type == "float64") {
            found = DataType::Double;
        } else if (port.element_type == "float16" || port.element_type == "bfloat16") {
            found = DataType::Float16;
        }
    };
    std::for_each(summary.inputs.begin(), summary.inputs.end(), visit);
    std::for_each(summary.outputs.begin(), summary.outputs.end(), visit);
    return found;
}

// What an unsupported item says without the tensor names that tell one test
// from another: "input 0 (x) computed at run time" counts with its kind.
std::string reason_text(std::string what) {
    const std::regex names(R"( \(input [0-9]+, [^)]*\))");
    what = std::regex_replace(what, names, "");
    for (const char* cut : {", which", ", where"}) {
        if (const auto at = what.find(cut); at != std::string::npos) {
            what.erase(at);
        }
    }
    return what;
}

std::set<std::string> reasons_of(const onnx::ImportError& error) {
    std::set<std::string> reasons;
    for (const auto& item : error.unsupported()) {
        const std::string subject = item.operator_type.empty() ? "(model)" : item.operator_type;
        reasons.insert(item.what == "operator" ? subject : subject + ": " + reason_text(item.what));
    }
    return reasons;
}

// A test folder: a model with its data sets, or (ONNX's `real` suite) a
// data.json naming where ONNX's own runner downloads them.
bool is_test(const fs::path& folder) {
    return fs::exists(folder / "model.onnx") || fs::exists(folder / "data.json");
}

Outcome run_test(const fs::path& test) {
    if (!fs::exists(test / "model.onnx")) {
        return {Outcome::Kind::Skipped, "", {"(model) a download, which Debian does not ship"}};
    }
    try {
        const onnx::Model model = onnx::Model::read(test / "model.onnx");
        const DataType type = real_type(model.summary());
        if (type == DataType::Float16) {
            return {Outcome::Kind::Skipped, "", {"(element type float16 or bfloat16)"}};
        }
        bool specialised = false;
        for (const auto& folder : data_sets(test)) {
            Outcome outcome = type == DataType::Float
                                  ? run_data_set<float>(model, folder, specialised)
                                  : run_data_set<double>(model, folder, specialised);
            if (outcome.kind != Outcome::Kind::Passed) {
                return outcome;
            }
        }
        Outcome passed;
        passed.specialised = specialised;
        return passed;
    } catch (const onnx::ImportError& error) {
        return {Outcome::Kind::Skipped, error.what(), reasons_of(error)};
    } catch (const topos::IndexError& error) {
        // ONNX wraps negative indices; topos refuses them where they are fed.
        if (std::string(error.what()).find(" met index -") != std::string::npos) {
            return {Outcome::Kind::Skipped,
                    error.what(),
                    {"(run) negative indices fed at run time: an IndexError"}};
        }
        return {Outcome::Kind::Failed, error.what(), {}};
    } catch (const std::exception& error) {
        return {Outcome::Kind::Failed, error.what(), {}};
    }
}

struct Tally {
    std::size_t passed = 0;
    std::size_t specialised = 0;  // of the passed
    std::size_t failed = 0;
    std::size_t skipped = 0;
    std::map<std::string, std::size_t> reasons;
};

Tally run_suite(const fs::path& suite, const std::string& filter, bool verbose) {
    std::vector<fs::path> tests;
    for (const auto& entry : fs::directory_iterator(suite)) {
        if (is_test(entry.path()) &&
            entry.path().filename().string().find(filter) != std::string::npos) {
            tests.push_back(entry.path());
        }
    }
    std::sort(tests.begin(), tests.end());
    Tally tally;
    for (const auto& test : tests) {
        const Outcome outcome = run_test(test);
        const std::string name = test.filename().string();
        switch (outcome.kind) {
            case Outcome::Kind::Passed:
                ++tally.passed;
                tally.specialised += outcome.specialised ? 1 : 0;
                break;
            case Outcome::Kind::Failed:
                ++tally.failed;
                std::cout << "FAILED " << name << ": " << outcome.message << "\n";
                break;
            case Outcome::Kind::Skipped:
                ++tally.skipped;
                for (const auto& reason : outcome.reasons) {
                    ++tally.reasons[reason];
                }
                if (verbose) {
                    std::cout << "skipped " << name << ": " << outcome.message << "\n";
                }
                break;
        }
    }
    return tally;
}

void print_tally(const std::string& suite, const Tally& tally) {
    std::cout << suite << ": " << tally.passed << " passed";
    if (tally.specialised > 0) {
        std::cout << " (" << tally.specialised << " of them with inputs known while recording)";
    }
    std::cout << ", " << tally.failed << " failed, " << tally.skipped << " skipped\n";
    if (tally.reasons.empty()) {
        return;
    }
    std::vector<std::pair<std::string, std::size_t>> reasons(tally.reasons.begin(),
                                                             tally.reasons.end());
    std::stable_sort(reasons.begin(), reasons.end(), [](const auto& a, const auto& b) {
        return a.second > b.second;
    });
    std::cout << "  skipped for:";
    for (std::size_t index = 0; index < reasons.size(); ++index) {
        std::cout << (index == 0 ? " " : ", ") << reasons[index].first << " "
                  << reasons[index].second;
    }
    std::cout << "\n";
}

// The suites named: a folder of test folders is a suite, a folder of suites
// (ONNX's data folder) stands for each of them, in name order.
std::vector<fs::path> suites_in(const std::vector<fs::path>& folders) {
    std::vector<fs::path> suites;
    for (const auto& folder : folders) {
        std::vector<fs::path> inside;
        bool holds_tests = false;
        for (const auto& entry : fs::directory_iterator(folder)) {
            holds_tests = holds_tests || is_test(entry.path());
            if (entry.is_directory()) {
                inside.push_back(entry.path());
            }
        }
        if (holds_tests) {
            suites.push_back(folder);
            continue;
        }
        std::sort(inside.begin(), inside.end());
        suites.insert(suites.end(), inside.begin(), inside.end());
    }
    return suites;
}

}  // namespace

int main(int argc, char** argv) {
    bool verbose = false;
    std::string filter;
    std::vector<fs::path> suites;
    for (int index = 1; index < argc; ++index) {
        const std::string argument = argv[index];
        if (argument == "--verbose") {
            verbose = true;
        } else if (argument == "--filter" && index + 1 < argc) {
            filter = argv[++index];
        } else {
            suites.emplace_back(argument);
        }
    }
    if (suites.empty()) {
        std::cerr << "usage: topos_onnx_conformance [--verbose] [--filter TEXT] SUITE_DIR...\n";
        return 2;
    }
    bool failed = false;
    for (const auto& suite : suites_in(suites)) {
        if (!fs::is_directory(suite)) {
            std::cerr << suite.string()
                      << " is not a folder (Debian: apt-get install libonnx-testdata)\n";
            return 2;
        }
        const Tally tally = run_suite(suite, filter, verbose);
        print_tally(suite.filename().string(), tally);
        failed = failed || tally.failed > 0;
    }
    return failed ? 1 : 0;
}
