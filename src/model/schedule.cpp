// The learning-rate schedules: StepDecay (the base rate times factor once per
// period) and WarmupCosine (a linear warmup to the peak, then a cosine decay
// to the floor by the project's own cos, so every build gives the same rates).
#include "core/exact_math.hpp"
#include <topos/core/error.hpp>
#include <topos/model/schedule.hpp>

#include <algorithm>
#include <cmath>
#include <numbers>

namespace topos::optim {

StepDecay::StepDecay(double base, std::uint64_t period, double factor)
    : base_(base), period_(period), factor_(factor) {
    if (period == 0 || !(base >= 0) || !(factor >= 0)) {
        throw Error("StepDecay needs a period of at least one step and a base and factor >= 0");
    }
}

double StepDecay::operator()(std::uint64_t step) const {
    double rate = base_;
    for (std::uint64_t decays = step / period_; decays > 0; --decays) {
        rate *= factor_;
    }
    return rate;
}

WarmupCosine::WarmupCosine(double peak, std::uint64_t warmup, std::uint64_t total, double floor)
    : peak_(peak), warmup_(warmup), total_(total), floor_(floor) {
    if (!(warmup < total) || !(floor >= 0 && floor <= peak)) {
        throw Error("WarmupCosine needs warmup < total steps and 0 <= floor <= peak; got warmup " +
                    std::to_string(warmup) + ", total " + std::to_string(total));
    }
}

double WarmupCosine::operator()(std::uint64_t step) const {
    if (step < warmup_) {
        return peak_ * static_cast<double>(step) / static_cast<double>(warmup_);
    }
    const double progress =
        std::min(1.0, static_cast<double>(step - warmup_) / static_cast<double>(total_ - warmup_));
    return floor_ + (peak_ - floor_) * (1 + exact::cos(std::numbers::pi * progress)) / 2;
}

}  // namespace topos::optim
