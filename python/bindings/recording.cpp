// Recording: Tape_<dtype>, Value_<dtype> (operators and the op catalog as
// methods, axes as Python writes them), Node and Adjoints, and the free
// operations (where, concat, conv2d, the losses, ...).
#include "handles.hpp"
#include "module.hpp"
#include <topos/graph/compositions.hpp>
#include <topos/graph/losses.hpp>
#include <topos/graph/node.hpp>
#include <topos/graph/tape.hpp>
#include <topos/show/card.hpp>

#include <sstream>

namespace topos::python {
namespace {

// `other` as a value of `self`'s tape: a value as it is, anything else
// (a number, an array) recorded as a constant leaf.
template <ComputeElement T>
Value<T> operand(const Value<T>& self, const py::handle& other) {
    if (py::isinstance<Value<T>>(other)) {
        return other.cast<Value<T>>();
    }
    if (py::isinstance<Value<float>>(other) || py::isinstance<Value<double>>(other)) {
        throw py::type_error(std::string("a value of another element type given to a ") +
                             dtype_name<T>() + " value; convert its tape's type instead");
    }
    return self.tape().leaf(to_tensor<T>(other));
}

template <ComputeElement T>
std::vector<std::size_t> axes_of(const py::handle& axis, std::size_t rank) {
    std::vector<std::size_t> axes;
    if (py::isinstance<py::int_>(axis)) {
        axes.push_back(axis_of(axis.cast<long long>(), rank));
        return axes;
    }
    for (const py::handle one : axis.cast<py::iterable>()) {
        axes.push_back(axis_of(one.cast<long long>(), rank));
    }
    return axes;
}

template <ComputeElement T>
Axes axes_list(const std::vector<std::size_t>& axes) {
    return Axes(std::span<const std::size_t>(axes));
}

// A reduction over every axis (axis None), one, or several.
template <ComputeElement T, class Whole, class Along>
Value<T> reduce(
    const Value<T>& self, const py::object& axis, bool keepdim, Whole whole, Along along) {
    if (axis.is_none()) {
        if (!keepdim) {
            return whole(self);
        }
        std::vector<std::size_t> all(self.shape().rank());
        for (std::size_t i = 0; i < all.size(); ++i) {
            all[i] = i;
        }
        return along(self, axes_list<T>(all), true);
    }
    return along(self, axes_list<T>(axes_of<T>(axis, self.shape().rank())), keepdim);
}

// Extents as reshape takes them: a sequence, or each as an argument; one -1
// stands for what the others leave.
template <ComputeElement T>
Shape reshaped(const Value<T>& self, const py::args& args) {
    std::vector<long long> extents;
    if (args.size() == 1 && !py::isinstance<py::int_>(args[0])) {
        extents = args[0].cast<std::vector<long long>>();
    } else {
        extents = args.cast<std::vector<long long>>();
    }
    std::size_t known = 1;
    std::size_t inferred = extents.size();
    for (std::size_t i = 0; i < extents.size(); ++i) {
        if (extents[i] == -1 && inferred == extents.size()) {
            inferred = i;
        } else if (extents[i] >= 0) {
            known *= static_cast<std::size_t>(extents[i]);
        }
    }
    if (inferred < extents.size() && known != 0) {
        extents[inferred] = static_cast<long long>(self.shape().elements() / known);
    }
    return shape_of(extents);
}

template <ComputeElement T>
std::string value_repr(const Value<T>& value) {
    std::ostringstream text;
    text << "<topos.Value " << dtype_name<T>() << ' ' << value.shape() << " at node "
         << value.index() << '>';
    return text.str();
}

template <ComputeElement T>
void bind_value_arithmetic(py::class_<Value<T>>& value) {
    using V = Value<T>;
    value.def("__add__", [](const V& a, const py::handle& b) { return a + operand(a, b); })
        .def("__radd__", [](const V& a, const py::handle& b) { return operand(a, b) + a; })
        .def("__sub__", [](const V& a, const py::handle& b) { return a - operand(a, b); })
        .def("__rsub__", [](const V& a, const py::handle& b) { return operand(a, b) - a; })
        .def("__mul__", [](const V& a, const py::handle& b) { return a * operand(a, b); })
        .def("__rmul__", [](const V& a, const py::handle& b) { return operand(a, b) * a; })
        .def("__truediv__", [](const V& a, const py::handle& b) { return a / operand(a, b); })
        .def("__rtruediv__", [](const V& a, const py::handle& b) { return operand(a, b) / a; })
        .def("__matmul__", [](const V& a, const py::handle& b) { return a.matmul(operand(a, b)); })
        .def("__rmatmul__", [](const V& a, const py::handle& b) { return operand(a, b).matmul(a); })
        .def("__pow__", [](const V& a, const py::handle& b) { return a.pow(operand(a, b)); })
        .def("__rpow__", [](const V& a, const py::handle& b) { return operand(a, b).pow(a); })
        .def("__neg__", [](const V& a) { return -a; })
        .def("__lt__", [](const V& a, const py::handle& b) { return a.less(operand(a, b)); })
        .def("__le__", [](const V& a, const py::handle& b) { return a.less_equal(operand(a, b)); })
        .def("__gt__", [](const V& a, const py::handle& b) { return a.greater(operand(a, b)); })
        .def("__ge__",
             [](const V& a, const py::handle& b) { return a.greater_equal(operand(a, b)); })
        .def("equal", [](const V& a, const py::handle& b) { return a.equal(operand(a, b)); })
        .def("not_equal",
             [](const V& a, const py::handle& b) { return a.not_equal(operand(a, b)); })
        .def("maximum", [](const V& a, const py::handle& b) { return a.maximum(operand(a, b)); })
        .def("minimum", [](const V& a, const py::handle& b) { return a.minimum(operand(a, b)); })
        .def("pow", [](const V& a, const py::handle& b) { return a.pow(operand(a, b)); })
        .def("matmul", [](const V& a, const py::handle& b) { return a.matmul(operand(a, b)); });
}

template <ComputeElement T>
void bind_value_elementwise(py::class_<Value<T>>& value) {
    using V = Value<T>;
    value.def("abs", &V::abs)
        .def("sign", &V::sign)
        .def("exp", &V::exp)
        .def("expm1", &V::expm1)
        .def("log", &V::log)
        .def("log1p", &V::log1p)
        .def("sqrt", &V::sqrt)
        .def("rsqrt", &V::rsqrt)
        .def("square", &V::square)
        .def("sin", &V::sin)
        .def("cos", &V::cos)
        .def("tanh", &V::tanh)
        .def("sigmoid", &V::sigmoid)
        .def("erf", &V::erf)
        .def("gelu", &V::gelu)
        .def("softplus", &V::softplus)
        .def("silu", &V::silu)
        .def("floor", &V::floor)
        .def("hardtanh", &V::hardtanh)
        .def("relu", &V::relu)
        .def("__abs__", &V::abs);
}

template <ComputeElement T>
void bind_value_reductions(py::class_<Value<T>>& value) {
    using V = Value<T>;
    value
        .def(
            "sum",
            [](const V& self, const py::object& axis, bool keepdim) {
                return reduce<T>(
                    self,
                    axis,
                    keepdim,
                    [](const V& v) { return v.sum(); },
                    [](const V& v, const Axes& axes, bool keep) { return v.sum(axes, keep); });
            },
            py::arg("axis") = py::none(),
            py::arg("keepdim") = false)
        .def(
            "mean",
            [](const V& self, const py::object& axis, bool keepdim) {
                return reduce<T>(
                    self,
                    axis,
                    keepdim,
                    [](const V& v) { return v.mean(); },
                    [](const V& v, const Axes& axes, bool keep) { return v.mean(axes, keep); });
            },
            py::arg("axis") = py::none(),
            py::arg("keepdim") = false)
        .def(
            "max",
            [](const V& self, const py::object& axis, bool keepdim) {
                return reduce<T>(
                    self,
                    axis,
                    keepdim,
                    [](const V& v) { return v.max(); },
                    [](const V& v, const Axes& axes, bool keep) { return v.max(axes, keep); });
            },
            py::arg("axis") = py::none(),
            py::arg("keepdim") = false)
        .def(
            "logsumexp",
            [](const V& self, long long axis, bool keepdim) {
                return self.logsumexp(axis_of(axis, self.shape().rank()), keepdim);
            },
            py::arg("axis"),
            py::arg("keepdim") = false)
        .def(
            "softmax",
            [](const V& self, long long axis) {
                return self.softmax(axis_of(axis, self.shape().rank()));
            },
            py::arg("axis"))
        .def(
            "log_softmax",
            [](const V& self, long long axis) {
                return self.log_softmax(axis_of(axis, self.shape().rank()));
            },
            py::arg("axis"));
}

template <ComputeElement T>
void bind_value_layout(py::class_<Value<T>>& value) {
    using V = Value<T>;
    value
        .def("reshape",
             [](const V& self, const py::args& args) { return self.reshape(reshaped(self, args)); })
        .def(
            "flatten",
            [](const V& self, long long start) {
                return self.flatten(axis_of(start, self.shape().rank()));
            },
            py::arg("start_axis") = 0)
        .def("permute",
             [](const V& self, const py::args& args) {
                 const py::object order = args.size() == 1 && !py::isinstance<py::int_>(args[0])
                                              ? py::object(args[0])
                                              : py::object(args);
                 return self.permute(axes_list<T>(axes_of<T>(order, self.shape().rank())));
             })
        .def(
            "transpose",
            [](const V& self, long long first, long long second) {
                const std::size_t rank = self.shape().rank();
                return self.transpose(axis_of(first, rank), axis_of(second, rank));
            },
            py::arg("first") = -2,
            py::arg("second") = -1)
        .def_property_readonly("T", [](const V& self) { return self.transpose(); })
        .def("squeeze",
             [](const V& self, long long axis) {
                 return self.squeeze(axis_of(axis, self.shape().rank()));
             })
        .def("unsqueeze",
             [](const V& self, long long axis) {
                 return self.unsqueeze(axis_of(axis, self.shape().rank(), true));
             })
        .def("broadcast_to",
             [](const V& self, const std::vector<long long>& shape) {
                 return self.broadcast_to(shape_of(shape));
             })
        .def("broadcast_along",
             [](const V& self, long long axis, std::size_t extent) {
                 return self.broadcast_along(axis_of(axis, self.shape().rank(), true), extent);
             })
        .def("narrow",
             [](const V& self, long long axis, std::size_t start, std::size_t length) {
                 return self.narrow(axis_of(axis, self.shape().rank()), start, length);
             })
        .def(
            "slice",
            [](const V& self,
               long long axis,
               std::size_t start,
               std::size_t stop,
               std::size_t step) {
                return self.slice(axis_of(axis, self.shape().rank()), start, stop, step);
            },
            py::arg("axis"),
            py::arg("start"),
            py::arg("stop"),
            py::arg("step") = 1)
        .def(
            "pad",
            [](const V& self,
               long long axis,
               std::size_t before,
               std::size_t after,
               std::size_t interior) {
                return self.pad(axis_of(axis, self.shape().rank()), before, after, interior);
            },
            py::arg("axis"),
            py::arg("before"),
            py::arg("after"),
            py::arg("interior") = 0)
        .def(
            "unfold",
            [](const V& self,
               long long axis,
               std::size_t size,
               std::size_t step,
               std::size_t dilation) {
                return self.unfold(axis_of(axis, self.shape().rank()), size, step, dilation);
            },
            py::arg("axis"),
            py::arg("size"),
            py::arg("step"),
            py::arg("dilation") = 1)
        .def("one_hot", &V::one_hot, py::arg("depth"));
}

template <ComputeElement T>
void bind_value(py::module_& module) {
    using V = Value<T>;
    py::class_<V> value(module, class_name<T>("Value").c_str(), R"(
A value recorded on a tape. Each operator or method records one node (or a
few) and returns the new value; shapes are checked as it is recorded.)");
    value.def_property_readonly("shape", [](const V& self) { return extents_of(self.shape()); })
        .def_property_readonly("index", &V::index)
        .def_property_readonly("dtype", [](const V&) { return dtype_name<T>(); })
        .def("symbol", &V::symbol)
        .def("__hash__", [](const V& self) { return py::hash(py::cast(self.symbol())); })
        .def("__repr__", &value_repr<T>);
    bind_value_arithmetic<T>(value);
    bind_value_elementwise<T>(value);
    bind_value_reductions<T>(value);
    bind_value_layout<T>(value);
}

template <ComputeElement T>
void bind_tape(py::module_& module) {
    using Open = OpenTape<T>;
    py::class_<Open>(module, class_name<T>("Tape").c_str(), R"(
A tape on which values are recorded; into_network() seals it.)")
        .def(py::init<>())
        .def(
            "parameter",
            [](Open& tape, const py::object& initial) {
                return tape.open().parameter(to_tensor<T>(initial));
            },
            py::arg("initial"),
            "A trainable value; `initial` is its recorded payload.")
        .def(
            "input",
            [](Open& tape, const py::object& value) {
                return tape.open().input(to_tensor<T>(value));
            },
            py::arg("default"),
            "A value fed per run; `default` is its payload when no feed names it.")
        .def(
            "leaf",
            [](Open& tape, const py::object& value) {
                return tape.open().leaf(to_tensor<T>(value));
            },
            py::arg("constant"))
        .def(
            "indices",
            [](Open& tape, const py::object& value) {
                return tape.open().indices(to_tensor<T>(value));
            },
            py::arg("default"),
            "An input of integer indices (gather, one_hot, labels).")
        .def("value",
             [](Open& tape, const py::handle& symbol) {
                 return tape.open().value(symbol_of(symbol));
             })
        .def("payload",
             [](Open& tape, const py::handle& source) {
                 return to_numpy<T>(tape.open().payload(symbol_of(source)));
             })
        .def("describe", [](Open& tape) { return tape.open().describe(); })
        .def("__str__", [](Open& tape) { return tape.open().describe(); })
        .def("__len__", [](Open& tape) { return tape.open().nodes().size(); })
        .def("nodes",
             [](Open& tape) {
                 const auto nodes = tape.open().nodes();
                 return std::vector<Node>(nodes.begin(), nodes.end());
             })
        .def(
            "differentiate",
            [](Open& tape, const Value<T>& target, const py::iterable& wrt) {
                return tape.open().differentiate(target, symbols_of(wrt));
            },
            py::arg("target"),
            py::arg("wrt"),
            "Records d target / d each of `wrt` into the tape; returns the Adjoints.")
        .def(
            "vjp",
            [](Open& tape, const Value<T>& target, const Value<T>& seed, const py::iterable& wrt) {
                return tape.open().vjp(target, seed, symbols_of(wrt));
            },
            py::arg("target"),
            py::arg("seed"),
            py::arg("wrt"))
        .def("into_network", &Open::seal, "Seals the tape into an immutable network.")
        .def_property_readonly("sealed", &Open::sealed)
        .def("__repr__",
             [](Open& tape) {
                 return std::string("<topos.Tape ") + dtype_name<T>() + ", " +
                        (tape.sealed() ? std::string("sealed")
                                       : std::to_string(tape.open().nodes().size()) + " nodes") +
                        ">";
             })
        .def_property_readonly("dtype", [](const Open&) { return dtype_name<T>(); })
        .def("_repr_html_", [](Open& tape) { return notebook_html(show::card(tape.open())); });
}

template <ComputeElement T>
void bind_adjoints(py::module_& module) {
    using A = Adjoints<T>;
    py::class_<A>(module, class_name<T>("Adjoints").c_str(), R"(
The derivatives recorded by tape.differentiate: of(p) names d target / d p;
roots() is the target then each gradient, ready for network.entry.)")
        .def("of",
             [](const A& adjoints, const py::handle& value) {
                 return adjoints.of(symbol_of(value));
             })
        .def("roots", &A::roots)
        .def_property_readonly("target", &A::target)
        .def("__repr__",
             [](const A& adjoints) {
                 return std::string("<topos.Adjoints ") + dtype_name<T>() + ", " +
                        std::to_string(adjoints.gradients().size()) + " gradients of node " +
                        std::to_string(adjoints.target().index()) + ">";
             })
        .def("_repr_html_", [](const A& adjoints) { return notebook_html(show::card(adjoints)); });
}

template <ComputeElement T>
void bind_free_operations(py::module_& module) {
    using V = Value<T>;
    module.def("where", [](const V& mask, const V& a, const V& b) { return where(mask, a, b); })
        .def(
            "concat",
            [](const std::vector<V>& values, long long axis) {
                return concat(values, axis_of(axis, values.empty() ? 0 : values[0].shape().rank()));
            },
            py::arg("values"),
            py::arg("axis") = 0)
        .def(
            "stack",
            [](const std::vector<V>& values, long long axis) {
                return stack(values,
                             axis_of(axis, values.empty() ? 0 : values[0].shape().rank(), true));
            },
            py::arg("values"),
            py::arg("axis") = 0)
        .def("gather", [](const V& table, const V& indices) { return gather(table, indices); })
        .def("conv2d",
             &conv2d<T>,
             py::arg("image"),
             py::arg("filters"),
             py::arg("bias"),
             py::arg("stride") = 1,
             py::arg("padding") = 0,
             py::arg("dilation") = 1)
        .def("max_pool", &max_pool<T>, py::arg("input"), py::arg("size"), py::arg("stride"))
        .def("average_pool", &average_pool<T>, py::arg("input"), py::arg("size"), py::arg("stride"))
        .def(
            "cross_entropy",
            [](const V& logits, const V& labels, double label_smoothing) {
                return cross_entropy(
                    logits, labels, CrossEntropyOptions{.label_smoothing = label_smoothing});
            },
            py::arg("logits"),
            py::arg("labels"),
            py::arg("label_smoothing") = 0.0)
        .def("mse", [](const V& a, const V& b) { return mse(a, b); })
        .def("binary_cross_entropy_with_logits", [](const V& logits, const V& targets) {
            return binary_cross_entropy_with_logits(logits, targets);
        });
}

template <ComputeElement T>
void bind_element(py::module_& module) {
    bind_value<T>(module);
    bind_tape<T>(module);
    bind_adjoints<T>(module);
    bind_free_operations<T>(module);
}

}  // namespace

void bind_recording(py::module_& module) {
    py::class_<Node>(module, "Node", "One recorded node: its opcode, operands and shape.")
        .def_property_readonly("index", &Node::index)
        .def("symbol", &Node::symbol)
        .def_property_readonly("opcode",
                               [](const Node& node) {
                                   std::ostringstream text;
                                   text << node.opcode();
                                   return text.str();
                               })
        .def_property_readonly("operands",
                               [](const Node& node) {
                                   const auto operands = node.operands();
                                   return std::vector<std::uint32_t>(operands.begin(),
                                                                     operands.end());
                               })
        .def_property_readonly("shape", [](const Node& node) { return extents_of(node.shape()); })
        .def("__str__", [](const Node& node) {
            std::ostringstream text;
            text << node;
            return text.str();
        });
    bind_element<float>(module);
    bind_element<double>(module);
}

}  // namespace topos::python
