// Tally: a count per formula, precision and backend, its text, the names of
// precisions and fidelities, and TallyScope, which makes a tally the thread's
// innermost active one for the scope's lifetime.
#include "run/tally_scope.hpp"
#include <topos/run/tally.hpp>

#include <algorithm>
#include <ostream>
#include <sstream>
#include <utility>

namespace topos {

std::string_view name_of(Precision precision) {
    switch (precision) {
        case Precision::F32:
            return "f32";
        case Precision::F64:
            return "f64";
        case Precision::BF16:
            return "bf16";
    }
    return "?";
}

std::string_view name_of(Fidelity fidelity) {
    switch (fidelity) {
        case Fidelity::Exact:
            return "exact";
        case Fidelity::Reordered:
            return "reordered";
        case Fidelity::Approximate:
            return "approximate";
    }
    return "?";
}

std::size_t Tally::count(std::string_view formula, std::string_view backend) const {
    std::size_t total = 0;
    for (const Service& service : services_) {
        if (service.formula == formula && service.backend == backend) {
            total += service.count;
        }
    }
    return total;
}

void Tally::add(std::string_view formula,
                Precision precision,
                std::string_view backend,
                Fidelity fidelity) {
    const auto same = [&](const Service& s) {
        return s.formula == formula && s.precision == precision && s.backend == backend;
    };
    const auto found = std::find_if(services_.begin(), services_.end(), same);
    if (found != services_.end()) {
        ++found->count;
        return;
    }
    services_.push_back({std::string(formula), precision, std::string(backend), fidelity, 1});
}

std::string Tally::describe() const {
    std::ostringstream out;
    for (const Service& s : services_) {
        out << s.formula << ' ' << name_of(s.precision) << ": " << s.backend << " ("
            << name_of(s.fidelity) << ") x " << s.count << '\n';
    }
    return out.str();
}

std::ostream& operator<<(std::ostream& out, const Tally& tally) {
    return out << tally.describe();
}

namespace detail {
namespace {

thread_local Tally* innermost_tally = nullptr;

}  // namespace

TallyScope::TallyScope() : outer_(innermost_tally) {
    innermost_tally = &tally_;
}

TallyScope::~TallyScope() {
    innermost_tally = outer_;
}

Tally* active_tally() {
    return innermost_tally;
}

}  // namespace detail

}  // namespace topos
