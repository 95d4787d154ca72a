// A training loop's progress line: step, loss and examples per second. On a
// terminal the line is rewritten in place (carriage return); otherwise every
// `every`-th step and the last one print as plain lines, so a log or a golden
// file reads top to bottom.
#pragma once

#include <chrono>
#include <cstddef>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace gallery {

class Progress {
public:
    Progress(std::size_t steps, std::size_t every)
        : steps_(steps), every_(every), terminal_(isatty(STDOUT_FILENO) != 0) {}

    // Call after step `step` (0-based) has trained on `examples` examples.
    void update(std::size_t step, double loss, std::size_t examples) {
        examples_ += examples;
        const bool last = step + 1 == steps_;
        if (!terminal_ && step % every_ != 0 && !last) {
            return;
        }
        std::ostringstream line;
        line << "step " << std::setw(width()) << step + 1 << '/' << steps_ << "  loss "
             << std::setprecision(6) << loss << "  "
             << static_cast<long long>(examples_per_second()) << " examples/s";
        std::cout << (terminal_ ? "\r" : "") << line.str() << (terminal_ ? "   " : "\n")
                  << std::flush;
        if (terminal_ && last) {
            std::cout << '\n';
        }
    }

    double seconds() const {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    }

private:
    int width() const { return static_cast<int>(std::to_string(steps_).size()); }

    double examples_per_second() const {
        const double elapsed = seconds();
        return elapsed > 0 ? static_cast<double>(examples_) / elapsed : 0.0;
    }

    std::size_t steps_;
    std::size_t every_;
    bool terminal_;
    std::size_t examples_ = 0;
    std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

// "trained in 12.3 seconds": the one line of a gallery example that is not the same
// from run to run (the golden comparison masks it, with the examples/s field).
inline void report_time(double seconds) {
    std::ostringstream line;
    line << std::fixed << std::setprecision(1) << seconds;
    std::cout << "trained in " << line.str() << " seconds\n";
}

}  // namespace gallery
