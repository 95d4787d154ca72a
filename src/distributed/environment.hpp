// MPI's lifetime inside topos, privately: initialised by the first
// Communicator, finalised at exit, and an MPI_Abort for an exception that
// would otherwise leave the other ranks waiting. MPI errors are thrown.
#pragma once

#include <mpi.h>

namespace topos::distributed::detail {

// Initialises MPI once (unless the program did), with MPI_THREAD_FUNNELED.
void ensure_mpi();

// Throws CommunicationError naming `call` and MPI's reason unless `code` is MPI_SUCCESS.
void check(int code, const char* call);

}  // namespace topos::distributed::detail
