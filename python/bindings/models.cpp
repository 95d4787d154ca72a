// The model layer: topos.init's initialisers (stateful streams, as in C++:
// each draw continues where the last one stopped), Activation, and the
// modules, each built on a tape and called like a torch.nn module.
#include "handles.hpp"
#include "module.hpp"
#include <topos/model.hpp>
#include <topos/show/card.hpp>

#include <variant>

namespace topos::python {
namespace {

// An initialiser as Python holds it: one of init's kinds, its stream advancing
// with every tensor drawn.
struct Initialiser {
    std::variant<init::Uniform, init::Normal, init::Scaled> kind;
    std::string name;

    template <Element T>
    Tensor<T> make(const Shape& shape) {
        return std::visit([&](auto& held) { return held.template make<T>(shape); }, kind);
    }
};

// What a module's constructor takes as `weight_init`: draws through the
// Python object, so its stream advances there.
struct Drawing {
    Initialiser* initialiser;

    template <Element T>
    Tensor<T> make(const Shape& shape) {
        return initialiser->make<T>(shape);
    }
};

py::list named_list(const std::vector<NamedParameter>& named) {
    py::list list;
    for (const NamedParameter& parameter : named) {
        list.append(py::make_tuple(parameter.name, parameter.symbol));
    }
    return list;
}

// What every module shares: express and __call__, parameters,
// named_parameters, describe, and its card.
template <class Module, class Class>
void bind_module_common(Class& module_class) {
    module_class.def("express", &Module::express, py::arg("x"))
        .def("__call__", &Module::express, py::arg("x"))
        .def("parameters", &Module::parameters)
        .def("named_parameters",
             [](const Module& module) { return named_list(module.named_parameters()); })
        .def("_repr_html_", [](const Module& module) { return notebook_html(show::card(module)); });
}

// describe() (and str), and a repr of its first line: "<topos.Linear(64 -> 10): ...>".
template <class Module, class Class>
void bind_described(Class& module_class) {
    module_class.def("describe", &Module::describe)
        .def("__str__", &Module::describe)
        .def("__repr__", [](const Module& module) {
            const std::string text = module.describe();
            return "<topos." + text.substr(0, text.find('\n')) + ">";
        });
}

template <ComputeElement T>
void bind_layers(py::module_& module) {
    using Tape_ = OpenTape<T>;
    py::class_<Linear<T>> linear(module, class_name<T>("Linear").c_str(), "x w + b, w [in, out].");
    linear
        .def(py::init([](Tape_& tape, std::size_t in, std::size_t out, Initialiser& init) {
                 return Linear<T>(tape.open(), in, out, Drawing{&init});
             }),
             py::arg("tape"),
             py::arg("in_features"),
             py::arg("out_features"),
             py::arg("init"))
        .def_property_readonly("weight", &Linear<T>::weight)
        .def_property_readonly("bias", &Linear<T>::bias);
    bind_module_common<Linear<T>>(linear);
    bind_described<Linear<T>>(linear);

    py::class_<Mlp<T>> mlp(
        module, class_name<T>("Mlp").c_str(), "Linear layers with an activation between.");
    mlp.def(py::init([](Tape_& tape,
                        std::vector<std::size_t> widths,
                        Activation activation,
                        Initialiser& init) {
                return Mlp<T>(tape.open(), std::move(widths), activation, Drawing{&init});
            }),
            py::arg("tape"),
            py::arg("widths"),
            py::arg("activation"),
            py::arg("init"))
        .def("layers", &Mlp<T>::layers);
    bind_module_common<Mlp<T>>(mlp);
    bind_described<Mlp<T>>(mlp);

    py::class_<Conv2d<T>> conv(
        module, class_name<T>("Conv2d").c_str(), "A 2-D convolution, NCHW and OIHW.");
    conv.def(py::init([](Tape_& tape,
                         std::size_t in_channels,
                         std::size_t out_channels,
                         std::size_t kernel,
                         std::size_t stride,
                         std::size_t padding,
                         Initialiser& init) {
                 return Conv2d<T>(
                     tape.open(),
                     Conv2dGeometry{in_channels, out_channels, kernel, stride, padding},
                     Drawing{&init});
             }),
             py::arg("tape"),
             py::arg("in_channels"),
             py::arg("out_channels"),
             py::arg("kernel"),
             py::arg("stride") = 1,
             py::arg("padding") = 0,
             py::arg("init"));
    bind_module_common<Conv2d<T>>(conv);
    bind_described<Conv2d<T>>(conv);

    py::class_<LayerNorm<T>> layer_norm(module, class_name<T>("LayerNorm").c_str());
    layer_norm.def(py::init([](Tape_& tape, std::size_t features, double epsilon) {
                       return LayerNorm<T>(tape.open(), features, epsilon);
                   }),
                   py::arg("tape"),
                   py::arg("features"),
                   py::arg("epsilon") = 1e-5);
    bind_module_common<LayerNorm<T>>(layer_norm);
    bind_described<LayerNorm<T>>(layer_norm);

    py::class_<Embedding<T>> embedding(module, class_name<T>("Embedding").c_str());
    embedding.def(
        py::init([](Tape_& tape, std::size_t vocabulary, std::size_t width, Initialiser& init) {
            return Embedding<T>(tape.open(), vocabulary, width, Drawing{&init});
        }),
        py::arg("tape"),
        py::arg("vocabulary"),
        py::arg("width"),
        py::arg("init"));
    bind_module_common<Embedding<T>>(embedding);
    bind_described<Embedding<T>>(embedding);
}

template <ComputeElement T>
void bind_batch_norm(py::module_& module) {
    using B = BatchNorm<T>;
    py::class_<BatchNormTraining<T>>(module, class_name<T>("BatchNormTraining").c_str())
        .def_readonly("output", &BatchNormTraining<T>::output)
        .def_readonly("mean", &BatchNormTraining<T>::mean)
        .def_readonly("variance", &BatchNormTraining<T>::variance);
    py::class_<StatisticsInputs<T>>(module, class_name<T>("StatisticsInputs").c_str())
        .def_readonly("mean", &StatisticsInputs<T>::mean)
        .def_readonly("variance", &StatisticsInputs<T>::variance);
    py::class_<B> norm(module, class_name<T>("BatchNorm").c_str(), R"(
Batch normalisation over the channel axis (1): training() gives the output and
the batch statistics; update() folds them into running statistics.)");
    norm.def(py::init([](OpenTape<T>& tape, std::size_t channels, double epsilon, double momentum) {
                 return B(tape.open(), channels, epsilon, momentum);
             }),
             py::arg("tape"),
             py::arg("channels"),
             py::arg("epsilon") = 1e-5,
             py::arg("momentum") = 0.1)
        .def("training", &B::training, py::arg("x"))
        .def("start",
             [](const B& norm) {
                 const RunningStatistics<T> running = norm.start();
                 return py::make_tuple(to_numpy<T>(running.mean), to_numpy<T>(running.variance));
             })
        .def(
            "update",
            [](const B& norm,
               const py::tuple& running,
               const py::handle& batch_mean,
               const py::handle& batch_variance,
               std::size_t count) {
                if (running.size() != 2) {
                    throw py::value_error(
                        "running statistics are a (mean, variance) tuple, as start() gives");
                }
                const RunningStatistics<T> next =
                    norm.update({to_tensor<T>(running[0]), to_tensor<T>(running[1])},
                                to_tensor<T>(batch_mean),
                                to_tensor<T>(batch_variance),
                                count);
                return py::make_tuple(to_numpy<T>(next.mean), to_numpy<T>(next.variance));
            },
            py::arg("running"),
            py::arg("batch_mean"),
            py::arg("batch_variance"),
            py::arg("count"),
            "One running-average step: the next (mean, variance); `count` is the elements per "
            "channel of the batch (topos.elements_per_channel).")
        .def(
            "statistics_inputs",
            [](const B& norm, OpenTape<T>& tape) { return norm.statistics_inputs(tape.open()); },
            py::arg("tape"),
            "Two inputs of `tape` for the running statistics, defaults start().")
        .def("inference", &B::inference, py::arg("x"), py::arg("statistics"))
        .def_property_readonly("gamma", &B::gamma)
        .def_property_readonly("beta", &B::beta);
    bind_module_common<B>(norm);
    bind_described<B>(norm);
}

template <ComputeElement T>
void bind_attention(py::module_& module) {
    using A = CausalSelfAttention<T>;
    py::class_<A> attention(module, class_name<T>("CausalSelfAttention").c_str());
    attention.def(
        py::init([](OpenTape<T>& tape, std::size_t width, std::size_t heads, Initialiser& init) {
            return A(tape.open(), width, heads, Drawing{&init});
        }),
        py::arg("tape"),
        py::arg("width"),
        py::arg("heads"),
        py::arg("init"));
    bind_module_common<A>(attention);
    bind_described<A>(attention);
    using Block = TransformerBlock<T>;
    py::class_<Block> block(module, class_name<T>("TransformerBlock").c_str());
    block.def(py::init([](OpenTape<T>& tape,
                          std::size_t width,
                          std::size_t heads,
                          std::size_t hidden,
                          Initialiser& init) {
                  return Block(tape.open(), width, heads, hidden, Drawing{&init});
              }),
              py::arg("tape"),
              py::arg("width"),
              py::arg("heads"),
              py::arg("hidden"),
              py::arg("init"));
    bind_module_common<Block>(block);
    bind_described<Block>(block);
}

template <ComputeElement T>
void bind_element(py::module_& module) {
    bind_layers<T>(module);
    bind_batch_norm<T>(module);
    bind_attention<T>(module);
}

void bind_initialisers(py::module_& module) {
    py::class_<Initialiser>(module, "Initialiser", R"(
Draws tensors deterministically from a seed; each draw continues the stream.)")
        .def(
            "make",
            [](Initialiser& initialiser,
               const std::vector<long long>& shape,
               const std::string& dtype) -> py::object {
                if (dtype == "float64") {
                    return to_numpy<double>(initialiser.make<double>(shape_of(shape)));
                }
                if (dtype != "float32") {
                    throw py::value_error("dtype is \"float32\" or \"float64\", got \"" + dtype +
                                          "\"");
                }
                return to_numpy<float>(initialiser.make<float>(shape_of(shape)));
            },
            py::arg("shape"),
            py::arg("dtype") = "float32",
            "A tensor of `shape`, drawn next from the stream.")
        .def("__repr__", [](const Initialiser& initialiser) { return initialiser.name; });
    py::module_ init = module.def_submodule("init", "Deterministic initialisers (topos::init).");
    init.def(
            "uniform",
            [](std::uint64_t seed, double low, double high) {
                return Initialiser{init::uniform(seed, low, high),
                                   "topos.init.uniform(" + std::to_string(seed) + ")"};
            },
            py::arg("seed"),
            py::arg("low"),
            py::arg("high"))
        .def(
            "normal",
            [](std::uint64_t seed, double stddev) {
                return Initialiser{init::normal(seed, stddev),
                                   "topos.init.normal(" + std::to_string(seed) + ")"};
            },
            py::arg("seed"),
            py::arg("stddev"))
        .def(
            "xavier",
            [](std::uint64_t seed) {
                return Initialiser{init::xavier(seed),
                                   "topos.init.xavier(" + std::to_string(seed) + ")"};
            },
            py::arg("seed"))
        .def(
            "kaiming",
            [](std::uint64_t seed) {
                return Initialiser{init::kaiming(seed),
                                   "topos.init.kaiming(" + std::to_string(seed) + ")"};
            },
            py::arg("seed"))
        .def("zeros", [] {
            return Initialiser{init::zeros(), "topos.init.zeros()"};
        });
}

}  // namespace

void bind_models(py::module_& module) {
    py::enum_<Activation>(module, "Activation")
        .value("Identity", Activation::Identity)
        .value("Tanh", Activation::Tanh)
        .value("Relu", Activation::Relu)
        .value("Sigmoid", Activation::Sigmoid)
        .value("Gelu", Activation::Gelu);
    module.def(
        "elements_per_channel",
        [](const std::vector<long long>& shape) { return elements_per_channel(shape_of(shape)); },
        py::arg("shape"),
        "Elements per channel of an [N, C, ...] input: the count BatchNorm.update takes.");
    bind_initialisers(module);
    bind_element<float>(module);
    bind_element<double>(module);
}

}  // namespace topos::python
