// The Autocast open on each thread: one slot, each opening keeping the one it
// overrides.
#include <topos/graph/autocast.hpp>

namespace topos {
namespace {

thread_local std::optional<ElementType> open_autocast;

}  // namespace

Autocast::Autocast(ElementType products) : enclosing_(open_autocast) {
    open_autocast = products;
}

Autocast::~Autocast() {
    open_autocast = enclosing_;
}

std::optional<ElementType> Autocast::current() {
    return open_autocast;
}

}  // namespace topos
