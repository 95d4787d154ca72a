// _topos: the extension module under `import topos` (python/topos/ wraps it).
#include "module.hpp"

#include <topos/config.hpp>

PYBIND11_MODULE(_topos, module) {
    module.doc() = "topos's C++ core: tapes, networks, plans, models (see the topos package)";
    module.attr("__version__") = TOPOS_VERSION;
    topos::python::bind_errors(module);
    topos::python::bind_payloads(module);
    topos::python::bind_recording(module);
    topos::python::bind_running(module);
    topos::python::bind_models(module);
    topos::python::bind_training(module);
    topos::python::bind_presentation(module);
}
