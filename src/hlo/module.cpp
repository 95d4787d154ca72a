// The module's value table and the spellings its printers share.
#include "hlo/module.hpp"

namespace topos::detail {
namespace {

std::string joined(const std::vector<std::size_t>& values) {
    std::string text;
    for (std::size_t i = 0; i < values.size(); ++i) {
        text += (i == 0 ? "" : ", ") + std::to_string(values[i]);
    }
    return text;
}

}  // namespace

HloValue HloModule::add_value(HloType type, std::string name) {
    const HloValue value{static_cast<std::uint32_t>(types.size())};
    types.push_back(std::move(type));
    names.push_back(std::move(name));
    return value;
}

std::string HloModule::type_text(const HloType& type) const {
    std::string text = "tensor<";
    for (std::size_t extent : type.shape.extents()) {
        text += std::to_string(extent) + 'x';
    }
    switch (type.element) {
        case HloElement::Real:
            text += real_type;
            break;
        case HloElement::Stored:
            text += stored_type;
            break;
        case HloElement::Bool:
            text += "i1";
            break;
        case HloElement::Integer:
            text += "i64";
            break;
        case HloElement::F32:
            text += "f32";
            break;
        case HloElement::F64:
            text += "f64";
            break;
        case HloElement::BF16:
            text += "bf16";
            break;
    }
    return text + '>';
}

std::string bracketed(const std::vector<std::size_t>& values) {
    return '[' + joined(values) + ']';
}

std::string i64_array(const std::vector<std::size_t>& values) {
    return values.empty() ? "array<i64>" : "array<i64: " + joined(values) + '>';
}

}  // namespace topos::detail
