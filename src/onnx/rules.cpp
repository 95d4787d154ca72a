// The table of operator rules, assembled once from every family.
#include "onnx/rules.hpp"

namespace topos::onnx::detail {

const Rule* RuleTable::find(std::string_view operator_type) const {
    const auto found = rules_.find(operator_type);
    return found == rules_.end() ? nullptr : &found->second;
}

std::vector<std::string> RuleTable::operators() const {
    std::vector<std::string> names;
    for (const auto& [name, rule] : rules_) {
        names.push_back(name);
    }
    return names;
}

const RuleTable& rules() {
    static const RuleTable table = [] {
        RuleTable built;
        add_arithmetic_rules(built);
        add_logic_rules(built);
        add_activation_rules(built);
        add_contraction_rules(built);
        add_reduction_rules(built);
        add_convolution_rules(built);
        add_pooling_rules(built);
        add_normalization_rules(built);
        add_layout_rules(built);
        add_cutting_rules(built);
        add_resize_rules(built);
        add_loss_rules(built);
        add_indexing_rules(built);
        add_constant_rules(built);
        return built;
    }();
    return table;
}

}  // namespace topos::onnx::detail
