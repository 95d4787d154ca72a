// Function<T>: a computation written once and run at any input shapes, as
// jax.jit runs a Python function. The first call at a new tuple of input
// shapes records the body on a tape reopened from the model network (so the
// body reads the model's parameters and modules directly), seals it and lowers
// a plan; later calls at those shapes reuse that plan. Every plan reads one
// Parameters made for the model, so parameters trained through one Function
// (batches of 50, say) evaluate through another at any other batch size.
//
//   Function<float> predict(model, [&](const Value<float>& x) { return mlp.express(x); });
//   Tensor<float> logits = predict(parameters, test_rows);
//   Function<float> loss(model, [&](const Value<float>& x, const Value<float>& labels) {
//       return cross_entropy(mlp.express(x), labels);
//   }, {Argument::Real, Argument::Indices});
//   auto [value, gradients] = loss.value_and_gradients(parameters, rows, labels);
//
// Its plans run under Numerics::Exact unless the constructor is given
// Numerics::Fast: a call gives the interpreter's bits at that shape. A Function
// is safe to call from several threads at once. The body runs only
// while a new shape is recorded, on the calling thread, and must outlive the
// Function with everything it captures (the modules, usually). A call made
// under an Autocast has plans of its own, recorded under it (its products in
// the narrower type), beside those of calls made outside one.
#pragma once

#include <topos/core/tensor.hpp>
#include <topos/graph/network.hpp>
#include <topos/graph/value.hpp>
#include <topos/plan/plan.hpp>
#include <topos/run/entry.hpp>
#include <topos/run/parameters.hpp>

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace topos {

// What one argument of a Function holds: reals (tape.input) or indices
// (tape.indices: labels, token ids), checked to be integers when fed.
enum class Argument : std::uint8_t {
    Real,
    Indices,
};

// Writes "real" or "indices".
std::ostream& operator<<(std::ostream& out, Argument argument);

// One plan a Function has compiled: what it computes and at which input shapes.
template <Element T>
struct CompiledPlan {
    bool gradients = false;  // value_and_gradients's plan; a call's otherwise
    std::vector<Shape> shapes;
    Plan<T> plan;
};

// What Function::value_and_gradients returns.
template <Element T>
struct ValueAndGradients {
    Tensor<T> value;
    Parameters<T> gradients;  // d value / d parameter, one per slot of the model
};

// One output of Function::value_and_gradients the moment its plan has
// computed it: a parameter's gradient (its slot) or the body's value (no slot).
template <Element T>
struct FinishedOutput {
    std::optional<std::size_t> slot;
    std::span<const T> elements;  // valid during the observer's call only
};

// What value_and_gradients calls, on the calling thread, before the plan's
// first step and after each step, with the outputs that step finished: often
// none (see StepObserver). Each gradient is reported once, final.
template <Element T>
using OutputObserver = std::function<void(std::span<const FinishedOutput<T>> finished)>;

namespace detail {

template <Element T>
using FunctionBody = std::function<Value<T>(std::span<const Value<T>>)>;

inline constexpr std::size_t most_function_arguments = 8;

// Throws Error naming the argument count when the body cannot take it.
void check_function_arity(bool takes, std::size_t count);
[[noreturn]] void refuse_function_arity(std::size_t count);

template <Element T, class Body, std::size_t... I>
constexpr bool invocable_with(std::index_sequence<I...> /*arguments*/) {
    return std::is_invocable_r_v<Value<T>,
                                 const Body&,
                                 decltype((void)I, std::declval<const Value<T>&>())...>;
}

template <Element T, class Body, std::size_t... I>
Value<T> spread_into(const Body& body,
                     std::span<const Value<T>> values,
                     std::index_sequence<I...> /*arguments*/) {
    return body(values[I]...);
}

// Calls `body` with values.size() arguments, 1 to most_function_arguments.
template <Element T, class Body, std::size_t N = 1>
Value<T> call_body(const Body& body, std::span<const Value<T>> values) {
    if constexpr (N > most_function_arguments) {
        refuse_function_arity(values.size());  // checked when the Function is made
    } else {
        if (values.size() == N) {
            if constexpr (invocable_with<T, Body>(std::make_index_sequence<N>{})) {
                return spread_into<T>(body, values, std::make_index_sequence<N>{});
            }
        }
        return call_body<T, Body, N + 1>(body, values);
    }
}

template <Element T, class Body, std::size_t N = 1>
constexpr bool body_takes(std::size_t count) {
    if constexpr (N > most_function_arguments) {
        return false;
    } else {
        return (count == N && invocable_with<T, Body>(std::make_index_sequence<N>{})) ||
               body_takes<T, Body, N + 1>(count);
    }
}

template <Element T>
struct FunctionCache;

}  // namespace detail

template <Element T>
class Function {
public:
    // `body` takes one `const Value<T>&` per entry of `arguments` and returns the
    // value to compute. Throws Error when it cannot be called with that many.
    template <class Body>
    Function(const Network<T>& model,
             Body body,
             std::vector<Argument> arguments = {Argument::Real},
             Numerics numerics = Numerics::Exact)
        : Function(model, checked_body(std::move(body), arguments.size()), arguments, numerics) {}

    // The body's value at these inputs, one per argument (their shapes choose
    // the plan). Throws FeedError for another number of inputs or an index
    // argument that is not integers, SymbolError for parameters made for
    // another network, and ShapeError when the body cannot be recorded at these
    // shapes: "Function call: argument 0 (real): expected [_, 4], got [8, 29] (a
    // plan was compiled at [5, 4]): MatMul of argument 0 [8, 29], parameter 0
    // [4, 8]: ...", its operation's message with the nodes of the arguments and
    // of the model's parameters (their slots in Parameters) named as such. The
    // expected shape, given when a plan was compiled before, is found by
    // recording the body again (at most 32 times) at shapes between that plan's
    // and the call's; "_" marks an extent it takes freely.
    template <class... Inputs>
    requires(std::convertible_to<const Inputs&, const Tensor<T>&>&&...) Tensor<T>

    operator()(const Parameters<T>& parameters, const Inputs&... inputs) const {
        const std::array<Tensor<T>, sizeof...(Inputs)> all{Tensor<T>(inputs)...};
        return call(parameters, all);
    }

    // The same as operator(), the inputs as a span, one per argument.
    Tensor<T> call(const Parameters<T>& parameters, std::span<const Tensor<T>> inputs) const;

    // The body's rank-0 value and its gradient with respect to every parameter
    // of the model, through a plan of the recorded derivative (compiled once per
    // shape). Throws GradientError when the body's value is not rank 0.
    template <class... Inputs>
    requires(std::convertible_to<const Inputs&, const Tensor<T>&>&&...)
        ValueAndGradients<T> value_and_gradients(const Parameters<T>& parameters,
                                                 const Inputs&... inputs)
    const {
        const std::array<Tensor<T>, sizeof...(Inputs)> all{Tensor<T>(inputs)...};
        return value_and_gradients(parameters, std::span<const Tensor<T>>(all));
    }

    // The same, the inputs as a span, one per argument.
    ValueAndGradients<T> value_and_gradients(const Parameters<T>& parameters,
                                             std::span<const Tensor<T>> inputs) const;

    // The same, telling `observe` as the plan runs which gradients (and the
    // value) are final, so that a caller can send a gradient on while the
    // others are computed (distributed::DataParallel does). The bits are those
    // of the call without an observer.
    ValueAndGradients<T> value_and_gradients(const Parameters<T>& parameters,
                                             std::span<const Tensor<T>> inputs,
                                             const OutputObserver<T>& observe) const;

    // The plan a call at inputs of these shapes runs (compiled now if new), and
    // the one value_and_gradients runs: to print, emit or measure.
    Plan<T> plan(const std::vector<Shape>& shapes) const;
    Plan<T> gradient_plan(const std::vector<Shape>& shapes) const;

    // The network it was made over: every call takes Parameters made for it.
    const Network<T>& model() const;

    // What each argument holds, as given to the constructor.
    const std::vector<Argument>& arguments() const;

    // How many plans are compiled, both kinds counted.
    std::size_t compiled() const;

    // The plans compiled so far, value plans first, in the order describe() lists them.
    std::vector<CompiledPlan<T>> compiled_plans() const;

    // For `loss` above over a [4, 8, 3] tanh MLP (four parameters), after
    // loss.value_and_gradients at a batch of 50 and loss at 297 rows
    // (Function.DescribePrintsTheExampleOfItsHeaderAndOfTheGuide compares this
    // text with what describe() prints):
    //
    //   Function(real, indices) over 4 parameters, 2 plans:
    //     value      [297, 4], [297]: 21 nodes scheduled
    //     gradients  [50, 4], [50]: 46 nodes scheduled
    //
    // "Function(<kinds>) over <n> parameters, <m> plans:", then one line per
    // compiled plan (value plans first): its kind, input shapes and node count.
    std::string describe() const;

private:
    Function(const Network<T>& model,
             detail::FunctionBody<T> body,
             std::vector<Argument> arguments,
             Numerics numerics);

    template <class Body>
    static detail::FunctionBody<T> checked_body(Body body, std::size_t count) {
        detail::check_function_arity(detail::body_takes<T, Body>(count), count);
        return [body = std::move(body)](std::span<const Value<T>> values) {
            return detail::call_body<T>(body, values);
        };
    }

    std::shared_ptr<detail::FunctionCache<T>> cache_;
};

extern template class Function<float>;
extern template class Function<double>;
extern template class Function<bf16>;

}  // namespace topos
