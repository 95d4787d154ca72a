// The text of patterns: each PatternKind's name and Pattern::describe(), which
// names the kind, its root node, the nodes it covers and the formula that
// serves it.
#include <topos/pattern/pattern.hpp>

#include <ostream>

namespace topos {

std::string_view name_of(PatternKind kind) {
    return detail::pattern_names[static_cast<std::size_t>(kind)];
}

std::ostream& operator<<(std::ostream& out, PatternKind kind) {
    return out << name_of(kind);
}

std::string Pattern::describe() const {
    return std::string(name_of(kind_)) + " rooted at node " + std::to_string(root_.index()) +
           ", covering " + std::to_string(nodes_.size()) + " nodes, served as " +
           std::string(name_of(formula()));
}

std::ostream& operator<<(std::ostream& out, const Pattern& pattern) {
    return out << pattern.describe();
}

}  // namespace topos
