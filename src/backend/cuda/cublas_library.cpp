// Loads cuBLAS with dlopen at its first use and resolves the functions of
// CublasLibrary with dlsym (cublas_library.hpp says why it is not linked).
// The soname of the cuBLAS compiled against comes first, so the unversioned
// name, which may point to another major version, is only the fallback.
#include "backend/cuda/cublas_library.hpp"

#include <dlfcn.h>
#include <stdexcept>
#include <string>
#include <utility>

namespace topos::detail::cuda {
namespace {

std::string dl_reason() {
    const char* const reason = dlerror();
    return reason != nullptr ? reason : "no reason given";
}

struct Opened {
    void* handle;
    std::string name;
};

// The first of the candidate names that loads; throws with every reason.
Opened open_cublas() {
    const std::string major = std::to_string(CUBLAS_VER_MAJOR);
    std::string reasons;
    for (std::string name : {"libcublas.so." + major, std::string("libcublas.so")}) {
        void* const handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (handle != nullptr) {
            return {handle, std::move(name)};
        }
        reasons += (reasons.empty() ? "" : "; ") + name + ": " + dl_reason();
    }
    throw std::runtime_error(
        "CUDA backend: cannot load cuBLAS, which a MatMul on the device needs (tried " + reasons +
        "); install cuBLAS " + major +
        " (libcublas of the CUDA toolkit) or add its folder to LD_LIBRARY_PATH");
}

template <class Function>
void resolve(const Opened& library, const char* symbol, Function& function) {
    dlerror();  // clear an earlier error, so the one read below is dlsym's
    void* const address = dlsym(library.handle, symbol);
    if (address == nullptr) {
        throw std::runtime_error("CUDA backend: " + library.name + " has no " + symbol + ": " +
                                 dl_reason());
    }
    function = reinterpret_cast<Function>(address);
}

CublasLibrary load() {
    const Opened library = open_cublas();
    try {
        CublasLibrary functions{};
        resolve(library, "cublasCreate_v2", functions.create);
        resolve(library, "cublasDestroy_v2", functions.destroy);
        resolve(library, "cublasSetMathMode", functions.set_math_mode);
        resolve(library, "cublasGetStatusString", functions.status_string);
        resolve(library, "cublasSgemmStridedBatched", functions.sgemm_strided_batched);
        resolve(library, "cublasDgemmStridedBatched", functions.dgemm_strided_batched);
        return functions;
    } catch (...) {
        dlclose(library.handle);
        throw;
    }
}

}  // namespace

const CublasLibrary& cublas_library() {
    // A throwing initialiser leaves it uninitialised: the next call tries again.
    static const CublasLibrary library = load();
    return library;
}

}  // namespace topos::detail::cuda
