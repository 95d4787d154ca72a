// The gallery's training report: each example keeps its training loops' losses
// (data::Progress::losses()), prints them as a terminal chart, with
// `--report PATH` writes an HTML report of the run (the loss chart as SVG and
// whatever the example adds: cards, pictures), and with `--losses PATH` writes
// every step's loss as its bits, a line each: "label<TAB>step<TAB>bits", the
// bits of the double as 16 hex digits (what a Python twin's run is compared
// with).
#pragma once

#include <topos/show.hpp>
#include <topos/topos.hpp>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

namespace gallery {

// A loss curve of at most `points` points: the means of consecutive runs of
// steps, each at its run's middle step, so that a noisy curve of thousands of
// steps reads as its trend.
struct Curve {
    std::vector<double> steps;
    std::vector<double> losses;
};

inline Curve smoothed(const std::vector<double>& losses, std::size_t points = 100) {
    Curve curve;
    const std::size_t run = std::max<std::size_t>(1, (losses.size() + points - 1) / points);
    for (std::size_t start = 0; start < losses.size(); start += run) {
        const std::size_t end = std::min(losses.size(), start + run);
        double sum = 0;
        for (std::size_t step = start; step < end; ++step) {
            sum += losses[step];
        }
        curve.steps.push_back(static_cast<double>(start + end - 1) / 2.0 + 1.0);
        curve.losses.push_back(sum / static_cast<double>(end - start));
    }
    return curve;
}

class TrainingReport {
public:
    // Reads `--report PATH` and `--losses PATH` from the command line;
    // anything else is refused.
    TrainingReport(std::string title, int argc, char** argv) : report_(std::move(title)) {
        for (int i = 1; i < argc; ++i) {
            const std::string argument = argv[i];
            if (argument == "--report" && i + 1 < argc) {
                path_ = argv[++i];
            } else if (argument == "--losses" && i + 1 < argc) {
                losses_.open(argv[++i]);
                if (!losses_) {
                    throw topos::Error("cannot write " + std::string(argv[i]));
                }
            } else {
                throw topos::Error("usage: " + std::string(argv[0]) +
                                   " [--report PATH] [--losses PATH]; got " + argument);
            }
        }
        chart_.title("training loss").x_label("step").y_label("loss");
    }

    // One training loop's losses, step by step, under `label`.
    void losses(const std::string& label, const std::vector<double>& losses) {
        const Curve curve = smoothed(losses);
        positive_ = positive_ && std::all_of(curve.losses.begin(),
                                             curve.losses.end(),
                                             [](double loss) { return loss > 0; });
        chart_.line(label, curve.steps, curve.losses);
        for (std::size_t step = 0; losses_.is_open() && step < losses.size(); ++step) {
            char bits[17];
            std::snprintf(
                bits,
                sizeof bits,
                "%016llx",
                static_cast<unsigned long long>(std::bit_cast<std::uint64_t>(losses[step])));
            losses_ << label << '\t' << step + 1 << '\t' << bits << '\n';
        }
    }

    // An exhibit of the report beyond the loss chart.
    void add(std::string title, topos::show::Exhibit exhibit) {
        extras_.emplace_back(std::move(title), std::move(exhibit));
    }

    // Prints the loss chart and, when asked for, writes the report.
    void finish() {
        chart_.y_axis(positive_ ? topos::show::Axis::Log : topos::show::Axis::Linear);
        std::cout << '\n' << chart_.text(72, 14);
        if (path_.empty()) {
            return;
        }
        report_.add("Training loss", chart_);
        for (auto& [title, exhibit] : extras_) {
            report_.add(title, std::move(exhibit));
        }
        report_.write(path_);
    }

private:
    topos::show::Report report_;
    topos::show::Plot chart_;
    std::filesystem::path path_;
    std::vector<std::pair<std::string, topos::show::Exhibit>> extras_;
    std::ofstream losses_;
    bool positive_ = true;
};

}  // namespace gallery
