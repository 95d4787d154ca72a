// topos's errors as Python exceptions: topos.Error (a RuntimeError) and one
// class per C++ error, each also deriving from the built-in exception a
// Python reader expects (ShapeError is a ValueError, CheckpointError an
// OSError, ...). The C++ message passes unchanged.
#include "module.hpp"
#include <topos/core/error.hpp>
#include <topos/show/html.hpp>

#include <Python.h>
#include <string>

namespace topos::python {
namespace {

struct Exceptions {
    PyObject* error;
    PyObject* shape;
    PyObject* feed;
    PyObject* read;
    PyObject* symbol;
    PyObject* tape;
    PyObject* gradient;
    PyObject* index;
    PyObject* entry;
    PyObject* emit;
    PyObject* checkpoint;
    PyObject* csv;
    PyObject* show;
};

Exceptions exceptions{};

// A new exception class topos.<name> deriving from `bases`, added to `module`.
PyObject* define(py::module_& module, const char* name, const py::tuple& bases, const char* doc) {
    const std::string qualified = std::string("topos.") + name;
    PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases.ptr(), nullptr);
    if (type == nullptr) {
        throw py::error_already_set();
    }
    module.add_object(name, py::handle(type));  // the module keeps a reference too
    return type;
}

PyObject* define(py::module_& module, const char* name, PyObject* builtin, const char* doc) {
    return define(
        module, name, py::make_tuple(py::handle(exceptions.error), py::handle(builtin)), doc);
}

void translate(std::exception_ptr thrown) {
    try {
        std::rethrow_exception(thrown);
    } catch (const ShapeError& e) {
        PyErr_SetString(exceptions.shape, e.what());
    } catch (const FeedError& e) {
        PyErr_SetString(exceptions.feed, e.what());
    } catch (const ReadError& e) {
        PyErr_SetString(exceptions.read, e.what());
    } catch (const SymbolError& e) {
        PyErr_SetString(exceptions.symbol, e.what());
    } catch (const TapeError& e) {
        PyErr_SetString(exceptions.tape, e.what());
    } catch (const GradientError& e) {
        PyErr_SetString(exceptions.gradient, e.what());
    } catch (const IndexError& e) {
        PyErr_SetString(exceptions.index, e.what());
    } catch (const EntryError& e) {
        PyErr_SetString(exceptions.entry, e.what());
    } catch (const EmitError& e) {
        PyErr_SetString(exceptions.emit, e.what());
    } catch (const CheckpointError& e) {
        PyErr_SetString(exceptions.checkpoint, e.what());
    } catch (const CsvError& e) {
        PyErr_SetString(exceptions.csv, e.what());
    } catch (const show::ShowError& e) {
        PyErr_SetString(exceptions.show, e.what());
    } catch (const Error& e) {
        PyErr_SetString(exceptions.error, e.what());
    }
}

}  // namespace

void bind_errors(py::module_& module) {
    exceptions.error = define(module,
                              "Error",
                              py::make_tuple(py::handle(PyExc_RuntimeError)),
                              "Every error topos raises derives from this one.");
    exceptions.shape = define(module,
                              "ShapeError",
                              PyExc_ValueError,
                              "A record-time shape check failed; nothing was recorded.");
    exceptions.feed =
        define(module,
               "FeedError",
               PyExc_ValueError,
               "A feed has the wrong shape, or names something that is not an input.");
    exceptions.read = define(module,
                             "ReadError",
                             PyExc_LookupError,
                             "A value was read that the run's declaration does not make readable.");
    exceptions.symbol = define(module,
                               "SymbolError",
                               PyExc_LookupError,
                               "A symbol was used against a network it does not belong to.");
    exceptions.tape = define(module,
                             "TapeError",
                             PyExc_RuntimeError,
                             "A tape was used after it was sealed, or as its state forbids.");
    exceptions.gradient = define(module,
                                 "GradientError",
                                 PyExc_ValueError,
                                 "A derivative was asked of something that has none.");
    exceptions.index = define(module,
                              "IndexError",
                              PyExc_IndexError,
                              "An index is outside the range its operation allows.");
    exceptions.entry =
        define(module, "EntryError", PyExc_ValueError, "An entry's declaration is inconsistent.");
    exceptions.emit = define(
        module, "EmitError", PyExc_RuntimeError, "A plan could not be written as StableHLO text.");
    exceptions.checkpoint = define(module,
                                   "CheckpointError",
                                   PyExc_OSError,
                                   "A checkpoint is malformed or does not match the network.");
    exceptions.csv = define(
        module, "CsvError", PyExc_ValueError, "A CSV file is not a readable table of numbers.");
    exceptions.show = define(module,
                             "ShowError",
                             PyExc_RuntimeError,
                             "A picture or card could not be made (e.g. no Graphviz layout).");
    py::register_exception_translator(translate);
}

}  // namespace topos::python
