// Whether a backend that asks to be timed (Server::timed) runs a node faster
// than the reference kernel on this machine. A library's speed depends on the
// processor, its own settings (OPENBLAS_CORETYPE picks an older kernel than the
// processor runs) and the shapes, so a Fast plan gives it a step only where it
// won a trial: each kernel runs once on operands of the node's shapes to warm,
// then five times more, the reference first, and the server wins when its
// fastest run is at least 10 % faster than the reference kernel's. An answer
// is kept for the process, by server, opcode, element type, operand shapes and
// the pool's thread count (a timed server serves opcodes whose cost their
// shapes decide), so every plan of a process makes the same choice and a shape
// is timed once.
#pragma once

#include "plan/backend_seam.hpp"

#include <span>

namespace topos::detail {

template <Element T>
bool wins_timed_trial(const Server& server, const Node& node, std::span<const Shape> operands);

}  // namespace topos::detail
