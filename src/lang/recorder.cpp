// The recorder's members: each statement's sources, literals, names, operators
// and calls recorded on the tape, library errors turned into ProgramErrors at
// the offending position with the operands' shapes, the playground's limits on
// nodes, elements and work checked after every statement, and a suggestion of
// a defined name within two edits of an undefined one.
#include "recorder.hpp"

#include <topos/core/error.hpp>
#include <topos/graph/node.hpp>
#include <topos/model/init.hpp>

#include <algorithm>
#include <span>
#include <utility>

namespace topos::lang::detail {

namespace {

std::string shape_text(const Value<float>& value) {
    return value.shape().str();
}

std::string binary_failure(const std::string& op, const Value<float>& a, const Value<float>& b) {
    const std::string left = shape_text(a);
    const std::string right = shape_text(b);
    if (op == "+") {
        return "cannot add " + left + " and " + right;
    }
    if (op == "-") {
        return "cannot subtract " + right + " from " + left;
    }
    if (op == "*") {
        return "cannot multiply " + left + " and " + right + " elementwise";
    }
    if (op == "/") {
        return "cannot divide " + left + " by " + right;
    }
    return "cannot matrix-multiply " + left + " @ " + right;
}

// Levenshtein distance, for suggesting a defined name close to a mistyped one.
std::size_t distance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> previous(b.size() + 1);
    std::vector<std::size_t> current(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) {
        previous[j] = j;
    }
    for (std::size_t i = 1; i <= a.size(); ++i) {
        current[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t substitute = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
            current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitute});
        }
        std::swap(previous, current);
    }
    return previous[b.size()];
}

// The product of the nonzero extents: what a kernel may allocate or loop over
// even for a value with no elements (an extent of 0 beside an extent of 2^40).
std::size_t extent_product(const Shape& shape) {
    std::size_t product = 1;
    for (const std::size_t extent : shape.extents()) {
        product *= std::max<std::size_t>(extent, 1);
    }
    return product;
}

// Elements a node reads and writes; a node whose row declares a depth (a
// matrix product) counts its multiply-adds.
// 64-bit arithmetic, so the same bound holds where std::size_t has 32 bits.
std::uint64_t work_of(const Node& node, std::span<const Node> nodes) {
    constexpr std::uint64_t saturated = std::uint64_t{1} << 40;
    const std::uint64_t written = extent_product(node.shape());
    std::uint64_t work = written;
    if (const std::size_t depth = depth_of(node, nodes); depth != 0) {
        const std::uint64_t inner = depth;
        work = written > saturated / inner ? saturated : written * inner;
    }
    for (const std::uint32_t operand : node.operands()) {
        work += extent_product(nodes[operand].shape());
    }
    return work;
}

std::string axes_of_rank(long long rank) {
    const std::string r = std::to_string(rank);
    if (rank == 0) {
        return "a rank-0 value has no axes";
    }
    if (rank == 1) {
        return "a rank-1 value has one axis, 0 (or -1)";
    }
    return "a rank-" + r + " value has axes 0 to " + std::to_string(rank - 1) + " (or -" + r +
           " to -1, counting from the end)";
}

}  // namespace

template <class Record>
Value<float> Recorder::guarded(Position at, const std::string& what, Record&& record) {
    std::optional<Value<float>> result;
    try {
        result.emplace(std::forward<Record>(record)());
    } catch (const ShapeError& error) {
        fail(at, what + ": " + error.what());
    } catch (const ProgramError&) {
        throw;
    } catch (const Error& error) {
        fail(at, what + ": " + error.what());
    }
    account(at);
    return *result;
}

void Recorder::account(Position at) {
    const std::span<const Node> nodes = tape_.nodes();
    if (nodes.size() > limits_.max_nodes) {
        fail(at,
             "the program records more than " + std::to_string(limits_.max_nodes) +
                 " nodes; the playground allows no more");
    }
    for (std::size_t index = accounted_nodes_; index < nodes.size(); ++index) {
        const Node& node = nodes[index];
        check_elements(node.shape(), at);
        work_ += work_of(node, nodes);
        if (work_ > limits_.max_work) {
            fail(at,
                 "the program would read and write more than " + std::to_string(limits_.max_work) +
                     " elements in one run (matrix products count their multiply-adds); "
                     "make its shapes smaller");
        }
    }
    accounted_nodes_ = nodes.size();
}

void Recorder::check_elements(const Shape& shape, Position at) const {
    const std::size_t elements = shape.elements();
    if (elements > limits_.max_elements) {
        fail(at,
             "a value of shape " + shape.str() + " would hold " + std::to_string(elements) +
                 " elements; the playground allows at most " +
                 std::to_string(limits_.max_elements) + " per value");
    }
    if (extent_product(shape) > limits_.max_elements) {
        fail(at,
             "the extents of a value of shape " + shape.str() + " multiply to more than " +
                 std::to_string(limits_.max_elements) +
                 " when its zeros are left out; the playground allows no more, even for a "
                 "value with no elements");
    }
}

Shape Recorder::shape_of(const std::vector<std::size_t>& extents, Position at) const {
    try {
        return Shape(std::span<const std::size_t>(extents));
    } catch (const ShapeError& error) {
        fail(at, std::string("this shape is not allowed: ") + error.what());
    }
}

void Recorder::record(const StatementSyntax& statement) {
    if (statements_.size() >= limits_.max_statements) {
        fail(statement.at,
             "the program holds more than " + std::to_string(limits_.max_statements) +
                 " statements (`b = a` counted too); the playground allows no more");
    }
    if (const auto earlier = by_name_.find(statement.name); earlier != by_name_.end()) {
        fail(statement.at,
             "`" + statement.name + "` is already defined on line " +
                 std::to_string(statements_[earlier->second].line) +
                 "; each name is defined once, so choose another name");
    }
    defining_ = statement.name;
    const Value<float> value =
        statement.source ? source(*statement.source) : evaluate(*statement.expression);
    const StatementKind kind =
        statement.source ? statement.source->kind : StatementKind::Expression;
    by_name_.emplace(statement.name, statements_.size());
    statements_.push_back({statement.name,
                           statement.at.line,
                           statement.at.column,
                           kind,
                           value.symbol(),
                           value.shape()});
    values_.push_back(value);
}

Program Recorder::finish() && {
    if (statements_.empty()) {
        fail({1, 1}, "the program is empty; write at least one statement `name = expression`");
    }
    return {std::move(tape_).into_network(), std::move(statements_)};
}

Value<float> Recorder::source(const SourceSyntax& source) {
    const Shape shape = shape_of(source.extents, source.extents_at);
    check_elements(shape, source.extents_at);
    const Tensor<float> payload = init::uniform(seed_of_line(source.at.line), -1.0, 1.0)(shape);
    return guarded(source.at, "cannot declare this source", [&] {
        switch (source.kind) {
            case StatementKind::Parameter:
                return tape_.parameter(payload);
            case StatementKind::Input:
                return tape_.input(payload);
            default:
                return tape_.leaf(payload);
        }
    });
}

// Only the recursion lives here; each operation is recorded by a function of
// its own, so that a level of nesting costs the stack one small frame.
Value<float> Recorder::evaluate(const Expression& expression) {
    switch (expression.kind) {
        case Expression::Kind::Number:
            return literal(expression);
        case Expression::Kind::Name:
            return named(expression);
        case Expression::Kind::Negate:
            return negated(expression, evaluate(*expression.operands[0]));
        case Expression::Kind::Binary: {
            const Value<float> left = evaluate(*expression.operands[0]);
            return binary(expression, left, evaluate(*expression.operands[1]));
        }
        case Expression::Kind::Call:
            break;
    }
    return call(expression, evaluate(*expression.operands[0]));
}

Value<float> Recorder::literal(const Expression& number) {
    return guarded(number.at, "cannot record this number", [&] {
        return tape_.leaf(Tensor<float>(number.number));
    });
}

Value<float> Recorder::negated(const Expression& minus, const Value<float>& operand) {
    return guarded(minus.at, "cannot negate " + shape_text(operand), [&] { return -operand; });
}

Value<float> Recorder::named(const Expression& name) const {
    const auto found = by_name_.find(name.text);
    if (found != by_name_.end()) {
        return values_[found->second];
    }
    if (name.text == defining_) {
        fail(name.at,
             "`" + name.text +
                 "` is the name this statement defines; it cannot be read "
                 "before it is defined");
    }
    fail(name.at,
         "`" + name.text + "` is not defined on an earlier line" + unknown_name_hint(name.text));
}

std::string Recorder::unknown_name_hint(const std::string& name) const {
    constexpr std::size_t longest_compared = 32;
    if (name.size() > longest_compared) {
        return "";
    }
    const std::string* closest = nullptr;
    std::size_t best = 3;  // suggest only names within two edits
    for (const Statement& statement : statements_) {
        if (statement.name.size() > longest_compared) {
            continue;
        }
        const std::size_t d = distance(name, statement.name);
        if (d < best) {
            best = d;
            closest = &statement.name;
        }
    }
    return closest == nullptr ? "" : "; did you mean `" + *closest + "`?";
}

Value<float> Recorder::binary(const Expression& expression,
                              const Value<float>& a,
                              const Value<float>& b) {
    const std::string& op = expression.text;
    return guarded(expression.at, binary_failure(op, a, b), [&] {
        if (op == "+") {
            return a + b;
        }
        if (op == "-") {
            return a - b;
        }
        if (op == "*") {
            return a * b;
        }
        if (op == "/") {
            return a / b;
        }
        return a.matmul(b);
    });
}

Value<float> Recorder::call(const Expression& expression, const Value<float>& a) {
    switch (expression.function) {
        case Function::SumAlong:
        case Function::MeanAlong:
            return along_axis(expression, a);
        case Function::Softmax:
        case Function::LogSoftmax:
        case Function::Logsumexp:
            return along_last_axis(expression, a);
        case Function::Broadcast:
        case Function::Reshape: {
            const Shape shape = shape_of(expression.extents, expression.extents_at);
            const bool broadcast = expression.function == Function::Broadcast;
            const std::string what =
                std::string(broadcast ? "cannot broadcast " : "cannot reshape ") + shape_text(a) +
                " to " + shape.str();
            return guarded(expression.at, what, [&] {
                return broadcast ? a.broadcast_to(shape) : a.reshape(shape);
            });
        }
        default:
            break;
    }
    return guarded(expression.at, "cannot apply " + expression.text + " to " + shape_text(a), [&] {
        switch (expression.function) {
            case Function::Tanh:
                return a.tanh();
            case Function::Exp:
                return a.exp();
            case Function::Ln:
                return a.log();
            case Function::Sqrt:
                return a.sqrt();
            case Function::Sin:
                return a.sin();
            case Function::Cos:
                return a.cos();
            case Function::Relu:
                return a.relu();
            case Function::Sigmoid:
                return a.sigmoid();
            case Function::Transpose:
                return a.transpose();
            default:
                return a.sum();
        }
    });
}

Value<float> Recorder::along_axis(const Expression& expression, const Value<float>& a) {
    const auto rank = static_cast<long long>(a.shape().rank());
    const long long axis = expression.axis < 0 ? expression.axis + rank : expression.axis;
    const std::string what =
        std::string(expression.function == Function::SumAlong ? "cannot sum " : "cannot average ") +
        shape_text(a) + " along axis " + std::to_string(expression.axis);
    if (axis < 0 || axis >= rank) {
        fail(expression.at, what + ": " + axes_of_rank(rank));
    }
    return guarded(expression.at, what, [&] {
        const auto along = static_cast<std::size_t>(axis);
        return expression.function == Function::SumAlong ? a.sum(along) : a.mean(along);
    });
}

Value<float> Recorder::along_last_axis(const Expression& expression, const Value<float>& a) {
    const std::string what = "cannot apply " + expression.text + " to " + shape_text(a);
    if (a.shape().rank() == 0) {
        fail(expression.at, what + ": it works along the last axis, and a rank-0 value has none");
    }
    const std::size_t last = a.shape().rank() - 1;
    return guarded(expression.at, what, [&] {
        switch (expression.function) {
            case Function::Softmax:
                return a.softmax(last);
            case Function::LogSoftmax:
                return a.log_softmax(last);
            default:
                return a.logsumexp(last);
        }
    });
}

}  // namespace topos::lang::detail
