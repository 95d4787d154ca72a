// MPI's lifetime (environment.hpp): MPI_Init_thread on first use with
// MPI_Finalize registered at exit, a terminate handler that reports an uncaught
// exception and calls MPI_Abort, and check(), which turns an MPI error code
// into a CommunicationError.
#include "distributed/environment.hpp"

#include <topos/distributed/communicator.hpp>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

namespace topos::distributed::detail {
namespace {

void finalise_at_exit() {
    int finalised = 0;
    MPI_Finalized(&finalised);
    if (finalised == 0) {
        MPI_Finalize();
    }
}

// An exception nobody caught on one rank: say so and end the whole job, so the
// other ranks do not wait in their next collective for ever.
[[noreturn]] void abort_the_job() {
    int rank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::string what = "an unknown exception";
    if (const std::exception_ptr current = std::current_exception()) {
        try {
            std::rethrow_exception(current);
        } catch (const std::exception& error) {
            what = error.what();
        } catch (...) {
        }
    }
    std::fprintf(stderr, "topos::distributed: rank %d stops the job: %s\n", rank, what.c_str());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    std::abort();
}

}  // namespace

void ensure_mpi() {
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (initialised != 0) {
        return;
    }
    int provided = 0;
    check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
    std::atexit(finalise_at_exit);
    std::set_terminate(abort_the_job);
}

void check(int code, const char* call) {
    if (code == MPI_SUCCESS) {
        return;
    }
    char reason[MPI_MAX_ERROR_STRING] = {};
    int length = 0;
    MPI_Error_string(code, reason, &length);
    throw CommunicationError(std::string(call) + " failed: " + std::string(reason, length));
}

}  // namespace topos::distributed::detail
