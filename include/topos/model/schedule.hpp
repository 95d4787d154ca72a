// Learning-rate schedules: pure functions from a step number (0 for the first
// step) to a learning rate, passed to an optimizer's step:
//   adam.step(parameters, gradients, state, schedule(state.steps))
#pragma once

#include <cstdint>

namespace topos::optim {

// torch.optim.lr_scheduler.StepLR: base * factor^floor(step / period).
class StepDecay {
public:
    // Throws Error for a period of 0 or a negative base or factor.
    StepDecay(double base, std::uint64_t period, double factor);

    // The learning rate at `step` (0 for the first).
    double operator()(std::uint64_t step) const;

private:
    double base_;
    std::uint64_t period_;
    double factor_;
};

// Linear warm-up, then a half cosine down to `floor` (the shape of
// transformers' get_cosine_schedule_with_warmup, which has floor 0):
//   step < warmup:  peak * step / warmup
//   otherwise:      floor + (peak - floor) * (1 + cos(pi * progress)) / 2,
//                   progress = min(1, (step - warmup) / (total - warmup))
// so the rate is `peak` at step `warmup` and `floor` from step `total` on.
// The cosine is the project's correctly rounded one: the same rate everywhere.
class WarmupCosine {
public:
    // Throws Error unless warmup < total and 0 <= floor <= peak.
    WarmupCosine(double peak, std::uint64_t warmup, std::uint64_t total, double floor = 0);

    // The learning rate at `step` (0 for the first).
    double operator()(std::uint64_t step) const;

private:
    double peak_;
    std::uint64_t warmup_;
    std::uint64_t total_;
    double floor_;
};

}  // namespace topos::optim
