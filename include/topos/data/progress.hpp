// data::Progress: a training loop's progress line, as a library facility. On a
// terminal the line is rewritten in place (a carriage return before each), at
// most ten times a second, so drawing never slows a fast loop; the first and
// last steps are always drawn, and finish() draws the latest step first when
// a redraw skipped it. Written to a file or a pipe, every `every`-th step and
// the last print as plain lines, so a log reads top to bottom:
//   step  241/1200  loss 0.840359  4816 examples/s  96.3 steps/s  9s left
// A loop of 0 steps is one whose length is unknown: its line shows "step 241"
// with no total and no time left.
#pragma once

#include <chrono>
#include <cstddef>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace topos::data {

// Where a Progress writes and how often.
struct ProgressOptions {
    std::size_t every =
        0;  // plain lines every this many steps; 0: a tenth of them (100 when unknown)
    std::ostream* out = nullptr;     // std::cout when null
    std::optional<bool> in_place{};  // rewrite one line; unset: when `out` is a terminal
};

class Progress {
public:
    // The line of a loop of `steps` steps (0: unknown); its clock starts now.
    explicit Progress(std::size_t steps, ProgressOptions options = {});

    // After step `step` (0-based) has trained on `examples` examples.
    void update(std::size_t step, double loss, std::size_t examples = 0);

    // "1200 steps in 12.3 seconds" ("0.0342 seconds" for a short loop): the
    // last line of a loop.
    void finish();

    // Seconds since it was made.
    double seconds() const;

    // Every loss update was given, in order: the loop's loss curve.
    const std::vector<double>& losses() const { return losses_; }

    // The line update would print after `step`, without the timing fields when
    // `timings` is false.
    std::string line(std::size_t step, double loss, bool timings = true) const;

private:
    void draw(bool end_line);

    std::size_t steps_;
    std::size_t every_;
    std::ostream* out_;
    bool in_place_;
    std::size_t examples_ = 0;
    std::size_t done_ = 0;
    std::vector<double> losses_;
    std::chrono::steady_clock::time_point started_;
    std::chrono::steady_clock::time_point drawn_{};  // the last redraw in place
    std::size_t last_step_ = 0;
    std::size_t shown_ = 0;   // updates when the line was last drawn
    bool line_open_ = false;  // the line in place awaits its newline
};

// "9s", "1m05s", "2h03m": a duration as a progress line writes it.
std::string duration_text(double seconds);

}  // namespace topos::data
