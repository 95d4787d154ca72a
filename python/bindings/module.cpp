// _topos: the extension module under `import topos` (python/topos/ wraps it).
#include "module.hpp"

#include <topos/config.hpp>
#include <topos/core/isa.hpp>

#include <string>

PYBIND11_MODULE(_topos, module) {
    module.doc() = "topos's C++ core: tapes, networks, plans, models (see the topos package)";
    module.attr("__version__") = TOPOS_VERSION;
    module.attr("_allocator_settled") = topos::python::settle_allocator();
    module.def(
        "isa",
        [] { return std::string(topos::name_of(topos::isa())); },
        "The instruction set the exact kernels run on here (TOPOS_MAX_ISA caps it).");
    topos::python::bind_errors(module);
    topos::python::bind_payloads(module);
    topos::python::bind_recording(module);
    topos::python::bind_running(module);
    topos::python::bind_models(module);
    topos::python::bind_training(module);
    topos::python::bind_data(module);
    topos::python::bind_presentation(module);
}
