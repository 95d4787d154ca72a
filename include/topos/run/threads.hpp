// Kept so that programs written against topos 0.1 keep compiling: the thread
// count is a property of the payload layer, declared in <topos/core/threads.hpp>.
#pragma once

#include <topos/core/threads.hpp>
