// Who served the steps of runs. The interpreter (Network::forward,
// Entry::interpret) serves every node it evaluates with the reference kernels;
// a plan assigns each step to the first backend that serves it under the
// entry's numerics (an Exact plan accepts only bit-identical servers) and to
// the reference kernels otherwise. Which one actually served is run-time data,
// counted per formula in a Tally (see Backend::tallied in
// <topos/backend/backend.hpp>).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace topos {

enum class Precision : std::uint8_t {
    F32,
    F64,
    BF16,
};

enum class Fidelity : std::uint8_t {
    Exact,        // the reference kernels' bits
    Reordered,    // sums in its own order, within the formula's documented tolerance
    Approximate,  // each element within the function's documented distance in ulps
};

std::string_view name_of(Precision precision);
std::string_view name_of(Fidelity fidelity);

// One line of a tally: a formula at a precision, who served it, how often.
struct Service {
    std::string formula;  // an opcode's name ("MatMul") or a pattern's formula ("WindowProduct")
    Precision precision;
    std::string backend;  // "reference", "openblas", ...
    Fidelity fidelity;
    std::size_t count;
};

class Tally {
public:
    std::span<const Service> services() const { return services_; }

    // How often `backend` served `formula` (at any precision).
    std::size_t count(std::string_view formula, std::string_view backend) const;

    // One line per service: `MatMul f32: reference (exact) x 3`.
    std::string describe() const;

    void add(std::string_view formula,
             Precision precision,
             std::string_view backend,
             Fidelity fidelity);

private:
    std::vector<Service> services_;
};

std::ostream& operator<<(std::ostream& out, const Tally& tally);

}  // namespace topos
