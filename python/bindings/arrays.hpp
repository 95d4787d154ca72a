// Tensors in and out of NumPy. Out: a read-only ndarray over the tensor's own
// storage (no copy), whose base keeps that storage alive. In: an ndarray
// that topos gave out is taken back without a copy; any other array, list
// or number is copied once into a new tensor, and only conversions that are
// exact happen implicitly (a float64 array fed to a float32 tape is refused
// rather than rounded).
#pragma once

#include <topos/core/tensor.hpp>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <string>

namespace topos::python {

namespace py = pybind11;

// "float32", "float64" or "bfloat16".
template <Element T>
constexpr const char* dtype_name() {
    if constexpr (std::is_same_v<T, float>) {
        return "float32";
    } else if constexpr (std::is_same_v<T, double>) {
        return "float64";
    } else {
        return "bfloat16";
    }
}

// A read-only ndarray over `tensor`'s elements; the array's base holds a copy
// of the tensor (which shares its storage), so the elements outlive the run
// or parameters they came from, and no kernel ever writes them in place.
template <ComputeElement T>
py::array to_numpy(const Tensor<T>& tensor);

// The tensor `object` denotes: a topos tensor, an ndarray topos gave out (no
// copy), or anything np.asarray takes (copied once). Refuses, with
// TypeError, an element type that does not convert exactly to T.
template <ComputeElement T>
Tensor<T> to_tensor(const py::handle& object);

}  // namespace topos::python
