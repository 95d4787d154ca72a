// Function<T>: the body recorded on a tape reopened from the model, once per
// posture (value, or value and gradients) and tuple of input shapes, lowered
// to a plan and cached under a mutex; calls feed the inputs to the cached plan.
// Also the arity checks and describe(), which lists the cached plans.
#include <topos/autodiff/adjoints.hpp>
#include <topos/core/error.hpp>
#include <topos/graph/tape.hpp>
#include <topos/model/function.hpp>
#include <topos/run/run.hpp>

#include <map>
#include <mutex>
#include <optional>
#include <ostream>
#include <sstream>

namespace topos {

std::ostream& operator<<(std::ostream& out, Argument argument) {
    return out << (argument == Argument::Real ? "real" : "indices");
}

namespace detail {

void check_function_arity(bool takes, std::size_t count) {
    if (count == 0 || count > most_function_arguments) {
        throw Error("a Function takes 1 to " + std::to_string(most_function_arguments) +
                    " arguments; " + std::to_string(count) + " were declared");
    }
    if (!takes) {
        refuse_function_arity(count);
    }
}

void refuse_function_arity(std::size_t count) {
    throw Error("the body of this Function cannot be called with " + std::to_string(count) +
                " argument" + (count == 1 ? "" : "s") + " of type const Value<T>&, as the " +
                "argument list declares; give one Argument per parameter of the body");
}

// One recording of the body at one tuple of input shapes.
template <Element T>
struct Compiled {
    Plan<T> plan;
    std::vector<Symbol> inputs;
    Symbol output;
    std::optional<Adjoints<T>> adjoints;  // set for a gradient plan
};

enum class Posture : std::uint8_t {
    Value,
    Gradients,
};

// A plan's key: its posture, then every input's rank and extents.
using PlanKey = std::vector<std::size_t>;

inline PlanKey key_of(Posture posture, const std::vector<Shape>& shapes) {
    PlanKey key{static_cast<std::size_t>(posture)};
    for (const Shape& shape : shapes) {
        key.push_back(shape.rank());
        key.insert(key.end(), shape.extents().begin(), shape.extents().end());
    }
    return key;
}

template <Element T>
struct FunctionCache {
    FunctionCache(Network<T> model_network,
                  FunctionBody<T> function_body,
                  std::vector<Argument> argument_kinds,
                  Numerics chosen)
        : model(std::move(model_network)),
          body(std::move(function_body)),
          arguments(std::move(argument_kinds)),
          numerics(chosen) {}

    struct Entry {
        Posture posture = Posture::Value;
        std::vector<Shape> shapes;
        std::shared_ptr<const Compiled<T>> compiled;
    };

    Network<T> model;
    FunctionBody<T> body;
    std::vector<Argument> arguments;
    Numerics numerics;
    std::mutex mutex;
    std::map<PlanKey, Entry> plans;
};

template <Element T>
Tensor<T> placeholder(Argument argument, const Shape& shape) {
    (void)argument;  // zeros are integers too, so one placeholder serves both kinds
    return Tensor<T>::filled(shape, T{0});
}

// The body recorded on a tape reopened from the model, at `shapes`.
template <Element T>
Compiled<T> record(const FunctionCache<T>& cache,
                   Posture posture,
                   const std::vector<Shape>& shapes) {
    Tape<T> tape = cache.model.reopen();
    std::vector<Value<T>> values;
    std::vector<Symbol> inputs;
    for (std::size_t i = 0; i < shapes.size(); ++i) {
        const Tensor<T> zeros = placeholder<T>(cache.arguments[i], shapes[i]);
        values.push_back(cache.arguments[i] == Argument::Real ? tape.input(zeros)
                                                              : tape.indices(zeros));
        inputs.push_back(values.back().symbol());
    }
    const Value<T> output = cache.body(values);
    std::optional<Adjoints<T>> adjoints;
    std::vector<Symbol> roots{output.symbol()};
    if (posture == Posture::Gradients) {
        const Parameters<T> parameters = cache.model.parameters();
        adjoints = tape.differentiate(
            output, std::vector<Symbol>(parameters.symbols().begin(), parameters.symbols().end()));
        roots = adjoints->roots();
    }
    const Network<T> network = std::move(tape).into_network();
    try {
        (void)network.node(output.symbol());
    } catch (const SymbolError&) {
        throw TapeError(
            "the body of a Function returned a value of another tape; return a value "
            "computed from its arguments or from the model's parameters");
    }
    return {network.entry(roots).numerics(cache.numerics).lower(),
            std::move(inputs),
            output.symbol(),
            std::move(adjoints)};
}

template <Element T>
std::shared_ptr<const Compiled<T>> compiled_for(FunctionCache<T>& cache,
                                                Posture posture,
                                                const std::vector<Shape>& shapes) {
    if (shapes.size() != cache.arguments.size()) {
        throw FeedError("this Function takes " + std::to_string(cache.arguments.size()) + " input" +
                        (cache.arguments.size() == 1 ? "" : "s") + ", but " +
                        std::to_string(shapes.size()) + " were given");
    }
    const std::lock_guard lock(cache.mutex);
    const PlanKey key = key_of(posture, shapes);
    if (const auto found = cache.plans.find(key); found != cache.plans.end()) {
        return found->second.compiled;
    }
    auto compiled = std::make_shared<const Compiled<T>>(record(cache, posture, shapes));
    cache.plans.emplace(key, typename FunctionCache<T>::Entry{posture, shapes, compiled});
    return compiled;
}

template <Element T>
std::vector<Shape> shapes_of(std::span<const Tensor<T>> inputs) {
    std::vector<Shape> shapes;
    for (const Tensor<T>& input : inputs) {
        shapes.push_back(input.shape());
    }
    return shapes;
}

template <Element T>
Run<T> run(const Compiled<T>& compiled,
           const Parameters<T>& parameters,
           std::span<const Tensor<T>> inputs) {
    std::vector<Feed<T>> feeds;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        feeds.push_back({compiled.inputs[i], inputs[i]});
    }
    return compiled.plan.forward(parameters, feeds);
}

}  // namespace detail

template <Element T>
Function<T>::Function(const Network<T>& model,
                      detail::FunctionBody<T> body,
                      std::vector<Argument> arguments,
                      Numerics numerics)
    : cache_(std::make_shared<detail::FunctionCache<T>>(
          model, std::move(body), std::move(arguments), numerics)) {}

template <Element T>
Tensor<T> Function<T>::call(const Parameters<T>& parameters,
                            std::span<const Tensor<T>> inputs) const {
    const auto compiled =
        detail::compiled_for(*cache_, detail::Posture::Value, detail::shapes_of(inputs));
    return detail::run(*compiled, parameters, inputs).of(compiled->output);
}

template <Element T>
ValueAndGradients<T> Function<T>::value_and_gradients(const Parameters<T>& parameters,
                                                      std::span<const Tensor<T>> inputs) const {
    const auto compiled =
        detail::compiled_for(*cache_, detail::Posture::Gradients, detail::shapes_of(inputs));
    const Run<T> run = detail::run(*compiled, parameters, inputs);
    return {run.of(compiled->output), run.recorded_gradients(*compiled->adjoints)};
}

template <Element T>
Plan<T> Function<T>::plan(const std::vector<Shape>& shapes) const {
    return detail::compiled_for(*cache_, detail::Posture::Value, shapes)->plan;
}

template <Element T>
Plan<T> Function<T>::gradient_plan(const std::vector<Shape>& shapes) const {
    return detail::compiled_for(*cache_, detail::Posture::Gradients, shapes)->plan;
}

template <Element T>
const Network<T>& Function<T>::model() const {
    return cache_->model;
}

template <Element T>
const std::vector<Argument>& Function<T>::arguments() const {
    return cache_->arguments;
}

template <Element T>
std::size_t Function<T>::compiled() const {
    const std::lock_guard lock(cache_->mutex);
    return cache_->plans.size();
}

template <Element T>
std::string Function<T>::describe() const {
    const std::lock_guard lock(cache_->mutex);
    std::ostringstream out;
    out << "Function(";
    for (std::size_t i = 0; i < cache_->arguments.size(); ++i) {
        out << (i ? ", " : "") << cache_->arguments[i];
    }
    out << ") over " << cache_->model.parameters().size() << " parameters, " << cache_->plans.size()
        << (cache_->plans.size() == 1 ? " plan" : " plans") << (cache_->plans.empty() ? "" : ":")
        << '\n';
    for (const auto& [key, entry] : cache_->plans) {
        out << "  " << (entry.posture == detail::Posture::Value ? "value    " : "gradients")
            << "  ";
        for (std::size_t i = 0; i < entry.shapes.size(); ++i) {
            out << (i ? ", " : "") << entry.shapes[i];
        }
        out << ": " << entry.compiled->plan.nodes().size() << " nodes scheduled\n";
    }
    return out.str();
}

template class Function<float>;
template class Function<double>;

}  // namespace topos
