// A seeded generator of programs for the playground language, valid and not:
// shape-aware programs that mostly record (sources of random shapes, extents
// 0 and large ones among them, then expressions that keep shapes compatible
// most of the time), those programs mutated byte by byte, soups of random
// tokens, and deep nesting around and far beyond the depth bound. The same
// seed gives the same programs on every platform (splitmix64, no standard
// distributions).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace topos::lang::test {

class Random {
public:
    explicit Random(std::uint64_t seed) : state_(seed) {}

    std::uint64_t next() {
        std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }

    // Uniform in [0, n); n > 0.
    std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }

    // True `percent` times in a hundred.
    bool chance(std::size_t percent) { return below(100) < percent; }

    template <class T>
    const T& pick(const std::vector<T>& items) {
        return items[below(items.size())];
    }

private:
    std::uint64_t state_;
};

using Extents = std::vector<std::uint64_t>;

inline std::string shape_text(const Extents& extents) {
    std::string text = "[";
    for (std::size_t i = 0; i < extents.size(); ++i) {
        text += (i == 0 ? "" : ", ") + std::to_string(extents[i]);
    }
    return text + "]";
}

// An expression and the shape it has when every operation in it is valid.
struct Generated {
    std::string text;
    Extents shape;
};

class ProgramGenerator {
public:
    explicit ProgramGenerator(std::uint64_t seed) : random_(seed) {}

    // The next program: shape-aware, mutated, a token soup or deeply nested.
    std::string next() {
        const std::size_t kind = random_.below(100);
        if (kind < 45) {
            return shaped();
        }
        if (kind < 70) {
            return mutated(shaped());
        }
        if (kind < 85) {
            return token_soup();
        }
        return deep();
    }

    // Sources, then expressions over them, then (mostly) a rank-0 loss.
    std::string shaped() {
        names_.clear();
        std::string program;
        const std::size_t sources = 1 + random_.below(4);
        for (std::size_t i = 0; i < sources; ++i) {
            program += source_line();
        }
        const std::size_t statements = random_.below(5);
        for (std::size_t i = 0; i < statements; ++i) {
            const Generated value = expression(1 + random_.below(4));
            program += define(value);
        }
        if (random_.chance(90)) {
            const Generated& last = names_.back();
            program +=
                "loss = " + (last.shape.empty() ? last.text : "sum(" + last.text + ")") + "\n";
        }
        if (random_.chance(10)) {
            program += "# a comment\n\n";
        }
        return program;
    }

    // `program` with a few bytes deleted, inserted, replaced or lines swapped.
    std::string mutated(std::string program) {
        static const std::string alphabet = "()[],=+-*/@#.e0123456789 \n\tabxyz_\x01\x7f\xff\xc3";
        const std::size_t mutations = 1 + random_.below(4);
        for (std::size_t i = 0; i < mutations && !program.empty(); ++i) {
            const std::size_t at = random_.below(program.size());
            switch (random_.below(5)) {
                case 0:
                    program.erase(at, 1 + random_.below(3));
                    break;
                case 1:
                    program.insert(at, 1, alphabet[random_.below(alphabet.size())]);
                    break;
                case 2:
                    program[at] = alphabet[random_.below(alphabet.size())];
                    break;
                case 3:
                    program.insert(
                        at, program.substr(random_.below(program.size()), random_.below(12)));
                    break;
                default:
                    program.resize(at);
            }
        }
        return program;
    }

    // Lines of random tokens, most of them starting `name =`.
    std::string token_soup() {
        static const std::vector<std::string> tokens{
            "a",         "b",          "x",         "loss",        "parameter",
            "input",     "leaf",       "tanh",      "exp",         "ln",
            "sqrt",      "sin",        "cos",       "relu",        "sigmoid",
            "transpose", "sum",        "softmax",   "log_softmax", "logsumexp",
            "sum_along", "mean_along", "broadcast", "reshape",     "foo",
            "0",         "1",          "2",         "2.5",         ".5",
            "1e3",       "1e",         "1.2.3",     "1e400",       "99999999999999999999",
            "-1",        "0x1",        "(",         ")",           "[",
            "]",         ",",          "=",         "+",           "-",
            "*",         "/",          "@",         "#",           "$",
            "\t",        "[2, 2]",     "[0]",       "[]",          "[3, 0, 2]",
            "[70000]"};
        std::string program;
        const std::size_t lines = 1 + random_.below(5);
        for (std::size_t line = 0; line < lines; ++line) {
            if (random_.chance(80)) {
                program += random_.pick(std::vector<std::string>{"a", "b", "x", "loss"}) + " = ";
            }
            const std::size_t count = random_.below(12);
            for (std::size_t i = 0; i < count; ++i) {
                program += random_.pick(tokens) + (random_.chance(70) ? " " : "");
            }
            program += "\n";
        }
        return program;
    }

    // One expression nested `depth` times in one of several ways, depths
    // around the bound and far beyond it.
    std::string deep() {
        static const std::vector<std::size_t> depths{1, 10, 62, 63, 64, 65, 66, 100, 1000, 20000};
        const std::size_t depth = random_.pick(depths);
        std::string nested = "x";
        switch (random_.below(7)) {
            case 0:
                nested = repeat("(", depth) + "x" + repeat(")", depth);
                break;
            case 1:
                nested = repeat("tanh(", depth) + "x" + repeat(")", depth);
                break;
            case 2:
                nested = repeat("- ", depth) + "x";
                break;
            case 3:
                nested = "x" + repeat(" + x", depth);
                break;
            case 4:
                nested = repeat("(x * ", depth) + "x" + repeat(")", depth);
                break;
            case 5:
                nested = repeat("(", depth) + "x";
                break;
            default:
                nested = "reshape(x, [" + repeat("1, ", depth) + "2])";
        }
        return "x = parameter [2]\ny = " + nested + "\nloss = sum(y)\n";
    }

private:
    static std::string repeat(const std::string& piece, std::size_t times) {
        std::string text;
        text.reserve(piece.size() * times);
        for (std::size_t i = 0; i < times; ++i) {
            text += piece;
        }
        return text;
    }

    std::uint64_t extent() {
        static const std::vector<std::uint64_t> large{300, 70000, 1ULL << 20, 1ULL << 40};
        if (random_.chance(3)) {
            return random_.pick(large);
        }
        return random_.chance(8) ? 0 : 1 + random_.below(4);
    }

    Extents random_shape() {
        const std::size_t rank = random_.chance(2) ? 9 : random_.below(4);
        Extents shape;
        for (std::size_t i = 0; i < rank; ++i) {
            shape.push_back(extent());
        }
        return shape;
    }

    std::string fresh_name() { return "v" + std::to_string(names_.size()); }

    std::string define(const Generated& value) {
        const std::string name =
            random_.chance(2) && !names_.empty() ? names_.front().text : fresh_name();
        names_.push_back({name, value.shape});
        return name + " = " + value.text + "\n";
    }

    std::string source_line() {
        static const std::vector<std::string> kinds{"parameter", "parameter", "input", "leaf"};
        const Extents shape = random_shape();
        const std::string name = fresh_name();
        names_.push_back({name, shape});
        return name + " = " + random_.pick(kinds) + " " + shape_text(shape) + "\n";
    }

    // A defined name, preferring one of `shape` when asked.
    Generated operand(const Extents* shape) {
        if (shape != nullptr && random_.chance(85)) {
            std::vector<const Generated*> matching;
            for (const Generated& name : names_) {
                if (name.shape == *shape) {
                    matching.push_back(&name);
                }
            }
            if (!matching.empty()) {
                return *matching[random_.below(matching.size())];
            }
            if (random_.chance(70)) {
                return {number(), {}};
            }
        }
        if (random_.chance(15)) {
            return {number(), {}};
        }
        if (random_.chance(2)) {
            return {"undefined_name", {}};
        }
        return random_.pick(names_);
    }

    std::string number() {
        static const std::vector<std::string> numbers{
            "2", "0.5", "1e-3", "3.25", "-1", "0", "1E2", ".5"};
        return random_.pick(numbers);
    }

    Generated expression(std::size_t depth) {
        if (depth == 0 || random_.chance(20)) {
            return operand(nullptr);
        }
        const Generated a = expression(depth - 1);
        switch (random_.below(9)) {
            case 0:
            case 1:
                return elementwise_binary(a, depth);
            case 2:
                return unary_function(a);
            case 3:
                return matrix_product(a);
            case 4:
                return reduction(a);
            case 5:
                return along_last_axis(a);
            case 6:
                return layout(a);
            case 7:
                return {"-" + wrap(a.text), a.shape};
            default:
                return {"(" + a.text + ")", a.shape};
        }
    }

    static std::string wrap(const std::string& text) { return "(" + text + ")"; }

    Generated elementwise_binary(const Generated& a, std::size_t depth) {
        static const std::vector<std::string> ops{" + ", " - ", " * ", " / "};
        const Generated b = random_.chance(30) ? expression(depth - 1) : operand(&a.shape);
        const Extents shape = b.shape.size() > a.shape.size() ? b.shape : a.shape;
        return {wrap(a.text) + random_.pick(ops) + wrap(b.text), shape};
    }

    Generated unary_function(const Generated& a) {
        static const std::vector<std::string> functions{
            "tanh", "exp", "ln", "sqrt", "sin", "cos", "relu", "sigmoid"};
        return {random_.pick(functions) + wrap(a.text), a.shape};
    }

    Generated matrix_product(const Generated& a) {
        if (a.shape.size() != 2 && random_.chance(85)) {
            return unary_function(a);
        }
        if (a.shape.size() != 2 || random_.chance(10)) {
            const Generated b = operand(nullptr);
            return {wrap(a.text) + " @ " + wrap(b.text), a.shape};
        }
        if (random_.chance(50)) {
            return {wrap(a.text) + " @ transpose" + wrap(a.text), {a.shape[0], a.shape[0]}};
        }
        return {"transpose" + wrap(a.text) + " @ " + wrap(a.text), {a.shape[1], a.shape[1]}};
    }

    Generated reduction(const Generated& a) {
        if (a.shape.empty() || random_.chance(30)) {
            return {"sum" + wrap(a.text), {}};
        }
        const bool out_of_range = random_.chance(5);
        const std::size_t axis = out_of_range ? a.shape.size() : random_.below(a.shape.size());
        Extents shape = a.shape;
        if (!out_of_range) {
            shape.erase(shape.begin() + static_cast<std::ptrdiff_t>(axis));
        }
        const bool negative = random_.chance(30);
        const std::string axis_text =
            negative ? "-" + std::to_string(a.shape.size() - axis) : std::to_string(axis);
        const std::string function = random_.chance(50) ? "sum_along(" : "mean_along(";
        return {function + a.text + ", " + axis_text + ")", shape};
    }

    Generated along_last_axis(const Generated& a) {
        static const std::vector<std::string> keep{"softmax", "log_softmax"};
        if (a.shape.empty() && random_.chance(85)) {
            return unary_function(a);
        }
        if (random_.chance(30)) {
            Extents shape = a.shape;
            if (!shape.empty()) {
                shape.pop_back();
            }
            return {"logsumexp" + wrap(a.text), shape};
        }
        return {random_.pick(keep) + wrap(a.text), a.shape};
    }

    Generated layout(const Generated& a) {
        if (a.shape.size() >= 2 && random_.chance(40)) {
            Extents shape = a.shape;
            std::swap(shape[shape.size() - 1], shape[shape.size() - 2]);
            return {"transpose" + wrap(a.text), shape};
        }
        if (random_.chance(50)) {
            std::uint64_t elements = 1;
            for (const std::uint64_t e : a.shape) {
                elements =
                    std::min<std::uint64_t>(elements * std::max<std::uint64_t>(e, 1), 1ULL << 50);
            }
            const std::uint64_t any_elements = a.shape.empty() ? 1 : elements;
            const bool has_zero = std::find(a.shape.begin(), a.shape.end(), 0) != a.shape.end();
            const Extents shape{has_zero ? 0 : any_elements};
            return {"reshape(" + a.text + ", " + shape_text(shape) + ")", shape};
        }
        Extents shape = a.shape;
        shape.insert(shape.begin(), extent());
        return {"broadcast(" + a.text + ", " + shape_text(shape) + ")", shape};
    }

    Random random_;
    std::vector<Generated> names_;
};

}  // namespace topos::lang::test
