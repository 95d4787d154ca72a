// The parts of the _topos extension module, each binding one layer of the
// library; module.cpp calls them in turn.
#pragma once

#include <pybind11/pybind11.h>

namespace topos::python {

namespace py = pybind11;

// Sets the C library allocator's thresholds for large blocks (allocator.cpp);
// true where it did.
bool settle_allocator();

void bind_errors(py::module_& module);
void bind_payloads(py::module_& module);
void bind_recording(py::module_& module);
void bind_running(py::module_& module);
void bind_models(py::module_& module);
void bind_training(py::module_& module);
void bind_data(py::module_& module);
void bind_presentation(py::module_& module);

}  // namespace topos::python
