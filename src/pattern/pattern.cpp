#include <topos/pattern/pattern.hpp>

#include <ostream>

namespace topos {

std::string_view name_of(PatternKind kind) {
    switch (kind) {
        case PatternKind::WindowProduct:
            return "WindowProduct";
        case PatternKind::ReduceWindow:
            return "ReduceWindow";
        case PatternKind::BatchNormTraining:
            return "BatchNormTraining";
        case PatternKind::BatchNormInference:
            return "BatchNormInference";
        case PatternKind::Map:
            return "Map";
    }
    return "?";
}

std::string_view name_of(Formula formula) {
    switch (formula) {
        case Formula::WindowProduct:
            return "WindowProduct";
        case Formula::ReduceWindow:
            return "ReduceWindow";
        case Formula::BatchNormTraining:
            return "BatchNormTraining";
        case Formula::BatchNormInference:
            return "BatchNormInference";
        case Formula::Map:
            return "Map";
    }
    return "?";
}

std::ostream& operator<<(std::ostream& out, PatternKind kind) {
    return out << name_of(kind);
}

std::ostream& operator<<(std::ostream& out, Formula formula) {
    return out << name_of(formula);
}

std::string Pattern::describe() const {
    return std::string(name_of(kind_)) + " rooted at node " + std::to_string(root_.index()) +
           ", covering " + std::to_string(nodes_.size()) + " nodes, served as " +
           std::string(name_of(formula_));
}

std::ostream& operator<<(std::ostream& out, const Pattern& pattern) {
    return out << pattern.describe();
}

}  // namespace topos
