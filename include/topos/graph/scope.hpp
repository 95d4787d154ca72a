// Name scopes: every node recorded while a NameScope is open on the recording
// thread carries the scope's name, and scopes opened inside it a path of
// names, as jax.named_scope and PyTorch's module tree label a trace. The
// modules open one named for their kind around what express() records, so a
// picture of a model's graph groups each layer's nodes:
//
//   {
//       NameScope head("head");
//       logits = fc.express(features);  // recorded in "head", then in "Linear" within it
//   }
//
// A scope belongs to the thread that opened it and lasts as long as its
// NameScope (a block's lifetime, usually); closing one ends its own opening
// only, even before a scope opened inside it closes. A tape keeps
// one Scope per opening that recorded a node: opening "Linear" twice gives two
// scopes of the same name.
#pragma once

#include <cstdint>
#include <string>

namespace topos {

// One opening of a name scope as a tape recorded it.
struct Scope {
    std::string name;      // empty for the top level, scope 0
    std::uint32_t parent;  // the scope it was opened in; 0 for the top level itself

    // Memberwise equality.
    friend bool operator==(const Scope&, const Scope&) = default;
};

// A name scope open for the lifetime of this object, on the thread that made it.
class NameScope {
public:
    // Opens `name` inside the scopes open on this thread. Throws Error for an
    // empty name.
    explicit NameScope(std::string name);
    ~NameScope();
    NameScope(const NameScope&) = delete;
    NameScope& operator=(const NameScope&) = delete;
    NameScope(NameScope&&) = delete;
    NameScope& operator=(NameScope&&) = delete;

private:
    std::uint64_t serial_;  // this opening's number, unique in the process
};

}  // namespace topos
