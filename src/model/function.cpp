// Function<T>: the body recorded on a tape reopened from the model, once per
// posture (value, or value and gradients) and tuple of input shapes, lowered
// to a plan and cached under a mutex; calls feed the inputs to the cached plan.
// Also the arity checks, describe(), which lists the cached plans, and the
// message of a call the body cannot take, in the call's terms (call_error).
#include "model/plan_key.hpp"
#include <topos/autodiff/adjoints.hpp>
#include <topos/core/error.hpp>
#include <topos/graph/tape.hpp>
#include <topos/model/function.hpp>
#include <topos/run/run.hpp>

#include <algorithm>
#include <cctype>
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
namespace {

// At most this many groups of extents where a call differs from a compiled
// plan are tried by expected_shapes, each by one or two extra recordings of the
// body: a call that differs in more names no expected shape.
constexpr std::size_t most_probed_groups = 16;

// "1 argument", "2 were given": a count and its words in singular or plural.
std::string spelled_count(std::size_t count, const char* one, const char* many) {
    return std::to_string(count) + ' ' + (count == 1 ? one : many);
}

// "real, indices".
std::string kinds_of(const std::vector<Argument>& arguments) {
    std::ostringstream out;
    for (std::size_t i = 0; i < arguments.size(); ++i) {
        out << (i ? ", " : "") << arguments[i];
    }
    return out.str();
}

// `message` with every "node N" that is an argument's input or a parameter of
// the model written "argument i" or "parameter j" (its slot in Parameters);
// named[i] is set for each argument so written.
std::string in_call_terms(const std::string& message,
                          const std::vector<Symbol>& inputs,
                          std::span<const Symbol> parameters,
                          std::vector<bool>& named) {
    const std::string word = "node ";
    std::string out;
    std::size_t at = 0;
    while (at < message.size()) {
        const std::size_t found = message.find(word, at);
        if (found == std::string::npos) {
            break;
        }
        std::size_t end = found + word.size();
        while (end < message.size() && end - found - word.size() < 10 &&
               std::isdigit(static_cast<unsigned char>(message[end]))) {
            ++end;
        }
        const bool starts_word =
            found == 0 || !std::isalnum(static_cast<unsigned char>(message[found - 1]));
        std::string name = message.substr(found, end - found);
        if (starts_word && end > found + word.size()) {
            const std::uint64_t index = std::stoull(message.substr(found + word.size()));
            for (std::size_t i = 0; i < inputs.size(); ++i) {
                if (inputs[i].index() == index) {
                    name = "argument " + std::to_string(i);
                    named[i] = true;
                }
            }
            for (std::size_t j = 0; j < parameters.size(); ++j) {
                if (parameters[j].index() == index) {
                    name = "parameter " + std::to_string(j);
                }
            }
        }
        out += message.substr(at, found - at) + name;
        at = end;
    }
    return out + message.substr(std::min(at, message.size()));
}

}  // namespace

void check_function_arity(bool takes, std::size_t count) {
    if (count == 0 || count > most_function_arguments) {
        throw Error("a Function takes 1 to " + std::to_string(most_function_arguments) +
                    " arguments; " + spelled_count(count, "was declared", "were declared"));
    }
    if (!takes) {
        refuse_function_arity(count);
    }
}

void refuse_function_arity(std::size_t count) {
    throw Error("the body of this Function cannot be called with " +
                spelled_count(count, "argument", "arguments") +
                " of type const Value<T>&, as the " +
                "argument list declares; give one Argument per parameter of the body");
}

// One recording of the body at one tuple of input shapes.
template <Element T>
struct Compiled {
    Plan<T> plan;
    std::vector<Symbol> inputs;
    Symbol output;
    std::optional<Adjoints<T>> adjoints;  // set for a gradient plan
    // For a gradient plan: (gradient node, parameter slot), slot by slot.
    std::vector<std::pair<std::uint32_t, std::size_t>> gradient_slots;
};

enum class Posture : std::uint8_t {
    Value,
    Gradients,
};

// The body is recorded on the calling thread, under the Autocast open there,
// so a call under an Autocast has a plan of its own, as a call under
// torch.autocast computes its products in the narrower type.
inline PlanKey key_of(Posture posture, const std::vector<Shape>& shapes) {
    const std::optional<ElementType> autocast = Autocast::current();
    const std::size_t products = autocast ? 1 + static_cast<std::size_t>(*autocast) : 0;
    return plan_key(static_cast<std::size_t>(posture) * 4 + products, shapes);
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

// One input on `tape` per argument, at `shapes`.
template <Element T>
std::vector<Value<T>> inputs_on(Tape<T>& tape,
                                const FunctionCache<T>& cache,
                                const std::vector<Shape>& shapes) {
    std::vector<Value<T>> values;
    for (std::size_t i = 0; i < shapes.size(); ++i) {
        const Tensor<T> zeros = placeholder<T>(cache.arguments[i], shapes[i]);
        values.push_back(cache.arguments[i] == Argument::Real ? tape.input(zeros)
                                                              : tape.indices(zeros));
    }
    return values;
}

// Whether the body records without error at `shapes`, on a tape then dropped.
template <Element T>
bool body_records(const FunctionCache<T>& cache, const std::vector<Shape>& shapes) {
    try {
        Tape<T> tape = cache.model.reopen();
        const std::vector<Value<T>> values = inputs_on(tape, cache, shapes);
        (void)cache.body(values);
        return true;
    } catch (const Error&) {
        return false;
    }
}

// The shape the body needs for each argument of a call at `shapes` that it
// cannot take ("[_, 4]": "_" an extent it takes freely), or "" where that is
// not known. The extents where the call differs from a compiled plan's shapes
// are grouped by the pair of extents (so a batch axis shared by several
// arguments moves as one); starting from the plan's shapes, each group is moved
// to the call's extents by a recording of the body, and kept there when the
// body records. The groups that could not move name the extents it needs.
template <Element T>
std::vector<std::string> expected_shapes(const FunctionCache<T>& cache,
                                         const std::vector<Shape>& shapes,
                                         std::vector<Shape>& known) {
    std::vector<std::string> expected(shapes.size());
    if (cache.plans.empty()) {
        return expected;
    }
    known = cache.plans.begin()->second.shapes;

    struct Group {
        std::vector<std::pair<std::size_t, std::size_t>> places;  // (argument, axis)
        std::size_t whole = 0;  // argument + 1 when the ranks differ, else 0
        std::size_t from = 0;
        std::size_t to = 0;
        bool moved = false;
    };

    std::vector<Group> groups;
    for (std::size_t i = 0; i < shapes.size(); ++i) {
        if (known[i].rank() != shapes[i].rank()) {
            groups.push_back({{}, i + 1, 0, 0, false});
            continue;
        }
        for (std::size_t axis = 0; axis < shapes[i].rank(); ++axis) {
            if (known[i][axis] == shapes[i][axis]) {
                continue;
            }
            auto same = std::find_if(groups.begin(), groups.end(), [&](const Group& group) {
                return group.whole == 0 && group.from == known[i][axis] &&
                       group.to == shapes[i][axis];
            });
            if (same == groups.end()) {
                groups.push_back({{}, 0, known[i][axis], shapes[i][axis], false});
                same = groups.end() - 1;
            }
            same->places.emplace_back(i, axis);
        }
    }
    if (groups.empty() || groups.size() > most_probed_groups) {
        return expected;
    }
    std::vector<Shape> settled = known;
    for (Group& group : groups) {
        std::vector<Shape> trial = settled;
        if (group.whole != 0) {
            trial[group.whole - 1] = shapes[group.whole - 1];
        }
        for (const auto& [argument, axis] : group.places) {
            trial[argument] = trial[argument].with_extent(axis, group.to);
        }
        if (body_records(cache, trial)) {
            settled = std::move(trial);
            group.moved = true;
        }
    }
    // Groups that could not move alone but move together to one extent (the
    // batch of the inputs and of the labels, given as 8 and 7) take it freely:
    // the operation's message says which extents must agree.
    for (Group& group : groups) {
        std::vector<Group*> together;
        for (Group& other : groups) {
            if (!other.moved && other.whole == 0 && group.whole == 0 && other.from == group.from) {
                together.push_back(&other);
            }
        }
        if (group.moved || together.size() < 2) {
            continue;
        }
        std::vector<Shape> trial = settled;
        for (const Group* other : together) {
            for (const auto& [argument, axis] : other->places) {
                trial[argument] = trial[argument].with_extent(axis, group.to);
            }
        }
        if (body_records(cache, trial)) {
            for (Group* other : together) {
                other->moved = true;
            }
        }
    }
    for (std::size_t i = 0; i < shapes.size(); ++i) {
        const Shape& need = settled[i];
        std::string text = "[";
        bool fits = need.rank() == shapes[i].rank();
        for (std::size_t axis = 0; axis < need.rank(); ++axis) {
            bool free = std::any_of(groups.begin(), groups.end(), [&](const Group& group) {
                return group.moved &&
                       std::find(group.places.begin(), group.places.end(), std::pair{i, axis}) !=
                           group.places.end();
            });
            for (const auto& [key, entry] : cache.plans) {
                free = free || (entry.shapes[i].rank() == need.rank() &&
                                entry.shapes[i][axis] != need[axis]);
            }
            text += (axis ? ", " : "") + (free ? std::string("_") : std::to_string(need[axis]));
            fits = fits && (free || need[axis] == shapes[i][axis]);
        }
        if (!fits) {
            expected[i] = text + "]";
        }
    }
    return expected;
}

// The message of a ShapeError the body threw at `shapes`, in the call's terms:
// the arguments that do not fit, with the shapes the body needs there when a
// compiled plan tells them, then the operation's message with the nodes of the
// arguments and parameters named as such.
template <Element T>
std::string call_error(const FunctionCache<T>& cache,
                       const std::vector<Shape>& shapes,
                       const std::vector<Symbol>& inputs,
                       const std::string& message) {
    std::vector<bool> named(shapes.size(), false);
    const Parameters<T> parameters = cache.model.parameters();
    const std::string operation = in_call_terms(message, inputs, parameters.symbols(), named);
    std::vector<Shape> known;
    const std::vector<std::string> expected = expected_shapes(cache, shapes, known);
    const auto argument = [&](std::size_t i) {
        std::ostringstream out;
        out << "argument " << i << " (" << cache.arguments[i] << ')';
        return out.str();
    };
    std::ostringstream out;
    out << "Function call: ";
    std::string separator;
    for (std::size_t i = 0; i < shapes.size(); ++i) {
        if (!expected[i].empty()) {
            out << separator << argument(i) << ": expected " << expected[i] << ", got "
                << shapes[i];
            separator = "; ";
        }
    }
    if (!separator.empty()) {
        out << " (a plan was compiled at ";
        for (std::size_t i = 0; i < known.size(); ++i) {
            out << (i ? ", " : "") << known[i];
        }
        out << ')';
    } else if (std::find(named.begin(), named.end(), true) != named.end()) {
        out << "the body cannot take ";
        for (std::size_t i = 0; i < shapes.size(); ++i) {
            if (named[i]) {
                out << separator << argument(i) << ' ' << shapes[i];
                separator = ", ";
            }
        }
    } else {
        out << "the body cannot be recorded at (";
        for (std::size_t i = 0; i < shapes.size(); ++i) {
            out << (i ? ", " : "") << cache.arguments[i] << ' ' << shapes[i];
        }
        out << ')';
    }
    out << ": " << operation;
    for (std::size_t i = 0; i < shapes.size(); ++i) {
        if (!named[i]) {
            continue;
        }
        if (cache.arguments[i] == Argument::Real &&
            message.find("must hold indices") != std::string::npos) {
            out << "; argument " << i
                << " is declared Argument::Real: declare it Argument::Indices in the "
                   "Function's argument list";
        } else if (cache.arguments[i] == Argument::Indices &&
                   message.find("holds indices") != std::string::npos) {
            out << "; argument " << i
                << " is declared Argument::Indices: declare it Argument::Real in the "
                   "Function's argument list";
        }
        if (shapes[i].rank() == 0) {
            out << "; argument " << i
                << " is rank 0: give it the axes the body reads (one row of n is [1, n])";
        }
    }
    return out.str();
}

// The body recorded on a tape reopened from the model, at `shapes`. A
// ShapeError of the body is thrown again in the call's terms (call_error).
template <Element T>
Compiled<T> record(const FunctionCache<T>& cache,
                   Posture posture,
                   const std::vector<Shape>& shapes) {
    Tape<T> tape = cache.model.reopen();
    const std::vector<Value<T>> values = inputs_on(tape, cache, shapes);
    std::vector<Symbol> inputs;
    inputs.reserve(values.size());
    for (const Value<T>& value : values) {
        inputs.push_back(value.symbol());
    }
    const Value<T> output = [&] {
        try {
            return cache.body(values);
        } catch (const ShapeError& error) {
            throw ShapeError(call_error(cache, shapes, inputs, error.what()));
        }
    }();
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
    std::vector<std::pair<std::uint32_t, std::size_t>> gradient_slots;
    if (adjoints) {
        for (std::size_t slot = 0; slot < adjoints->gradients().size(); ++slot) {
            gradient_slots.emplace_back(adjoints->gradients()[slot].second.index(), slot);
        }
    }
    return {network.entry(roots).numerics(cache.numerics).lower(),
            std::move(inputs),
            output.symbol(),
            std::move(adjoints),
            std::move(gradient_slots)};
}

template <Element T>
std::shared_ptr<const Compiled<T>> compiled_for(FunctionCache<T>& cache,
                                                Posture posture,
                                                const std::vector<Shape>& shapes) {
    if (shapes.size() != cache.arguments.size()) {
        throw FeedError("Function call: this Function takes " +
                        spelled_count(cache.arguments.size(), "argument", "arguments") + " (" +
                        kinds_of(cache.arguments) + "), but " +
                        spelled_count(shapes.size(), "was given", "were given"));
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
std::vector<Feed<T>> feeds_of(const Compiled<T>& compiled, std::span<const Tensor<T>> inputs) {
    std::vector<Feed<T>> feeds;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        feeds.push_back({compiled.inputs[i], inputs[i]});
    }
    return feeds;
}

template <Element T>
Run<T> run(const Compiled<T>& compiled,
           const Parameters<T>& parameters,
           std::span<const Tensor<T>> inputs) {
    return compiled.plan.forward(parameters, feeds_of(compiled, inputs));
}

// The plan's finished values as the outputs of value_and_gradients: the value
// and every slot whose gradient the node is.
template <Element T>
StepObserver<T> outputs_observer(const Compiled<T>& compiled, const OutputObserver<T>& observe) {
    return [&compiled, &observe, outputs = std::vector<FinishedOutput<T>>()](
               std::span<const FinishedValue<T>> finished) mutable {
        outputs.clear();
        for (const FinishedValue<T>& value : finished) {
            if (value.node == compiled.output) {
                outputs.push_back({std::nullopt, value.elements});
            }
            for (const auto& [node, slot] : compiled.gradient_slots) {
                if (node == value.node.index()) {
                    outputs.push_back({slot, value.elements});
                }
            }
        }
        observe(std::span<const FinishedOutput<T>>(outputs));
    };
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
ValueAndGradients<T> Function<T>::value_and_gradients(const Parameters<T>& parameters,
                                                      std::span<const Tensor<T>> inputs,
                                                      const OutputObserver<T>& observe) const {
    const auto compiled =
        detail::compiled_for(*cache_, detail::Posture::Gradients, detail::shapes_of(inputs));
    const Run<T> run = compiled->plan.forward(parameters,
                                              detail::feeds_of(*compiled, inputs),
                                              detail::outputs_observer(*compiled, observe));
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
std::vector<CompiledPlan<T>> Function<T>::compiled_plans() const {
    const std::lock_guard lock(cache_->mutex);
    std::vector<CompiledPlan<T>> plans;
    plans.reserve(cache_->plans.size());
    for (const auto& [key, entry] : cache_->plans) {
        plans.push_back({.gradients = entry.posture == detail::Posture::Gradients,
                         .shapes = entry.shapes,
                         .plan = entry.compiled->plan});
    }
    return plans;
}

template <Element T>
std::string Function<T>::describe() const {
    const std::lock_guard lock(cache_->mutex);
    std::ostringstream out;
    out << "Function(";
    for (std::size_t i = 0; i < cache_->arguments.size(); ++i) {
        out << (i ? ", " : "") << cache_->arguments[i];
    }
    out << ") over "
        << detail::spelled_count(cache_->model.parameters().size(), "parameter", "parameters")
        << ", " << detail::spelled_count(cache_->plans.size(), "plan", "plans")
        << (cache_->plans.empty() ? "" : ":") << '\n';
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
template class Function<bf16>;

}  // namespace topos
