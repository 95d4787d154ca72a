// named_parameters: the parameters of a model's parts, each prefixed with its
// part's name and a dot as PyTorch's state_dict names them; an unnamed part or
// a name given twice throws.
#include <topos/core/error.hpp>
#include <topos/model/named.hpp>

#include <set>

namespace topos {

std::vector<NamedParameter> named_parameters(const std::vector<Named>& parts) {
    std::vector<NamedParameter> all;
    std::set<std::string> seen;
    for (const Named& part : parts) {
        if (part.name().empty()) {
            throw Error(
                "every part of a model needs a name, as an attribute of a PyTorch module "
                "has one");
        }
        for (const NamedParameter& parameter : part.parameters()) {
            NamedParameter named = parameter;
            named.name = parameter.name.empty() ? part.name() : part.name() + '.' + parameter.name;
            if (!seen.insert(named.name).second) {
                throw Error("the parameter name " + named.name +
                            " is given twice; name each part of a model once");
            }
            all.push_back(std::move(named));
        }
    }
    return all;
}

std::vector<NamedParameter> named_parameters(std::initializer_list<Named> parts) {
    return named_parameters(std::vector<Named>(parts));
}

}  // namespace topos
