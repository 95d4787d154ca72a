// SwiGluMlp: the gate's SiLU times the up projection, through the down projection.
#include "graph/record.hpp"
#include <topos/graph/scope.hpp>
#include <topos/model/swiglu.hpp>

#include <sstream>

namespace topos {

template <Element T>
Value<T> SwiGluMlp<T>::express(const Value<T>& x) const {
    const detail::RecordScope scope(x);
    const NameScope named("SwiGluMlp");
    return down_.express(gate_.express(x).silu() * up_.express(x));
}

template <Element T>
std::string SwiGluMlp<T>::describe() const {
    const Shape& gate = gate_.weight().shape();
    std::ostringstream out;
    out << "SwiGluMlp(" << gate[0] << " -> " << gate[1] << " -> " << gate[0] << ")\n"
        << "  gate_proj " << gate_.describe() << '\n'
        << "  up_proj   " << up_.describe() << '\n'
        << "  down_proj " << down_.describe();
    return out.str();
}

template class SwiGluMlp<float>;
template class SwiGluMlp<double>;
template class SwiGluMlp<bf16>;

}  // namespace topos
