#include "arrays.hpp"

#include <topos/core/error.hpp>

#include <array>
#include <cstddef>
#include <vector>

namespace topos::python {
namespace {

// The element kinds an ndarray may have to convert exactly into T: floats no
// wider than T, booleans, and integers whose values T holds exactly.
template <ComputeElement T>
bool converts_exactly(const py::dtype& dtype) {
    const char kind = dtype.kind();
    if (kind == 'f') {
        return static_cast<std::size_t>(dtype.itemsize()) <= sizeof(T);
    }
    return kind == 'b' || kind == 'i' || kind == 'u';
}

// The tensor whose storage `array` views, when topos gave the array out and
// it still covers that whole tensor, row-major.
template <ComputeElement T>
const Tensor<T>* exported_tensor(const py::array& array) {
    const py::handle base = array.base();
    if (!base || !py::isinstance<Tensor<T>>(base)) {
        return nullptr;
    }
    const auto& tensor = base.cast<const Tensor<T>&>();
    const bool same_elements = array.data() == static_cast<const void*>(tensor.data().data()) &&
                               array.dtype().is(py::dtype::of<T>()) &&
                               static_cast<std::size_t>(array.size()) == tensor.elements() &&
                               static_cast<std::size_t>(array.ndim()) == tensor.shape().rank();
    if (!same_elements || !(array.flags() & py::array::c_style)) {
        return nullptr;
    }
    for (std::size_t axis = 0; axis < tensor.shape().rank(); ++axis) {
        if (static_cast<std::size_t>(array.shape(static_cast<py::ssize_t>(axis))) !=
            tensor.shape()[axis]) {
            return nullptr;
        }
    }
    return &tensor;
}

template <ComputeElement T>
Tensor<T> copied(const py::array_t<T, py::array::c_style>& array) {
    const auto rank = static_cast<std::size_t>(array.ndim());
    if (rank > Shape::max_rank) {
        throw ShapeError("an array of rank " + std::to_string(rank) +
                         " has more axes than a tensor holds (" + std::to_string(Shape::max_rank) +
                         ")");
    }
    std::array<std::size_t, Shape::max_rank> extents{};
    for (std::size_t axis = 0; axis < rank; ++axis) {
        extents[axis] = static_cast<std::size_t>(array.shape(static_cast<py::ssize_t>(axis)));
    }
    return Tensor<T>(Shape(std::span<const std::size_t>(extents.data(), rank)),
                     std::span<const T>(array.data(), static_cast<std::size_t>(array.size())));
}

// An ndarray of integers converted to T, refused where a value does not
// survive the conversion.
template <ComputeElement T>
py::array_t<T, py::array::c_style> exactly_converted(const py::array& array) {
    const py::dtype target = py::dtype::of<T>();
    py::array converted = array.attr("astype")(target);
    if (array.dtype().kind() != 'f' && array.dtype().kind() != 'b') {
        const bool survives =
            py::module_::import("numpy")
                .attr("array_equal")(converted.attr("astype")(array.dtype()), array)
                .template cast<bool>();
        if (!survives) {
            throw py::type_error(std::string("an array of ") +
                                 py::str(array.dtype()).cast<std::string>() +
                                 " holds integers that " + dtype_name<T>() +
                                 " does not represent exactly; convert it explicitly");
        }
    }
    return py::array_t<T, py::array::c_style>::ensure(converted);
}

}  // namespace

template <ComputeElement T>
py::array to_numpy(const Tensor<T>& tensor) {
    py::object owner = py::cast(tensor);
    const auto& held = owner.cast<const Tensor<T>&>();
    const Shape& shape = held.shape();
    std::vector<py::ssize_t> extents(shape.rank());
    std::vector<py::ssize_t> strides(shape.rank());
    py::ssize_t stride = sizeof(T);
    for (std::size_t axis = shape.rank(); axis-- > 0;) {
        extents[axis] = static_cast<py::ssize_t>(shape[axis]);
        strides[axis] = stride;
        stride *= static_cast<py::ssize_t>(shape[axis]);
    }
    py::array array(py::dtype::of<T>(), extents, strides, held.data().data(), owner);
    py::detail::array_proxy(array.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
    return array;
}

template <ComputeElement T>
Tensor<T> to_tensor(const py::handle& object) {
    if (py::isinstance<py::array>(object)) {  // first: the common case, and the cheapest test
        const auto array = py::reinterpret_borrow<py::array>(object);
        if (const Tensor<T>* tensor = exported_tensor<T>(array)) {
            return *tensor;
        }
        if (array.dtype().is(py::dtype::of<T>())) {
            return copied<T>(py::array_t<T, py::array::c_style>::ensure(array));
        }
        if (!converts_exactly<T>(array.dtype())) {
            throw py::type_error(std::string("an array of ") +
                                 py::str(array.dtype()).cast<std::string>() + " given where " +
                                 dtype_name<T>() +
                                 " is recorded: topos converts arrays only where no value "
                                 "changes; write array.astype(numpy." +
                                 dtype_name<T>() + ")");
        }
        return copied<T>(exactly_converted<T>(array));
    }
    if (py::isinstance<Tensor<T>>(object)) {
        return object.cast<Tensor<T>>();
    }
    // Python numbers and (nested) lists convert as torch.tensor converts them.
    auto array = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(object);
    if (!array) {
        throw py::type_error("expected an array, a number or a list of numbers, got " +
                             py::str(py::type::of(object)).cast<std::string>());
    }
    return copied<T>(array);
}

template py::array to_numpy(const Tensor<float>&);
template py::array to_numpy(const Tensor<double>&);
template Tensor<float> to_tensor(const py::handle&);
template Tensor<double> to_tensor(const py::handle&);

}  // namespace topos::python
