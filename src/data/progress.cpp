// data::Progress: the step, loss, throughput and time-left line, rewritten in
// place on a terminal at most ten times a second and printed as plain lines
// otherwise, and duration_text's "1h05m", "3m07s" or "9s".
#include <topos/data/progress.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <unistd.h>

namespace topos::data {
namespace {

bool is_terminal(const std::ostream* out) {
    return out == &std::cout && isatty(STDOUT_FILENO) != 0;
}

std::string fixed(double value, int digits) {
    std::ostringstream text;
    text << std::fixed << std::setprecision(digits) << value;
    return text.str();
}

// A run's length with three significant digits under ten seconds ("0.0342",
// "3.50"), one decimal above, and at most six decimals.
std::string seconds_text(double seconds) {
    if (seconds >= 10) {
        return fixed(seconds, 1);
    }
    const int magnitude = seconds > 0 ? static_cast<int>(std::floor(std::log10(seconds))) : 0;
    return fixed(seconds, std::clamp(2 - magnitude, 1, 6));
}

// A log's lines when the number of steps is unknown.
constexpr std::size_t unknown_total_every = 100;

// The least time between two redraws of the line in place: ten a second.
constexpr std::chrono::milliseconds redraw_interval{100};

}  // namespace

std::string duration_text(double seconds) {
    const auto whole = static_cast<long long>(std::llround(std::max(seconds, 0.0)));
    std::ostringstream text;
    if (whole >= 3600) {
        text << whole / 3600 << 'h' << std::setw(2) << std::setfill('0') << whole % 3600 / 60
             << 'm';
    } else if (whole >= 60) {
        text << whole / 60 << 'm' << std::setw(2) << std::setfill('0') << whole % 60 << 's';
    } else {
        text << whole << 's';
    }
    return text.str();
}

Progress::Progress(std::size_t steps, ProgressOptions options)
    : steps_(steps),
      every_(options.every != 0 ? options.every
             : steps == 0       ? unknown_total_every
                                : std::max<std::size_t>(steps / 10, 1)),
      out_(options.out != nullptr ? options.out : &std::cout),
      in_place_(options.in_place.value_or(is_terminal(out_))),
      started_(std::chrono::steady_clock::now()) {}

double Progress::seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

std::string Progress::line(std::size_t step, double loss, bool timings) const {
    std::ostringstream text;
    text << "step ";
    if (steps_ > 0) {
        text << std::setw(static_cast<int>(std::to_string(steps_).size())) << step + 1 << '/'
             << steps_;
    } else {
        text << step + 1;
    }
    text << "  loss " << std::setprecision(6) << loss;
    if (!timings) {
        return text.str();
    }
    const double elapsed = seconds();
    const double rate = elapsed > 0 ? static_cast<double>(done_) / elapsed : 0.0;
    if (examples_ > 0) {
        text << "  "
             << static_cast<long long>(elapsed > 0 ? static_cast<double>(examples_) / elapsed : 0)
             << " examples/s";
    }
    text << "  " << fixed(rate, 1) << " steps/s";
    if (rate > 0 && step + 1 < steps_) {
        text << "  " << duration_text(static_cast<double>(steps_ - step - 1) / rate) << " left";
    }
    return text.str();
}

void Progress::update(std::size_t step, double loss, std::size_t examples) {
    examples_ += examples;
    ++done_;
    losses_.push_back(loss);
    last_step_ = step;
    const bool last = step + 1 == steps_;
    if (!in_place_) {
        if (step % every_ == 0 || last) {
            *out_ << line(step, loss) << '\n' << std::flush;
        }
        return;
    }
    const auto now = std::chrono::steady_clock::now();
    if (done_ > 1 && !last && now - drawn_ < redraw_interval) {
        return;
    }
    draw(last);
    drawn_ = now;
}

void Progress::draw(bool end_line) {
    *out_ << '\r' << line(last_step_, losses_.back()) << "\x1b[K" << (end_line ? "\n" : "")
          << std::flush;
    line_open_ = !end_line;
    shown_ = done_;
}

void Progress::finish() {
    if (in_place_ && done_ > 0 && shown_ != done_) {
        draw(true);
    } else if (line_open_) {
        *out_ << '\n';
        line_open_ = false;
    }
    *out_ << done_ << (done_ == 1 ? " step in " : " steps in ") << seconds_text(seconds())
          << " seconds\n"
          << std::flush;
}

}  // namespace topos::data
