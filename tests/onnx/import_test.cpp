// topos::onnx's importer on models the tests write: what becomes a parameter,
// an input and an output, how symbolic axes are sized, what folds, what
// differentiates, and how every unsupported or malformed model is refused.
#include "model_builder.hpp"
#include <topos/autodiff/adjoints.hpp>
#include <topos/model/checkpoint.hpp>
#include <topos/model/function.hpp>
#include <topos/onnx.hpp>
#include <topos/run/run.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <filesystem>
#include <random>
#include <vector>

namespace topos::onnx {
namespace {

using ::testing::HasSubstr;
using testing::ModelBuilder;

// y = x * w + b over x [batch, 3].
ModelBuilder affine_model() {
    ModelBuilder builder;
    builder.input("x", {-1, 3})
        .initializer("w", {3}, {0.5F, -2.0F, 4.0F})
        .initializer("b", {3}, {1.0F, 2.0F, 3.0F})
        .output("y", {-1, 3});
    builder.node("Mul", {"x", "w"}, {"xw"}, "scale");
    builder.node("Add", {"xw", "b"}, {"y"}, "shift");
    return builder;
}

TEST(OnnxImport, InitializersBecomeParametersUnderTheirOnnxNames) {
    auto imported = Model::parse(affine_model().bytes()).import();
    ASSERT_EQ(imported.named_parameters().size(), 2U);
    EXPECT_EQ(imported.named_parameters()[0].name, "w");
    EXPECT_EQ(imported.named_parameters()[1].name, "b");
    const Network<float> network = std::move(imported.tape).into_network();
    EXPECT_EQ(network.payload(imported.named_parameters()[0].symbol).to_vector(),
              (std::vector<float>{0.5F, -2.0F, 4.0F}));
}

TEST(OnnxImport, RunsAsTheOperatorsSay) {
    auto imported =
        Model::parse(affine_model().bytes()).import <double>({.dimensions = {{"batch", 2}}});
    const Value<double> x = imported.input("x");
    const Value<double> y = imported.output("y");
    EXPECT_EQ(x.shape(), (Shape{2, 3}));
    const Network<double> network = std::move(imported.tape).into_network();
    const auto run =
        network.forward(network.parameters(), {{x, Tensor<double>({2, 3}, {1, 2, 3, -1, 0, 1})}});
    EXPECT_EQ(run.of(y).to_vector(), (std::vector<double>{1.5, -2, 15, 0.5, 2, 7}));
}

TEST(OnnxImport, SymbolicAxesTakeTheGivenExtentOrTheDefault) {
    const Model model = Model::parse(affine_model().bytes());
    EXPECT_EQ(model.import({.dimensions = {{"batch", 7}}}).input("x").shape(), (Shape{7, 3}));
    EXPECT_EQ(model.import({.default_extent = 4}).input("x").shape(), (Shape{4, 3}));
}

TEST(OnnxImport, NamesTheInputsAndOutputsThereAreWhenAskedForAnother) {
    const auto imported = Model::parse(affine_model().bytes()).import();
    EXPECT_THAT([&] { (void)imported.output("logits"); },
                ::testing::ThrowsMessage<SymbolError>(HasSubstr("its outputs: y")));
}

TEST(OnnxImport, DifferentiatesLikeARecordedNetwork) {
    auto imported = Model::parse(affine_model().bytes()).import <double>({.default_extent = 2});
    const Value<double> loss = imported.output("y").sum();
    const Symbol w = imported.named_parameters()[0].symbol;
    const auto adjoints = imported.tape.differentiate(loss, {w});
    const Network<double> network = std::move(imported.tape).into_network();
    const auto run =
        network.forward(network.parameters(),
                        {{imported.inputs[0].value, Tensor<double>({2, 3}, {1, 2, 3, -1, 0, 1})}});
    // d/dw sum(x w + b) = the column sums of x.
    EXPECT_EQ(run.of(adjoints.of(w)).to_vector(), (std::vector<double>{0, 2, 4}));
}

TEST(OnnxImport, ShapeComputationsFoldWhileRecording) {
    ModelBuilder builder;
    builder.input("x", {-1, 3}).output("y", {-1, 3});
    builder.node("Shape", {"x"}, {"shape"});
    auto& fill = builder.node("ConstantOfShape", {"shape"}, {"ones"});
    auto* value = fill.add_attribute();
    value->set_name("value");
    value->set_type(::onnx::AttributeProto::TENSOR);
    value->mutable_t()->set_data_type(::onnx::TensorProto::FLOAT);
    value->mutable_t()->add_dims(1);
    value->mutable_t()->add_float_data(1.0F);
    builder.node("Add", {"x", "ones"}, {"y"});
    auto imported = Model::parse(builder.bytes()).import({.default_extent = 2});
    const Symbol y = imported.output("y");
    const Network<float> network = std::move(imported.tape).into_network();
    // Shape and ConstantOfShape fold into one leaf: the input, the leaf and the Add.
    std::vector<Opcode> opcodes;
    for (const Node& node : network.nodes()) {
        opcodes.push_back(node.opcode());
    }
    EXPECT_EQ(opcodes, (std::vector<Opcode>{Opcode::Input, Opcode::Leaf, Opcode::Add}));
    const auto run =
        network.forward(network.parameters(),
                        {{imported.inputs[0].value, Tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6})}});
    EXPECT_EQ(run.of(y).to_vector(), (std::vector<float>{2, 3, 4, 5, 6, 7}));
}

TEST(OnnxImport, RecordsAgainAtAnotherBatchOverTheSameParameters) {
    const Model model = Model::parse(affine_model().bytes());
    auto imported = model.import({.default_extent = 1});
    const auto parameters = imported.named_parameters();
    const Network<float> network = std::move(imported.tape).into_network();
    Tape<float> tape = network.reopen();
    const Value<float> rows = tape.input(Tensor<float>::filled({5, 3}, 1.0F));
    const std::vector<Value<float>> inputs{rows};
    const auto outputs = model.record(tape, std::span<const Value<float>>(inputs), parameters);
    EXPECT_EQ(outputs[0].value.shape(), (Shape{5, 3}));
    const Network<float> wider = std::move(tape).into_network();
    EXPECT_EQ(wider.parameters().size(), network.parameters().size());
    EXPECT_EQ(wider.forward(wider.parameters()).of(outputs[0].value).to_vector()[2], 7.0F);
}

TEST(OnnxImport, LoadsANamedCheckpointByOnnxNames) {
    const Model model = Model::parse(affine_model().bytes());
    auto saved = model.import();
    const Network<float> saved_network = std::move(saved.tape).into_network();
    const Parameters<float> trained = saved_network.parameters().with(
        saved.named_parameters()[1].symbol, Tensor<float>({3}, {-1.0F, -2.0F, -3.0F}));
    const auto path = std::filesystem::temp_directory_path() / "topos_onnx_named.safetensors";
    checkpoint::save(path, trained, saved.named_parameters());
    auto fresh = model.import();
    const Network<float> network = std::move(fresh.tape).into_network();
    const Parameters<float> loaded = checkpoint::load(path, network, fresh.named_parameters());
    std::filesystem::remove(path);
    EXPECT_EQ(loaded.of(fresh.named_parameters()[1].symbol).to_vector(),
              (std::vector<float>{-1.0F, -2.0F, -3.0F}));
}

TEST(OnnxImport, RunsThroughAFunctionAtAnyBatchSize) {
    const Model model = Model::parse(affine_model().bytes());
    auto imported = model.import();
    const auto parameters = imported.named_parameters();
    const Network<float> network = std::move(imported.tape).into_network();
    Function<float> predict(network, [&](const Value<float>& rows) {
        Tape<float> tape = rows.tape();
        const std::vector<Value<float>> inputs{rows};
        return model.record(tape, std::span<const Value<float>>(inputs), parameters).at(0).value;
    });
    EXPECT_EQ(predict(network.parameters(), Tensor<float>::filled({3, 3}, 2.0F)).shape(),
              (Shape{3, 3}));
    const Tensor<float> five = predict(network.parameters(), Tensor<float>::filled({5, 3}, 2.0F));
    EXPECT_EQ(five.shape(), (Shape{5, 3}));
    EXPECT_EQ(five.to_vector()[1], -2.0F);  // 2 * -2 + 2
}

// x [batch, 6] reshaped to a shape the graph takes as its second input.
ModelBuilder reshape_model() {
    ModelBuilder builder;
    builder.input("x", {-1, 6})
        .input("shape", {2}, "", ::onnx::TensorProto::INT64)
        .output("y", {-1, -1});
    builder.node("Reshape", {"x", "shape"}, {"y"}, "reshaper");
    return builder;
}

TEST(OnnxImport, NamesTheInputThatMustBeKnownWhileRecording) {
    const Model model = Model::parse(reshape_model().bytes());
    try {
        (void)model.import();
        FAIL() << "the model was imported";
    } catch (const ImportError& error) {
        ASSERT_EQ(error.unsupported().size(), 1U);
        EXPECT_EQ(error.unsupported()[0].node, "reshaper");
        EXPECT_EQ(error.unsupported()[0].value, "shape");
    }
}

TEST(OnnxImport, RecordsForKnownInputsAsForConstants) {
    const Model model = Model::parse(reshape_model().bytes());
    auto imported = model.import(
        {.default_extent = 2, .known_inputs = {{"shape", Tensor<double>({2}, {3, 4})}}});
    ASSERT_EQ(imported.inputs.size(), 1U) << "a known input is not an input of the tape";
    EXPECT_EQ(imported.output("y").shape(), (Shape{3, 4}));
    EXPECT_THAT(
        [&] {
            (void)model.import({.known_inputs = {{"shap", Tensor<double>({2}, {3, 4})}}});
        },
        ::testing::ThrowsMessage<ModelError>(HasSubstr("its inputs: x, shape")));
    EXPECT_THAT(
        [&] {
            (void)model.import({.known_inputs = {{"shape", Tensor<double>({3}, {1, 3, 4})}}});
        },
        ::testing::ThrowsMessage<ModelError>(HasSubstr("the known input shape has the shape [3]")));
}

// Gelu as torch.nn.GELU computes it, in both forms, at three points.
TEST(OnnxImport, GeluIsTorchsInBothForms) {
    for (const std::string approximate : {"none", "tanh"}) {
        ModelBuilder builder;
        builder.input("x", {3}).output("y", {3});
        auto& gelu = builder.node("Gelu", {"x"}, {"y"});
        auto* attribute = gelu.add_attribute();
        attribute->set_name("approximate");
        attribute->set_type(::onnx::AttributeProto::STRING);
        attribute->set_s(approximate);
        auto imported = Model::parse(builder.bytes()).import <double>();
        const Symbol y = imported.output("y");
        const Network<double> network = std::move(imported.tape).into_network();
        const auto run =
            network.forward(network.parameters(),
                            {{imported.inputs[0].value, Tensor<double>({3}, {-1.5, 0.25, 2.0})}});
        // torch.nn.functional.gelu(torch.tensor([-1.5, 0.25, 2.0], dtype=torch.float64),
        // approximate=...)
        const std::vector<double> expected =
            approximate == "none"
                ? std::vector<double>{-0.10021080190328704, 0.14967658142073093, 1.9544997361036416}
                : std::vector<double>{-0.10042842301976707, 0.149675350701685, 1.954597694087775};
        for (std::size_t index = 0; index < 3; ++index) {
            EXPECT_NEAR(run.of(y).to_vector()[index], expected[index], 1e-15) << approximate;
        }
    }
}

TEST(OnnxImport, ImportsIntoBfloat16) {
    auto imported = Model::parse(affine_model().bytes()).import <bf16>({.default_extent = 1});
    const Symbol y = imported.output("y");
    const Network<bf16> network = std::move(imported.tape).into_network();
    const auto run = network.forward(
        network.parameters(),
        {{imported.inputs[0].value, Tensor<bf16>({1, 3}, {bf16(2.0F), bf16(1.0F), bf16(0.5F)})}});
    EXPECT_EQ(static_cast<float>(run.of(y).to_vector()[2]), 5.0F);
}

TEST(OnnxImport, ListsEveryUnsupportedOperatorAndAttributeAtOnce) {
    ModelBuilder builder(13);
    builder.input("x", {2}).output("z", {2});
    builder.node("Frobnicate", {"x"}, {"a"}, "first");
    auto& add = builder.node("Add", {"a", "x"}, {"b"}, "second");
    ModelBuilder::integer_attribute(add, "fused_activation", 1);
    builder.node("FusedGelu", {"b"}, {"z"}, "third").set_domain("com.microsoft");
    try {
        (void)Model::parse(builder.bytes());
        FAIL() << "the model was imported";
    } catch (const ImportError& error) {
        const std::vector<Unsupported> expected{
            {"first", "Frobnicate", 13, "operator"},
            {"second", "Add", 13, "attribute fused_activation"},
            {"third", "com.microsoft.FusedGelu", 13, "operator of the domain com.microsoft"}};
        EXPECT_EQ(error.unsupported(), expected);
        EXPECT_THAT(error.what(), HasSubstr("first (Frobnicate, opset 13): operator"));
    }
}

TEST(OnnxImport, RefusesOpsetsItDoesNotRead) {
    ModelBuilder builder(18);
    builder.input("x", {2}).output("x", {2});
    EXPECT_THAT([&] { (void)Model::parse(builder.bytes()); },
                ::testing::ThrowsMessage<ImportError>(HasSubstr("opset 18 of the default domain")));
}

TEST(OnnxImport, RefusesAnInitializerWhoseDataDoesNotMatchItsShape) {
    ModelBuilder builder;
    builder.input("x", {2, 3}).initializer("w", {2, 3}, {1, 2, 3, 4, 5}).output("y", {2, 3});
    builder.node("Add", {"x", "w"}, {"y"});
    EXPECT_THAT([&] { (void)Model::parse(builder.bytes()); },
                ::testing::ThrowsMessage<ModelError>(
                    HasSubstr("holds 5 elements where its shape needs 6")));
}

TEST(OnnxImport, RefusesANameNoNodeDefines) {
    ModelBuilder builder;
    builder.input("x", {2}).output("y", {2});
    builder.node("Add", {"x", "ghost"}, {"y"}, "adder");
    EXPECT_THAT([&] { (void)Model::parse(builder.bytes()); },
                ::testing::ThrowsMessage<ModelError>(HasSubstr("adder (Add) reads ghost")));
}

TEST(OnnxImport, RefusesACycle) {
    ModelBuilder builder;
    builder.input("x", {2}).output("b", {2});
    builder.node("Add", {"x", "b"}, {"a"}, "one");
    builder.node("Add", {"x", "a"}, {"b"}, "two");
    EXPECT_THAT([&] { (void)Model::parse(builder.bytes()); },
                ::testing::ThrowsMessage<ModelError>(HasSubstr("cycle (one, two)")));
}

TEST(OnnxImport, RefusesANameDefinedTwice) {
    ModelBuilder builder;
    builder.input("x", {2}).output("a", {2});
    builder.node("Add", {"x", "x"}, {"a"});
    builder.node("Mul", {"x", "x"}, {"a"});
    EXPECT_THAT([&] { (void)Model::parse(builder.bytes()); },
                ::testing::ThrowsMessage<ModelError>(HasSubstr("defined twice")));
}

TEST(OnnxImport, RefusesShapesThatContradictTheOperators) {
    ModelBuilder builder;
    builder.input("x", {2, 3}).initializer("w", {2}, {1, 2}).output("y", {2, 3});
    builder.node("Add", {"x", "w"}, {"y"}, "adder");
    const Model model = Model::parse(builder.bytes());
    EXPECT_THAT([&] { (void)model.import(); },
                ::testing::ThrowsMessage<ModelError>(HasSubstr("node adder (Add)")));
}

// Every rule reads inputs a node may lack (the fuzzer's first finding read past
// a BatchNormalization's one input); each must be a ModelError.
TEST(OnnxImport, RefusesANodeThatLacksInputsItsOperatorNeeds) {
    for (const char* type : {"BatchNormalization", "Conv", "Gemm", "Add", "Reshape", "Where"}) {
        ModelBuilder builder;
        builder.input("x", {2, 3}).output("y", {2, 3});
        builder.node(type, {"x"}, {"y"}, "short");
        const Model model = Model::parse(builder.bytes());
        EXPECT_THROW((void)model.import(), ModelError) << type;
    }
}

TEST(OnnxImport, RefusesBytesThatAreNotAModel) {
    const auto bytes = affine_model().bytes();
    const std::vector<std::byte> truncated(
        bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(bytes.size() - 3));
    EXPECT_THROW((void)Model::parse(truncated), ModelError);
    const std::vector<std::byte> text{
        std::byte{'n'}, std::byte{'o'}, std::byte{'p'}, std::byte{'e'}};
    EXPECT_THROW((void)Model::parse(text), ModelError);
    EXPECT_THROW((void)Model::read("/nonexistent/model.onnx"), ModelError);
}

// Every prefix and thousands of corrupted copies of a model are read or
// refused with a topos error; none crashes (the sanitizer builds run this too).
TEST(OnnxImport, SurvivesCorruptedFiles) {
    const auto bytes = affine_model().bytes();
    auto try_import = [](const std::vector<std::byte>& candidate) {
        try {
            (void)Model::parse(candidate).import({.default_extent = 2});
        } catch (const Error&) {
        }
    };
    for (std::size_t length = 0; length <= bytes.size(); ++length) {
        try_import({bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(length)});
    }
    std::mt19937 generator(2024);
    std::uniform_int_distribution<std::size_t> position(0, bytes.size() - 1);
    std::uniform_int_distribution<int> value(0, 255);
    for (int trial = 0; trial < 3000; ++trial) {
        auto corrupted = bytes;
        for (int flip = 0; flip < 1 + trial % 4; ++flip) {
            corrupted[position(generator)] = static_cast<std::byte>(value(generator));
        }
        try_import(corrupted);
    }
}

TEST(OnnxImport, SummarisesAModelWithoutRecordingIt) {
    const Model model = Model::parse(affine_model().bytes());
    const std::string text = model.summary().describe();
    EXPECT_THAT(text, HasSubstr("producer: topos-tests (IR version 8)"));
    EXPECT_THAT(text, HasSubstr("opsets: ai.onnx 13"));
    EXPECT_THAT(text, HasSubstr("  x float32 [batch, 3]"));
    EXPECT_THAT(text, HasSubstr("operators: 2 nodes: Add 1, Mul 1"));
    EXPECT_THAT(text, HasSubstr("parameters: 2 initializers, 6 elements"));
}

}  // namespace
}  // namespace topos::onnx
