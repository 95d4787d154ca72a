// TransformerBlock: the pre-norm residual block, x + attention(norm1(x)) and
// then + mlp(norm2(.)), its parameters in that order, and its description
// with the parts' lines indented.
#include "graph/record.hpp"
#include "model/indented.hpp"
#include <topos/graph/scope.hpp>
#include <topos/model/module.hpp>
#include <topos/model/transformer.hpp>

#include <sstream>

namespace topos {

template <Element T>
Value<T> TransformerBlock<T>::express(const Value<T>& x) const {
    const detail::RecordScope scope(x);
    const NameScope named("TransformerBlock");
    const Value<T> attended = x + attention_.express(norm1_.express(x));
    return attended + mlp_.express(norm2_.express(attended));
}

template <Element T>
std::vector<Value<T>> TransformerBlock<T>::parameters() const {
    return parameters_of<T>(norm1_, attention_, norm2_, mlp_);
}

template <Element T>
std::string TransformerBlock<T>::describe() const {
    std::ostringstream out;
    out << "TransformerBlock (pre-norm)\n"
        << "  " << norm1_.describe() << '\n'
        << "  " << detail::indented(attention_.describe()) << '\n'
        << "  " << norm2_.describe() << '\n'
        << "  " << detail::indented(mlp_.describe());
    return out.str();
}

template class TransformerBlock<float>;
template class TransformerBlock<double>;
template class TransformerBlock<bf16>;

}  // namespace topos
