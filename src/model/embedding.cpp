// Embedding: express() as one Gather of the table's rows by the indices, and
// the module's one-line description.
#include <topos/graph/scope.hpp>
#include <topos/model/embedding.hpp>

#include <sstream>

namespace topos {

template <Element T>
Value<T> Embedding<T>::express(const Value<T>& indices) const {
    const NameScope named("Embedding");
    return gather(table_, indices);
}

template <Element T>
std::string Embedding<T>::describe() const {
    std::ostringstream out;
    out << "Embedding(" << table_.shape()[0] << " x " << table_.shape()[1] << "): table "
        << table_.shape() << " at node " << table_.index();
    return out.str();
}

template class Embedding<float>;
template class Embedding<double>;
template class Embedding<bf16>;

}  // namespace topos
