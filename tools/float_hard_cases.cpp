// The floats whose exact results lie nearest a midpoint between two floats:
// for each exact function, among all 2^32 float bit patterns, the COUNT
// arguments whose result (the double exact function of the widened float)
// has its 29 bits below a float's precision closest to 2^28, normal float
// results only. Rounding them to float needs nearly all of the exact result,
// so the float shortcut (src/kernels/float_shortcut.hpp) must leave them to
// the exact lanes. Prints the rows of tests/support/float_hard_cases.hpp, which
// CTest runs through the lanes. Not run by CTest (a minute or two).
//
// usage: topos_float_hard_cases [COUNT [FUNCTION...]]
#include "float_sweep.hpp"
#include "kernels/float_midpoint.hpp"
#include "kernels/transcendental.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

using sweep::block;
using sweep::patterns;
using topos::detail::ExactFunction;
using topos::detail::float_midpoint::units_from_midpoint;

// (distance from the nearest midpoint in units of the result's last place,
// float bit pattern)
using Case = std::pair<std::uint64_t, std::uint32_t>;

// A subnormal float result's midpoints lie halfway between multiples of
// 2^-149, whatever the double's exponent; for 2^-150 <= |y| < 2^-126.
std::uint64_t distance_from_subnormal_midpoint(double y) {
    const double scaled = std::fabs(y) * 0x1p149;  // exact, in [0.5, 2^23)
    const double midpoint = std::floor(scaled) + 0.5;
    const double unit = std::nextafter(scaled, 0x1p30) - scaled;
    return static_cast<std::uint64_t>(std::fabs(scaled - midpoint) / unit);  // below 2^53
}

// The `count` nearest cases offered, kept sorted; offers beyond them are
// buffered and merged in batches.
class NearestCases {
public:
    explicit NearestCases(std::size_t count) : count_(count) {}

    void offer(std::uint64_t distance, std::uint32_t pattern) {
        if (kept_.size() < count_ || distance <= kept_.back().first) {
            offered_.emplace_back(distance, pattern);
            if (offered_.size() >= count_) {
                merge();
            }
        }
    }

    void take(NearestCases& other) {
        other.merge();
        offered_.insert(offered_.end(), other.kept_.begin(), other.kept_.end());
        merge();
    }

    const std::vector<Case>& kept() {
        merge();
        return kept_;
    }

private:
    void merge() {
        kept_.insert(kept_.end(), offered_.begin(), offered_.end());
        offered_.clear();
        std::sort(kept_.begin(), kept_.end());
        kept_.resize(std::min(kept_.size(), count_));
    }

    std::size_t count_;
    std::vector<Case> kept_;
    std::vector<Case> offered_;
};

struct HardCases {
    NearestCases normal;
    NearestCases subnormal;
};

void search_share(ExactFunction f, unsigned share, unsigned shares, HardCases& found) {
    std::vector<float> x(block);
    std::vector<double> wide(block);
    std::vector<double> y(block);
    for (std::uint64_t first = share * block; first < patterns; first += shares * block) {
        const std::size_t n = sweep::fill_patterns(first, 1, x);
        std::copy_n(x.begin(), n, wide.begin());
        topos::detail::exact_map(f, wide.data(), y.data(), n);
        for (std::size_t i = 0; i < n; ++i) {
            const double magnitude = std::fabs(y[i]);
            const auto pattern = static_cast<std::uint32_t>(first + i);
            if (magnitude >= 0x1p-126 && magnitude < 0x1p128) {
                found.normal.offer(units_from_midpoint(y[i]), pattern);
            } else if (magnitude >= 0x1p-150 && magnitude < 0x1p-126) {
                // (A float itself lies at least 2^29 units from the midpoints.)
                const std::uint64_t distance = distance_from_subnormal_midpoint(y[i]);
                if (distance < std::uint64_t{1} << 24) {
                    found.subnormal.offer(distance, pattern);
                }
            }
        }
    }
}

void print_row(const char* array, const std::string& name, const std::vector<Case>& cases) {
    if (cases.empty()) {
        return;
    }
    std::printf("    // %s: distances from the midpoint:", array);
    for (const Case& c : cases) {
        std::printf(" %llu", static_cast<unsigned long long>(c.first));
    }
    std::printf("\n    {ExactFunction::%s, {", name.c_str());
    for (std::size_t i = 0; i < cases.size(); ++i) {
        std::printf("%s0x%08xu", i == 0 ? "" : ", ", cases[i].second);
    }
    std::printf("}},\n");
}

}  // namespace

int main(int argc, char** argv) {
    const std::size_t count =
        argc > 1 ? std::max<std::size_t>(1, std::strtoull(argv[1], nullptr, 10)) : 8;
    const std::vector<ExactFunction> functions = sweep::chosen_functions(argc, argv);
    if (functions.empty()) {
        std::fprintf(stderr, "no such function; the functions are%s\n", sweep::all_names().c_str());
        return 2;
    }
    const unsigned shares = std::max(1U, std::thread::hardware_concurrency());
    for (const ExactFunction f : functions) {
        HardCases nearest{NearestCases(count), NearestCases(count)};
        std::mutex guard;
        std::vector<std::thread> threads;
        for (unsigned share = 0; share < shares; ++share) {
            threads.emplace_back([&, share] {
                HardCases found{NearestCases(count), NearestCases(count)};
                search_share(f, share, shares, found);
                const std::scoped_lock lock(guard);
                nearest.normal.take(found.normal);
                nearest.subnormal.take(found.subnormal);
            });
        }
        for (std::thread& thread : threads) {
            thread.join();
        }
        std::string name(topos::detail::name_of(f));
        name[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])));
        print_row("normal results", name, nearest.normal.kept());
        print_row("subnormal results", name, nearest.subnormal.kept());
        std::fflush(stdout);
    }
    return 0;
}
