// Backends as data. A backend declares which formulas it serves, at which
// precision and with which fidelity; a plan assigns each step to the first
// backend that serves it under the entry's numerics (an Exact plan accepts
// only bit-identical servers) and to the reference kernels otherwise. Which
// backend actually served is run-time data: wrap a region in
// Backend::tallied and read the per-formula tally.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace topos {

enum class Precision : std::uint8_t {
    F32,
    F64
};

enum class Fidelity : std::uint8_t {
    Exact,      // the reference kernels' bits
    Reordered,  // sums in its own order, within the formula's documented tolerance
};

std::string_view name_of(Precision precision);
std::string_view name_of(Fidelity fidelity);

// A backend compiled into this build.
struct BackendInfo {
    std::string name;
    Fidelity fidelity;
    std::vector<std::string> formulas;  // opcode names or pattern formulas it may serve
};

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

namespace detail {

// Plans report to the innermost tally active on their thread.
class TallyScope {
public:
    TallyScope();
    ~TallyScope();
    TallyScope(const TallyScope&) = delete;
    TallyScope& operator=(const TallyScope&) = delete;

    Tally take() { return std::move(tally_); }

private:
    Tally tally_;
    Tally* outer_;
};

// The tally plans on this thread report to, or null.
Tally* active_tally();

}  // namespace detail

class Backend {
public:
    // The reference kernels first, then every optional backend compiled in.
    static std::vector<BackendInfo> available();

    // Runs `region` on this thread and returns who served each formula of
    // the plan runs inside it.
    template <class Region>
    static Tally tallied(Region&& region) {
        detail::TallyScope scope;
        std::forward<Region>(region)();
        return scope.take();
    }
};

}  // namespace topos
