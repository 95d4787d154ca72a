// Training: the optimizers (pure transforms, and their in-place form), the
// learning-rate schedules, Function (a Python body compiled once per shape),
// and checkpoints.
#include "handles.hpp"
#include "module.hpp"
#include <topos/model/checkpoint.hpp>
#include <topos/model/function.hpp>
#include <topos/model/optim.hpp>
#include <topos/model/schedule.hpp>
#include <topos/show/card.hpp>

#include <optional>

namespace topos::python {
namespace {

template <ComputeElement T>
void bind_states(py::module_& optim) {
    py::class_<optim::SgdState<T>>(optim, class_name<T>("SgdState").c_str())
        .def_readonly("steps", &optim::SgdState<T>::steps)
        .def_readonly("momentum", &optim::SgdState<T>::momentum);
    py::class_<optim::AdamState<T>>(optim, class_name<T>("AdamState").c_str())
        .def_readonly("steps", &optim::AdamState<T>::steps)
        .def_readonly("first_moment", &optim::AdamState<T>::first_moment)
        .def_readonly("second_moment", &optim::AdamState<T>::second_moment);
}

// start, step (a new (parameters, state) pair) and step_in_place for both
// element types; learning_rate None is the optimizer's own.
template <class Optimizer, class Class, template <class> class State>
void bind_steps(Class& optimizer) {
    const auto for_element = [&]<class T>(T /*tag*/) {
        optimizer.def("start", [](const Optimizer& self, const Parameters<T>& parameters) {
            return self.start(parameters);
        });
        optimizer.def(
            "step",
            [](const Optimizer& self,
               const Parameters<T>& parameters,
               const Parameters<T>& gradients,
               const State<T>& state,
               std::optional<double> learning_rate) {
                auto stepped = learning_rate
                                   ? self.step(parameters, gradients, state, *learning_rate)
                                   : self.step(parameters, gradients, state);
                return py::make_tuple(std::move(stepped.parameters), std::move(stepped.state));
            },
            py::arg("parameters"),
            py::arg("gradients"),
            py::arg("state"),
            py::arg("learning_rate") = py::none());
        optimizer.def(
            "step_in_place",
            [](const Optimizer& self,
               Parameters<T>& parameters,
               const Parameters<T>& gradients,
               State<T>& state,
               std::optional<double> learning_rate) {
                self.step_in_place(parameters,
                                   gradients,
                                   state,
                                   learning_rate.value_or(self.options().learning_rate));
            },
            py::arg("parameters"),
            py::arg("gradients"),
            py::arg("state"),
            py::arg("learning_rate") = py::none());
    };
    for_element(float{});
    for_element(double{});
}

void bind_optimizers(py::module_& module) {
    py::module_ optim =
        module.def_submodule("optim", "Optimizers as pure transforms (topos::optim).");
    bind_states<float>(optim);
    bind_states<double>(optim);
    py::class_<optim::Sgd> sgd(optim, "Sgd", "torch.optim.SGD (dampening 0) as a pure transform.");
    sgd.def(py::init([](double lr, double momentum, bool nesterov, double weight_decay) {
                return optim::Sgd({lr, momentum, nesterov, weight_decay});
            }),
            py::arg("lr") = 0.01,
            py::arg("momentum") = 0.0,
            py::arg("nesterov") = false,
            py::arg("weight_decay") = 0.0);
    bind_steps<optim::Sgd, decltype(sgd), optim::SgdState>(sgd);
    py::class_<optim::Adam> adam(optim, "Adam", "torch.optim.Adam as a pure transform.");
    adam.def(
        py::init([](double lr, std::pair<double, double> betas, double eps, double weight_decay) {
            return optim::Adam({lr, betas.first, betas.second, eps, weight_decay});
        }),
        py::arg("lr") = 1e-3,
        py::arg("betas") = std::pair<double, double>{0.9, 0.999},
        py::arg("eps") = 1e-8,
        py::arg("weight_decay") = 0.0);
    bind_steps<optim::Adam, decltype(adam), optim::AdamState>(adam);
    py::class_<optim::AdamW, optim::Adam>(optim, "AdamW", "torch.optim.AdamW as a pure transform.")
        .def(py::init(
                 [](double lr, std::pair<double, double> betas, double eps, double weight_decay) {
                     return optim::AdamW({lr, betas.first, betas.second, eps, weight_decay});
                 }),
             py::arg("lr") = 1e-3,
             py::arg("betas") = std::pair<double, double>{0.9, 0.999},
             py::arg("eps") = 1e-8,
             py::arg("weight_decay") = 1e-2);
}

void bind_schedules(py::module_& module) {
    py::class_<optim::StepDecay>(module, "StepDecay", "base * factor ** (step // period).")
        .def(py::init<double, std::uint64_t, double>(),
             py::arg("base"),
             py::arg("period"),
             py::arg("factor"))
        .def("__call__", &optim::StepDecay::operator(), py::arg("step"));
    py::class_<optim::WarmupCosine>(
        module, "WarmupCosine", "Linear warm-up to peak, then a cosine to floor.")
        .def(py::init<double, std::uint64_t, std::uint64_t, double>(),
             py::arg("peak"),
             py::arg("warmup"),
             py::arg("total"),
             py::arg("floor") = 0.0)
        .def("__call__", &optim::WarmupCosine::operator(), py::arg("step"));
}

Argument argument_of(const std::string& name) {
    if (name == "real") {
        return Argument::Real;
    }
    if (name == "indices") {
        return Argument::Indices;
    }
    throw py::value_error("an argument is \"real\" or \"indices\", got \"" + name + "\"");
}

template <ComputeElement T>
std::vector<Tensor<T>> tensors_of(const py::args& inputs) {
    std::vector<Tensor<T>> tensors;
    for (const py::handle input : inputs) {
        tensors.push_back(to_tensor<T>(input));
    }
    return tensors;
}

template <ComputeElement T>
void bind_function(py::module_& module) {
    using F = Function<T>;
    py::class_<F>(module, class_name<T>("Function").c_str(), R"(
A Python body over a network, compiled into a plan once per input shape
(jax.jit's twin): calling it runs that plan; value_and_gradients runs the
plan of the recorded derivative.)")
        .def(py::init([](const Network<T>& model,
                         const py::function& body,
                         const std::vector<std::string>& arguments,
                         const py::handle& numerics) {
                 std::vector<Argument> kinds;
                 for (const std::string& argument : arguments) {
                     kinds.push_back(argument_of(argument));
                 }
                 const auto traced = [body](const auto&... values) {
                     const py::gil_scoped_acquire locked;
                     return body(values...).template cast<Value<T>>();
                 };
                 return F(model, traced, kinds, numerics_of(numerics));
             }),
             py::arg("model"),
             py::arg("body"),
             py::arg("arguments") = std::vector<std::string>{"real"},
             py::arg("numerics") = "exact")
        .def("__call__",
             [](const F& function, const Parameters<T>& parameters, const py::args& inputs) {
                 const std::vector<Tensor<T>> tensors = tensors_of<T>(inputs);
                 std::optional<Tensor<T>> result;
                 {
                     const py::gil_scoped_release unlocked;
                     result.emplace(function.call(parameters, tensors));
                 }
                 return to_numpy<T>(*result);
             })
        .def("value_and_gradients",
             [](const F& function, const Parameters<T>& parameters, const py::args& inputs) {
                 const std::vector<Tensor<T>> tensors = tensors_of<T>(inputs);
                 std::optional<ValueAndGradients<T>> result;
                 {
                     const py::gil_scoped_release unlocked;
                     result.emplace(function.value_and_gradients(parameters, tensors));
                 }
                 return py::make_tuple(to_numpy<T>(result->value), std::move(result->gradients));
             })
        .def("plan",
             [](const F& function, const std::vector<std::vector<long long>>& shapes) {
                 return function.plan(shapes_of(shapes));
             })
        .def("gradient_plan",
             [](const F& function, const std::vector<std::vector<long long>>& shapes) {
                 return function.gradient_plan(shapes_of(shapes));
             })
        .def("compiled", &F::compiled)
        .def("describe", &F::describe)
        .def("__str__", &F::describe)
        .def("_repr_html_", [](const F& function) { return notebook_html(show::card(function)); })
        .def("__repr__", [](const F& function) {
            const std::string text = function.describe();
            return "<topos." + text.substr(0, text.find('\n')) + " " + dtype_name<T>() + ">";
        });
}

template <ComputeElement T>
void bind_checkpoint_element(py::module_& checkpoint) {
    checkpoint
        .def("save",
             [](const std::string& path, const Parameters<T>& parameters) {
                 checkpoint::save(path, parameters);
             })
        .def("save",
             [](const std::string& path,
                const Parameters<T>& parameters,
                const optim::AdamState<T>& state) { checkpoint::save(path, parameters, state); })
        .def("save",
             [](const std::string& path,
                const Parameters<T>& parameters,
                const optim::SgdState<T>& state) { checkpoint::save(path, parameters, state); })
        .def("load",
             [](const std::string& path, const Network<T>& network) {
                 return checkpoint::load(path, network);
             })
        .def("load_adam_state",
             [](const std::string& path, const Network<T>& network) {
                 return checkpoint::load_adam_state(path, network);
             })
        .def("load_sgd_state", [](const std::string& path, const Network<T>& network) {
            return checkpoint::load_sgd_state(path, network);
        });
}

}  // namespace

void bind_training(py::module_& module) {
    bind_optimizers(module);
    auto optim = module.attr("optim").cast<py::module_>();
    bind_schedules(optim);
    bind_function<float>(module);
    bind_function<double>(module);
    py::module_ checkpoint =
        module.def_submodule("checkpoint", "safetensors checkpoints (topos::checkpoint).");
    bind_checkpoint_element<float>(checkpoint);
    bind_checkpoint_element<double>(checkpoint);
}

}  // namespace topos::python
