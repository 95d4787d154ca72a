// topos::distributed: training across processes and machines on MPI. Built
// when CMake finds MPI (Debian: libopenmpi-dev, openmpi-bin); link
// topos::distributed, found with find_package(topos CONFIG REQUIRED COMPONENTS
// distributed).
#pragma once

#include <topos/distributed/communicator.hpp>
#include <topos/distributed/data_parallel.hpp>
