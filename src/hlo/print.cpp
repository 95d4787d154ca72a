// The two printers of an HloModule. The generic printer writes every operation
// as `"name"(operands) ({regions}) {attributes} : (types) -> result`; the pretty
// printer writes the custom syntax each operation's PrettySyntax names and falls
// back to the generic syntax (with pretty operations inside its regions).
#include "hlo/module.hpp"

#include <sstream>

namespace topos::detail {
namespace {

enum class Form : std::uint8_t {
    Pretty,
    Generic,
};

std::string indentation(std::size_t depth) {
    return std::string(2 * depth, ' ');
}

std::string operand_list(const HloModule& module, const std::vector<HloValue>& values) {
    std::string text;
    for (std::size_t i = 0; i < values.size(); ++i) {
        text += (i == 0 ? "" : ", ") + module.name_of(values[i]);
    }
    return text;
}

std::string type_list(const HloModule& module, const std::vector<HloValue>& values) {
    std::string text;
    for (std::size_t i = 0; i < values.size(); ++i) {
        text += (i == 0 ? "" : ", ") + module.type_text(values[i]);
    }
    return text;
}

// `(operand types) -> result type`, `-> (types)` for several results, `-> ()`
// for an operation without one.
std::string function_type(const HloModule& module, const HloOperation& op) {
    const std::string operands = '(' + type_list(module, op.operands) + ") -> ";
    if (op.results.size() == 1) {
        return operands + module.type_text(op.results[0]);
    }
    return operands + '(' + type_list(module, op.results) + ')';
}

// `%v3 = `, or `%v29:3 = ` for three results named `%v29#0`, `%v29#1`, `%v29#2`.
std::string result_prefix(const HloModule& module, const HloOperation& op) {
    if (op.results.empty()) {
        return "";
    }
    if (op.results.size() == 1) {
        return module.name_of(op.results[0]) + " = ";
    }
    const std::string first = module.name_of(op.results[0]);
    return first.substr(0, first.find('#')) + ':' + std::to_string(op.results.size()) + " = ";
}

void print_operation(std::ostream& out,
                     const HloModule& module,
                     const HloOperation& op,
                     std::size_t depth,
                     Form form);

void print_block(std::ostream& out,
                 const HloModule& module,
                 const HloBlock& block,
                 std::size_t depth,
                 Form form) {
    if (!block.arguments.empty()) {
        out << indentation(depth) << "^bb0(";
        for (std::size_t i = 0; i < block.arguments.size(); ++i) {
            out << (i == 0 ? "" : ", ") << module.name_of(block.arguments[i]) << ": "
                << module.type_text(block.arguments[i]);
        }
        out << "):\n";
    }
    for (const HloOperation& op : block.operations) {
        print_operation(out, module, op, depth + 1, form);
    }
}

void print_generic_operation(std::ostream& out,
                             const HloModule& module,
                             const HloOperation& op,
                             std::size_t depth,
                             Form inside) {
    out << indentation(depth) << result_prefix(module, op) << '"' << op.name << "\"("
        << operand_list(module, op.operands) << ')';
    if (!op.regions.empty()) {
        out << " (";
        for (std::size_t i = 0; i < op.regions.size(); ++i) {
            out << (i == 0 ? "{\n" : ", {\n");
            print_block(out, module, op.regions[i], depth, inside);
            out << indentation(depth) << '}';
        }
        out << ')';
    }
    if (!op.attributes.empty()) {
        out << " {";
        for (std::size_t i = 0; i < op.attributes.size(); ++i) {
            out << (i == 0 ? "" : ", ") << op.attributes[i].name << " = " << op.attributes[i].value;
        }
        out << '}';
    }
    out << " : " << function_type(module, op) << '\n';
}

void print_pretty_operation(std::ostream& out,
                            const HloModule& module,
                            const HloOperation& op,
                            std::size_t depth) {
    const PrettySyntax& syntax = op.pretty;
    out << indentation(depth) << result_prefix(module, op) << op.name;
    switch (syntax.kind) {
        case PrettySyntax::Kind::Generic:
            break;  // handled by the caller
        case PrettySyntax::Kind::ReduceApplies:
            out << '(' << module.name_of(op.operands[0])
                << " init: " << module.name_of(op.operands[1]) << ") " << syntax.after << " : "
                << function_type(module, op) << '\n';
            return;
        case PrettySyntax::Kind::ResultOnly:
            out << ' ' << syntax.before << " : " << module.type_text(op.results[0]) << '\n';
            return;
        case PrettySyntax::Kind::SameType:
        case PrettySyntax::Kind::Functional:
        case PrettySyntax::Kind::Select:
            break;
    }
    out << (syntax.before.empty() ? "" : " " + syntax.before) << ' '
        << operand_list(module, op.operands) << syntax.after << " : ";
    if (syntax.kind == PrettySyntax::Kind::SameType) {
        out << module.type_text(op.results.empty() ? op.operands[0] : op.results[0]);
    } else if (syntax.kind == PrettySyntax::Kind::Select) {
        out << module.type_text(op.operands[0]) << ", " << module.type_text(op.results[0]);
    } else {
        out << function_type(module, op);
    }
    out << '\n';
}

void print_operation(std::ostream& out,
                     const HloModule& module,
                     const HloOperation& op,
                     std::size_t depth,
                     Form form) {
    if (form == Form::Generic || op.pretty.kind == PrettySyntax::Kind::Generic) {
        print_generic_operation(out, module, op, depth, form);
    } else {
        print_pretty_operation(out, module, op, depth);
    }
}

std::string result_types(const HloModule& module) {
    return type_list(module, module.results);
}

}  // namespace

std::string print_pretty(const HloModule& module) {
    std::ostringstream out;
    out << "module @topos {\n  func.func @main(";
    for (std::size_t i = 0; i < module.main.arguments.size(); ++i) {
        const HloValue argument = module.main.arguments[i];
        out << (i == 0 ? "" : ", ") << module.name_of(argument) << ": "
            << module.type_text(argument);
    }
    out << ") -> (" << result_types(module) << ") {\n";
    for (const HloOperation& op : module.main.operations) {
        print_operation(out, module, op, 2, Form::Pretty);
    }
    out << "    return " << operand_list(module, module.results) << " : " << result_types(module)
        << "\n  }\n}\n";
    return out.str();
}

std::string print_generic(const HloModule& module) {
    std::ostringstream out;
    out << "\"builtin.module\"() ({\n  \"func.func\"() ({\n";
    print_block(out, module, module.main, 1, Form::Generic);
    out << "    \"func.return\"(" << operand_list(module, module.results) << ") : ("
        << result_types(module) << ") -> ()\n";
    out << "  }) {function_type = (" << type_list(module, module.main.arguments) << ") -> ("
        << result_types(module) << "), sym_name = \"main\"} : () -> ()\n";
    out << "}) {sym_name = \"topos\"} : () -> ()\n";
    return out.str();
}

}  // namespace topos::detail
