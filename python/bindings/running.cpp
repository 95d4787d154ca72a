// Running: Network_<dtype>, Parameters, Run, Field, Entry and Plan, with
// Numerics and MlirForm. Values come back as read-only ndarrays over the
// run's own storage; heavy work (forward, backward, lowering) runs with the
// GIL released, so other Python threads go on meanwhile.
#include "handles.hpp"
#include "module.hpp"
#include <topos/emit/stablehlo.hpp>
#include <topos/graph/network.hpp>
#include <topos/pattern/pattern.hpp>
#include <topos/plan/plan.hpp>
#include <topos/run/entry.hpp>
#include <topos/run/parameters.hpp>
#include <topos/show/card.hpp>

#include <pybind11/functional.h>
#include <sstream>

namespace topos::python {
namespace {

template <class Printable>
std::string printed(const Printable& value) {
    std::ostringstream text;
    text << value;
    return text.str();
}

MlirForm form_of(const std::string& form) {
    if (form == "pretty") {
        return MlirForm::Pretty;
    }
    if (form == "generic") {
        return MlirForm::Generic;
    }
    throw py::value_error("form is \"pretty\" or \"generic\", got \"" + form + "\"");
}

// "<topos.Kind dtype, detail>", the text a notebook shows beside a card.
template <ComputeElement T>
std::string repr(const char* kind, const std::string& detail) {
    return std::string("<topos.") + kind + " " + dtype_name<T>() + (detail.empty() ? "" : ", ") +
           detail + ">";
}

// "1 slot", "3 slots".
std::string counted(std::size_t count, const std::string& noun) {
    return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

template <ComputeElement T>
std::vector<Feed<T>> optional_feeds(const py::object& feeds) {
    return feeds.is_none() ? std::vector<Feed<T>>{} : feeds_of<T>(feeds.cast<py::dict>());
}

template <ComputeElement T>
void bind_parameters(py::module_& module) {
    using P = Parameters<T>;
    py::class_<P>(module, class_name<T>("Parameters").c_str(), R"(
The payloads of a network's parameters, one slot each, read by symbol.
Immutable: step() and with_() return new parameters.)")
        .def("of",
             [](const P& parameters, const py::handle& symbol) {
                 return to_numpy<T>(parameters.of(symbol_of(symbol)));
             })
        .def("__len__", &P::size)
        .def("symbols",
             [](const P& parameters) {
                 const auto symbols = parameters.symbols();
                 return std::vector<Symbol>(symbols.begin(), symbols.end());
             })
        .def("values",
             [](const P& parameters) {
                 py::list values;
                 for (const Tensor<T>& value : parameters.values()) {
                     values.append(to_numpy<T>(value));
                 }
                 return values;
             })
        .def("with_",
             [](const P& parameters, const py::handle& symbol, const py::object& value) {
                 return parameters.with(symbol_of(symbol), to_tensor<T>(value));
             })
        .def(
            "step",
            [](const P& parameters, const P& gradients, const py::function& update) {
                return parameters.step(
                    gradients, [&](const Tensor<T>& weight, const Tensor<T>& gradient) {
                        return to_tensor<T>(update(to_numpy<T>(weight), to_numpy<T>(gradient)));
                    });
            },
            py::arg("gradients"),
            py::arg("update"),
            "Each slot's update(weight, gradient), as new parameters.")
        .def("same_slots", &P::same_slots)
        .def("__repr__",
             [](const P& parameters) {
                 return repr<T>("Parameters", counted(parameters.size(), "slot"));
             })
        .def("_repr_html_",
             [](const P& parameters) { return notebook_html(show::card(parameters)); });
}

template <ComputeElement T>
void bind_run(py::module_& module) {
    using R = Run<T>;
    using F = Field<T>;
    py::class_<F>(module, class_name<T>("Field").c_str(), R"(
The derivatives of one target with respect to every node: of(value).)")
        .def("of",
             [](const F& field, const py::handle& symbol) {
                 return to_numpy<T>(field.of(symbol_of(symbol)));
             })
        .def("reached",
             [](const F& field, const py::handle& symbol) {
                 return field.reached(symbol_of(symbol));
             })
        .def("parameters",
             &F::parameters,
             py::arg("like"),
             "The derivatives in the slots of `like`.")
        .def("_repr_html_", [](const F& field) { return notebook_html(show::card(field)); })
        .def("__repr__", [](const F&) { return repr<T>("Field", ""); });
    py::class_<R>(module, class_name<T>("Run").c_str(), R"(
The values of one forward run, readable where its declaration says.)")
        .def("of",
             [](const R& run, const py::handle& symbol) {
                 return to_numpy<T>(run.of(symbol_of(symbol)));
             })
        .def("readable",
             [](const R& run, const py::handle& symbol) { return run.readable(symbol_of(symbol)); })
        .def(
            "backward",
            [](const R& run, const py::handle& target) {
                const Symbol symbol = symbol_of(target);
                const py::gil_scoped_release unlocked;
                return run.backward(symbol);
            },
            py::arg("target"),
            "The reverse scan from a rank-0 target: a Field of derivatives.")
        .def("recorded_gradients", &R::recorded_gradients, py::arg("adjoints"))
        .def("network", &R::network)
        .def("_repr_html_", [](const R& run) { return notebook_html(show::card(run)); })
        .def("__repr__", [](const R&) { return repr<T>("Run", ""); });
}

template <ComputeElement T>
void bind_network(py::module_& module) {
    using N = Network<T>;
    py::class_<N>(module, class_name<T>("Network").c_str(), R"(
A sealed tape: immutable, safe to share. forward() is the whole-spec oracle.)")
        .def("describe", &N::describe)
        .def("__str__", &N::describe)
        .def("__len__", [](const N& network) { return network.nodes().size(); })
        .def("nodes",
             [](const N& network) {
                 const auto nodes = network.nodes();
                 return std::vector<Node>(nodes.begin(), nodes.end());
             })
        .def("node",
             [](const N& network, const py::handle& symbol) {
                 return network.node(symbol_of(symbol));
             })
        .def("payload",
             [](const N& network, const py::handle& source) {
                 return to_numpy<T>(network.payload(symbol_of(source)));
             })
        .def("parameters", &N::parameters, "The recorded initial payloads of the parameters.")
        .def(
            "forward",
            [](const N& network, const Parameters<T>& parameters, const py::object& feeds) {
                const std::vector<Feed<T>> converted = optional_feeds<T>(feeds);
                const py::gil_scoped_release unlocked;
                return network.forward(parameters, converted);
            },
            py::arg("parameters"),
            py::arg("feeds") = py::none(),
            "Evaluates every node; feeds ({value: array}) overlay the inputs' defaults.")
        .def(
            "entry",
            [](const N& network, const py::iterable& roots) {
                return network.entry(symbols_of(roots));
            },
            py::arg("roots"))
        .def("reopen", [](const N& network) { return OpenTape<T>(network.reopen()); })
        .def_property_readonly("dtype", [](const N&) { return dtype_name<T>(); })
        .def("_repr_html_", [](const N& network) { return notebook_html(show::card(network)); })
        .def("__repr__", [](const N& network) {
            return repr<T>("Network", counted(network.nodes().size(), "node"));
        });
}

template <ComputeElement T>
void bind_entry(py::module_& module) {
    using E = Entry<T>;
    py::class_<E>(module, class_name<T>("Entry").c_str(), R"(
What a run may read: the roots, the observed values, the numerics.)")
        .def("observe",
             [](const E& entry, const py::iterable& values) {
                 return entry.observe(symbols_of(values));
             })
        .def("numerics",
             [](const E& entry, const py::handle& numerics) {
                 return entry.numerics(numerics_of(numerics));
             })
        .def("backward", &E::backward, "Keeps what Run.backward reads.")
        .def("elect_patterns", &E::elect_patterns, py::arg("elect") = true)
        .def("simplify", &E::simplify, py::arg("simplify") = true)
        .def(
            "interpret",
            [](const E& entry, const Parameters<T>& parameters, const py::object& feeds) {
                const std::vector<Feed<T>> converted = optional_feeds<T>(feeds);
                const py::gil_scoped_release unlocked;
                return entry.interpret(parameters, converted);
            },
            py::arg("parameters"),
            py::arg("feeds") = py::none())
        .def(
            "lower",
            [](const E& entry) {
                const py::gil_scoped_release unlocked;
                return entry.lower();
            },
            "The compiled plan: schedule, liveness, buffers, patterns.")
        .def("roots", &E::roots)
        .def("observed", &E::observed)
        .def("declared", &E::declared)
        .def("_repr_html_", [](const E& entry) { return notebook_html(show::card(entry)); })
        .def("__repr__", [](const E& entry) {
            return repr<T>(
                "Entry", counted(entry.roots().size(), "root") + ", " + printed(entry.numerics()));
        });
}

template <ComputeElement T>
void bind_plan(py::module_& module) {
    using P = Plan<T>;
    py::class_<P>(module, class_name<T>("Plan").c_str(), R"(
A lowered entry: the schedule, each value's liveness and buffer, the elected
patterns. forward() runs it; emit_stablehlo() writes it as StableHLO text.)")
        .def("describe", &P::describe)
        .def("__str__", &P::describe)
        .def(
            "forward",
            [](const P& plan, const Parameters<T>& parameters, const py::object& feeds) {
                const std::vector<Feed<T>> converted = optional_feeds<T>(feeds);
                const py::gil_scoped_release unlocked;
                return plan.forward(parameters, converted);
            },
            py::arg("parameters"),
            py::arg("feeds") = py::none())
        .def("live_series", &P::live_series)
        .def("arena_elements", &P::arena_elements)
        .def("nodes",
             [](const P& plan) {
                 const auto nodes = plan.nodes();
                 return std::vector<Node>(nodes.begin(), nodes.end());
             })
        .def("patterns",
             [](const P& plan) {
                 std::vector<std::string> patterns;
                 for (const Pattern& pattern : plan.patterns()) {
                     patterns.push_back(printed(pattern));
                 }
                 return patterns;
             })
        .def(
            "emit_stablehlo",
            [](const P& plan, const std::string& form) {
                return plan.emit_stablehlo(form_of(form));
            },
            py::arg("form") = "pretty",
            "The plan as a StableHLO module (form \"pretty\" or \"generic\").")
        .def("entry", &P::entry)
        .def("_repr_html_", [](const P& plan) { return notebook_html(show::card(plan)); })
        .def("__repr__", [](const P& plan) {
            return repr<T>("Plan", counted(plan.nodes().size(), "node") + " scheduled");
        });
}

template <ComputeElement T>
void bind_element(py::module_& module) {
    bind_parameters<T>(module);
    bind_run<T>(module);
    bind_network<T>(module);
    bind_entry<T>(module);
    bind_plan<T>(module);
}

}  // namespace

void bind_running(py::module_& module) {
    py::enum_<Numerics>(
        module, "Numerics", "Exact: the oracle's bits. Fast: within documented bounds.")
        .value("Exact", Numerics::Exact)
        .value("Fast", Numerics::Fast);
    bind_element<float>(module);
    bind_element<double>(module);
}

}  // namespace topos::python
