// Payloads: topos.Tensor (a read-only buffer NumPy views without a copy),
// Symbol, and the conversions handles.hpp declares.
#include "handles.hpp"
#include "module.hpp"
#include <topos/graph/value.hpp>
#include <topos/show/card.hpp>

#include <sstream>

namespace topos::python {

std::size_t axis_of(long long axis, std::size_t rank, bool extra) {
    const auto count = static_cast<long long>(rank + (extra ? 1 : 0));
    const long long counted = axis < 0 ? axis + count : axis;
    if (counted < 0 || counted >= count) {
        throw IndexError("axis " + std::to_string(axis) + " is out of range for a value of rank " +
                         std::to_string(rank));
    }
    return static_cast<std::size_t>(counted);
}

Shape shape_of(const std::vector<long long>& extents) {
    if (extents.size() > Shape::max_rank) {
        throw ShapeError("a shape of " + std::to_string(extents.size()) +
                         " axes has more than a tensor holds (" + std::to_string(Shape::max_rank) +
                         ")");
    }
    std::vector<std::size_t> sizes;
    for (const long long extent : extents) {
        if (extent < 0) {
            throw ShapeError("a shape's extents are not negative; got " + std::to_string(extent));
        }
        sizes.push_back(static_cast<std::size_t>(extent));
    }
    return Shape(std::span<const std::size_t>(sizes));
}

std::vector<Shape> shapes_of(const std::vector<std::vector<long long>>& shapes) {
    std::vector<Shape> converted;
    converted.reserve(shapes.size());
    for (const auto& shape : shapes) {
        converted.push_back(shape_of(shape));
    }
    return converted;
}

py::tuple extents_of(const Shape& shape) {
    py::tuple extents(shape.rank());
    for (std::size_t axis = 0; axis < shape.rank(); ++axis) {
        extents[axis] = shape[axis];
    }
    return extents;
}

Numerics numerics_of(const py::handle& numerics) {
    if (py::isinstance<py::str>(numerics)) {
        const auto name = numerics.cast<std::string>();
        if (name == "exact" || name == "Exact") {
            return Numerics::Exact;
        }
        if (name == "fast" || name == "Fast") {
            return Numerics::Fast;
        }
        throw py::value_error("numerics is \"exact\" or \"fast\", got \"" + name + "\"");
    }
    return numerics.cast<Numerics>();
}

Symbol symbol_of(const py::handle& object) {
    if (py::isinstance<Value<float>>(object)) {
        return object.cast<const Value<float>&>().symbol();
    }
    if (py::isinstance<Value<double>>(object)) {
        return object.cast<const Value<double>&>().symbol();
    }
    if (py::isinstance<Symbol>(object)) {
        return object.cast<Symbol>();
    }
    throw py::type_error("expected a topos Value or Symbol, got " +
                         py::str(py::type::of(object)).cast<std::string>());
}

std::vector<Symbol> symbols_of(const py::iterable& objects) {
    std::vector<Symbol> symbols;
    for (const py::handle object : objects) {
        symbols.push_back(symbol_of(object));
    }
    return symbols;
}

namespace {

template <ComputeElement T>
void bind_tensor(py::module_& module) {
    const std::string name = std::string("Tensor_") + dtype_name<T>();
    py::class_<Tensor<T>>(module, name.c_str(), py::buffer_protocol(), R"(
An immutable tensor of topos. NumPy reads it without a copy (numpy.asarray),
read-only; `str` prints it as the seeds do (shortest round-trip decimals).)")
        .def_buffer([](const Tensor<T>& tensor) {
            std::vector<py::ssize_t> extents;
            std::vector<py::ssize_t> strides(tensor.shape().rank());
            py::ssize_t stride = sizeof(T);
            for (std::size_t axis = 0; axis < tensor.shape().rank(); ++axis) {
                extents.push_back(static_cast<py::ssize_t>(tensor.shape()[axis]));
            }
            for (std::size_t axis = tensor.shape().rank(); axis-- > 0;) {
                strides[axis] = stride;
                stride *= extents[axis];
            }
            return py::buffer_info(const_cast<T*>(tensor.data().data()),  // read-only below
                                   sizeof(T),
                                   py::format_descriptor<T>::format(),
                                   static_cast<py::ssize_t>(extents.size()),
                                   extents,
                                   strides,
                                   /*readonly=*/true);
        })
        .def_property_readonly("shape",
                               [](const Tensor<T>& tensor) { return extents_of(tensor.shape()); })
        .def_property_readonly("dtype", [](const Tensor<T>&) { return dtype_name<T>(); })
        .def("numpy", &to_numpy<T>, "The elements as a read-only ndarray (no copy).")
        .def(
            "__array__",
            [](const Tensor<T>& tensor, const py::object& dtype) {
                py::array array = to_numpy<T>(tensor);
                return dtype.is_none() ? py::object(array) : array.attr("astype")(dtype);
            },
            py::arg("dtype") = py::none())
        .def("item", &Tensor<T>::item)
        .def("describe", [](const Tensor<T>& tensor) { return tensor.describe(); })
        .def("__str__", &Tensor<T>::str)
        .def("__repr__",
             [](const Tensor<T>& tensor) {
                 return "topos.Tensor(" + tensor.str() + ", " + dtype_name<T>() + ")";
             })
        .def("_repr_html_",
             [](const Tensor<T>& tensor) { return notebook_html(show::card(tensor)); })
        .def("bit_equal", &Tensor<T>::bit_equal);
}

}  // namespace

void bind_payloads(py::module_& module) {
    py::class_<Symbol>(module, "Symbol", R"(
A recorded value's name, detached from its tape: read against the sealed
network (run.of(symbol), parameters.of(symbol)).)")
        .def_property_readonly("index", &Symbol::index)
        .def("__eq__", [](const Symbol& a, const Symbol& b) { return a == b; })
        .def("__hash__",
             [](const Symbol& symbol) {
                 return py::hash(py::make_tuple(symbol.index(), symbol.lineage()));
             })
        .def("__repr__", [](const Symbol& symbol) {
            return "topos.Symbol(" + std::to_string(symbol.index()) + ")";
        });
    bind_tensor<float>(module);
    bind_tensor<double>(module);
    module.def(
        "tensor",
        [](const py::object& values, const std::string& dtype) -> py::object {
            if (dtype == "float32") {
                return py::cast(to_tensor<float>(values));
            }
            if (dtype == "float64") {
                return py::cast(to_tensor<double>(values));
            }
            throw py::value_error("dtype is \"float32\" or \"float64\", got \"" + dtype + "\"");
        },
        py::arg("values"),
        py::arg("dtype") = "float32",
        "A topos tensor of `values` (an array, a number or nested lists).");
}

}  // namespace topos::python
