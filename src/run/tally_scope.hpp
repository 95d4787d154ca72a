// The tally runs report to: the innermost TallyScope active on the thread.
#pragma once

#include <topos/core/tensor.hpp>
#include <topos/run/tally.hpp>

#include <concepts>
#include <string_view>

namespace topos::detail {

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

// The tally runs on this thread report to, or null.
Tally* active_tally();

template <Element T>
constexpr Precision precision_of() {
    if constexpr (std::same_as<T, float>) {
        return Precision::F32;
    } else if constexpr (std::same_as<T, double>) {
        return Precision::F64;
    } else {
        return Precision::BF16;
    }
}

// Who the reference kernels are in a tally.
inline constexpr std::string_view reference_name = "reference";

}  // namespace topos::detail
