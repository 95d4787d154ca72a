// The operator rules: for each ONNX operator of the default domain, the
// attributes it handles and how it records a node (for float, double and
// bf16 tapes alike). Each family of operators adds its rules in a file of its
// own under operators/; a rule is written once as a generic lambda over the
// Context<T>:
//
//   table.add("Relu", {}, [](auto& context, const NodeDef& node) {
//       context.define(node, 0, context.real_value(node, 0).relu(),
//       context.type_of(node.inputs[0]));
//   });
#pragma once

#include "onnx/context.hpp"
#include "onnx/model_def.hpp"
#include <topos/core/bf16.hpp>

#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace topos::onnx::detail {

template <Element T>
using Recorder = void (*)(Context<T>&, const NodeDef&);

struct Rule {
    std::vector<std::string> attributes;  // the attributes it handles
    // The oldest opset whose form of the operator the rule reads: 6 for most,
    // 1 for those ONNX has never changed.
    std::int64_t oldest_opset = 6;
    Recorder<float> record_float = nullptr;
    Recorder<double> record_double = nullptr;
    Recorder<bf16> record_bf16 = nullptr;

    // The recorder for tapes of T.
    template <Element T>
    Recorder<T> recorder() const {
        if constexpr (std::is_same_v<T, float>) {
            return record_float;
        } else if constexpr (std::is_same_v<T, double>) {
            return record_double;
        } else {
            return record_bf16;
        }
    }
};

class RuleTable {
public:
    // Adds the rule for `operator_type`; `Generic` is a captureless generic
    // lambda taking (Context<T>&, const NodeDef&). It reads the operator as
    // opsets `oldest_opset` to 17 define it.
    template <class Generic>
    void add(std::string_view operator_type,
             std::initializer_list<std::string_view> attributes,
             Generic /*record*/,
             std::int64_t oldest_opset = 6) {
        Rule rule;
        rule.oldest_opset = oldest_opset;
        rule.attributes.assign(attributes.begin(), attributes.end());
        rule.record_float = &invoke<Generic, float>;
        rule.record_double = &invoke<Generic, double>;
        rule.record_bf16 = &invoke<Generic, bf16>;
        rules_.insert_or_assign(std::string(operator_type), std::move(rule));
    }

    // The rule for an operator of the default domain, or nullptr.
    const Rule* find(std::string_view operator_type) const;

    // The operators there are rules for, sorted.
    std::vector<std::string> operators() const;

private:
    template <class Generic, Element T>
    static void invoke(Context<T>& context, const NodeDef& node) {
        Generic{}(context, node);
    }

    std::map<std::string, Rule, std::less<>> rules_;
};

// Every rule, built once.
const RuleTable& rules();

// The families (operators/<family>.cpp).
void add_arithmetic_rules(RuleTable& table);
void add_logic_rules(RuleTable& table);
void add_activation_rules(RuleTable& table);
void add_contraction_rules(RuleTable& table);
void add_reduction_rules(RuleTable& table);
void add_convolution_rules(RuleTable& table);
void add_pooling_rules(RuleTable& table);
void add_normalization_rules(RuleTable& table);
void add_layout_rules(RuleTable& table);
void add_cutting_rules(RuleTable& table);
void add_resize_rules(RuleTable& table);
void add_loss_rules(RuleTable& table);
void add_indexing_rules(RuleTable& table);
void add_constant_rules(RuleTable& table);

}  // namespace topos::onnx::detail
