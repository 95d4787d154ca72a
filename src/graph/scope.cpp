// Name scopes: the stack of scopes open on each thread, and how a tape files
// the openings its nodes were recorded in. Each opening has a serial number,
// so two openings of one name stay two scopes, and a tape maps serials to its
// own scope records as its nodes first need them.
#include "graph/spec.hpp"
#include <topos/core/error.hpp>
#include <topos/graph/scope.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace topos {

namespace {

struct OpenScope {
    std::string name;
    std::uint64_t serial;
};

thread_local std::vector<OpenScope> open_scopes;

std::uint64_t next_serial() {
    static std::atomic<std::uint64_t> counter{0};
    return ++counter;
}

}  // namespace

namespace {

std::uint64_t checked_serial(const std::string& name) {
    if (name.empty()) {
        throw Error("NameScope: a scope needs a name (a module's kind, a block's role)");
    }
    return next_serial();
}

}  // namespace

NameScope::NameScope(std::string name) : serial_(checked_serial(name)) {
    open_scopes.push_back({std::move(name), serial_});
}

// Usually the innermost opening; found from the inside out when scopes close
// out of order.
NameScope::~NameScope() {
    for (auto opening = open_scopes.end(); opening != open_scopes.begin();) {
        --opening;
        if (opening->serial == serial_) {
            open_scopes.erase(opening);
            return;
        }
    }
}

namespace detail {

namespace {

// The scope of the `depth` innermost-last openings of this thread's stack.
std::uint32_t scope_of_openings(ScopeTable& table, std::size_t depth) {
    if (depth == 0) {
        return 0;
    }
    const OpenScope& opening = open_scopes[depth - 1];
    if (const auto found = table.opened.find(opening.serial); found != table.opened.end()) {
        return found->second;
    }
    const std::uint32_t parent = scope_of_openings(table, depth - 1);
    const auto scope = static_cast<std::uint32_t>(table.scopes.size());
    table.scopes.push_back({opening.name, parent});
    table.opened.emplace(opening.serial, scope);
    return scope;
}

}  // namespace

std::uint32_t ScopeTable::current() {
    return scope_of_openings(*this, open_scopes.size());
}

}  // namespace detail

}  // namespace topos
