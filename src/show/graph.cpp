// show::graph: tapes, networks and plans as Graphviz DOT text, read through
// their public API only. Every graph becomes a Scene (the nodes and what is
// known of each: derived, scheduled, declared, marked, in which pattern and
// name scope, its parameter name or scalar value), and one writer turns a
// scene into DOT, so the four overloads draw alike.
#include "show/card_parts.hpp"
#include <topos/show/graph.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace topos::show {

namespace {

constexpr int no_pattern = -1;

// Past this many boxes, dot's optimal placement and spline routing grow too
// slow (minutes for a 400-node training graph): the picture trades them for
// straight edges and a bounded search, and lays out in a fraction of a second.
constexpr std::size_t large_graph_boxes = 100;

// What the picture knows of a graph beyond its nodes.
struct Scene {
    std::span<const Node> nodes;
    std::optional<std::uint32_t> derived_from;
    std::vector<bool> unscheduled;  // per node; all false outside a plan
    std::vector<bool> declared;
    std::vector<bool> marked;
    std::span<const Pattern> patterns;
    std::vector<int> pattern_of;              // per node: its elected pattern, or no_pattern
    std::vector<std::string> notes;           // per node: a last label line (a parameter's name)
    std::vector<std::string> values;          // per node: a scalar leaf's value, else empty
    std::vector<Scope> scopes{Scope{"", 0}};  // the name scopes drawn as clusters
    std::vector<std::uint32_t> scope_of;      // per node: the cluster it is drawn in
    std::vector<std::string> scope_labels;    // per scope
};

constexpr std::uint32_t top_scope = 0;

// `text` as the inside of a DOT double-quoted string: quotes and backslashes
// escaped, line breaks as DOT's \n (centred lines).
std::string dot_quoted(std::string_view text) {
    std::string quoted = "\"";
    for (const char c : text) {
        if (c == '"' || c == '\\') {
            quoted += '\\';
            quoted += c;
        } else if (c == '\n') {
            quoted += "\\n";
        } else if (c != '\r') {
            quoted += c;
        }
    }
    return quoted + "\"";
}

Scene scene_of(std::span<const Node> nodes, const GraphOptions& options) {
    Scene scene{.nodes = nodes,
                .derived_from = options.derived_from,
                .unscheduled = std::vector<bool>(nodes.size(), false),
                .declared = std::vector<bool>(nodes.size(), false),
                .marked = std::vector<bool>(nodes.size(), false),
                .patterns = {},
                .pattern_of = std::vector<int>(nodes.size(), no_pattern),
                .notes = std::vector<std::string>(nodes.size()),
                .values = std::vector<std::string>(nodes.size()),
                .scopes = {Scope{"", 0}},
                .scope_of = std::vector<std::uint32_t>(nodes.size(), top_scope),
                .scope_labels = {""}};
    for (const Symbol& symbol : options.marked) {
        if (symbol.index() >= nodes.size()) {
            throw ShowError("GraphOptions::marked names node " + std::to_string(symbol.index()) +
                            ", but the graph has " + std::to_string(nodes.size()) +
                            " nodes; mark a symbol of the graph drawn");
        }
        scene.marked[symbol.index()] = true;
    }
    return scene;
}

// The first node differentiation appended: the earliest node after the target
// that the gradients are built from. The target's own ancestors all come
// before it, so every later ancestor of a gradient was recorded by the rules.
template <Element T>
std::uint32_t first_derived(std::span<const Node> nodes, const Adjoints<T>& adjoints) {
    std::vector<bool> needed(nodes.size(), false);
    for (const auto& [value, gradient] : adjoints.gradients()) {
        if (gradient.index() < nodes.size()) {
            needed[gradient.index()] = true;
        }
    }
    const std::uint32_t target = adjoints.target().index();
    std::uint32_t first = target + 1;
    for (std::size_t i = nodes.size(); i-- > target + std::size_t{1};) {
        if (!needed[i]) {
            continue;
        }
        first = static_cast<std::uint32_t>(i);
        for (const std::uint32_t operand : nodes[i].operands()) {
            needed[operand] = true;
        }
    }
    return first;
}

// Each named parameter's name as its box's last line. Throws ShowError for a
// name whose symbol is not a parameter of the graph drawn.
void add_names(Scene& scene, const std::vector<NamedParameter>& names) {
    for (const NamedParameter& named : names) {
        const std::uint32_t index = named.symbol.index();
        if (index >= scene.nodes.size() || scene.nodes[index].symbol() != named.symbol ||
            scene.nodes[index].opcode() != Opcode::Parameter) {
            throw ShowError("GraphOptions::names gives \"" + named.name + "\" to node " +
                            std::to_string(index) +
                            ", which is not a parameter of the graph drawn; pass the "
                            "named_parameters() of the model this graph was recorded with");
        }
        scene.notes[index] = named.name;
    }
}

// Rank-0 leaves (a batch size, a scale) show their value.
template <class Graph>
void add_scalar_values(Scene& scene, const Graph& graph) {
    for (const Node& node : scene.nodes) {
        if (node.opcode() == Opcode::Leaf && node.shape().rank() == 0) {
            scene.values[node.index()] = detail::shortest(graph.payload(node.symbol()).data()[0]);
        }
    }
}

// The innermost scope holding both `a` and `b` (parents precede their children).
std::uint32_t common_scope(const std::vector<Scope>& scopes, std::uint32_t a, std::uint32_t b) {
    while (a != b) {
        if (a > b) {
            a = scopes[a].parent;
        } else {
            b = scopes[b].parent;
        }
    }
    return a;
}

// Parameters are recorded where a module is built, outside the scope of its
// express(): each is drawn in the innermost scope that holds all its readers.
void place_parameters(Scene& scene) {
    std::vector<std::optional<std::uint32_t>> readers_scope(scene.nodes.size());
    for (const Node& node : scene.nodes) {
        for (const std::uint32_t operand : node.operands()) {
            std::optional<std::uint32_t>& found = readers_scope[operand];
            const std::uint32_t reader = scene.scope_of[node.index()];
            found = found ? common_scope(scene.scopes, *found, reader) : reader;
        }
    }
    for (const Node& node : scene.nodes) {
        if (node.opcode() == Opcode::Parameter && scene.scope_of[node.index()] == top_scope &&
            readers_scope[node.index()]) {
            scene.scope_of[node.index()] = *readers_scope[node.index()];
        }
    }
}

// What a dotted name's last word belongs to: "0" for "0.weight", "" for "scale".
std::string_view owner_of(std::string_view name) {
    const std::size_t dot = name.rfind('.');
    return dot == std::string_view::npos ? std::string_view() : name.substr(0, dot);
}

// The owner every name in `names` shares, in whole words: "blocks.0" for
// "blocks.0.norm1.weight" and "blocks.0.mlp.0.bias"; "" when they share none.
std::string_view common_owner(const std::vector<std::string_view>& names) {
    std::string_view common = owner_of(names.front());
    for (const std::string_view name : names) {
        const std::string_view owner = owner_of(name);
        while (!common.empty() && owner != common &&
               !(owner.starts_with(common) && owner[common.size()] == '.')) {
            common = owner_of(common);
        }
    }
    return common;
}

// A scope's cluster label: its name, after the name its parameters share
// ("0: Linear", "blocks.0: TransformerBlock").
void label_scopes(Scene& scene) {
    std::vector<std::vector<std::string_view>> names(scene.scopes.size());
    for (const Node& node : scene.nodes) {
        const std::string& name = scene.notes[node.index()];
        if (name.empty()) {
            continue;
        }
        for (std::uint32_t scope = scene.scope_of[node.index()]; scope != top_scope;
             scope = scene.scopes[scope].parent) {
            names[scope].push_back(name);
        }
    }
    scene.scope_labels.assign(scene.scopes.size(), "");
    for (std::size_t scope = 1; scope < scene.scopes.size(); ++scope) {
        const std::string_view shared = names[scope].empty() ? "" : common_owner(names[scope]);
        scene.scope_labels[scope] = shared.empty()
                                        ? scene.scopes[scope].name
                                        : std::string(shared) + ": " + scene.scopes[scope].name;
    }
}

template <class Graph>
void add_scopes(Scene& scene, const Graph& graph) {
    const std::span<const Scope> scopes = graph.scopes();
    scene.scopes.assign(scopes.begin(), scopes.end());
    for (const Node& node : scene.nodes) {
        scene.scope_of[node.index()] = graph.scope_of(node.symbol());
    }
    place_parameters(scene);
    label_scopes(scene);
}

// What a graph shows beyond its nodes' opcodes and shapes: names, scalar
// values and, unless options say otherwise, name scopes.
template <class Graph>
void add_reading(Scene& scene, const Graph& graph, const GraphOptions& options) {
    add_names(scene, options.names);
    add_scalar_values(scene, graph);
    if (options.group_scopes) {
        add_scopes(scene, graph);
    }
}

void add_plan(Scene& scene, std::span<const Node> scheduled, const std::vector<Symbol>& declared) {
    scene.unscheduled.assign(scene.nodes.size(), true);
    for (const Node& node : scheduled) {
        scene.unscheduled[node.index()] = false;
    }
    for (const Symbol& symbol : declared) {
        scene.declared[symbol.index()] = true;
    }
}

void add_patterns(Scene& scene, std::span<const Pattern> patterns) {
    scene.patterns = patterns;
    for (std::size_t k = 0; k < patterns.size(); ++k) {
        for (const Symbol& symbol : patterns[k].nodes()) {
            if (scene.pattern_of[symbol.index()] == no_pattern) {
                scene.pattern_of[symbol.index()] = static_cast<int>(k);
            }
        }
    }
}

class DotWriter {
public:
    DotWriter(const Scene& scene, const GraphOptions& options) : scene_(scene), options_(options) {}

    Picture write() {
        dot_.reserve(scene_.nodes.size() * 120 + 512);
        write_header(count_boxes());
        for (const Node& node : scene_.nodes) {
            if (!collapsed(node.index())) {
                write_node(node);
            }
        }
        if (options_.collapse_patterns) {
            write_pattern_boxes();
        }
        write_clusters();
        write_edges();
        dot_ += "}\n";
        return Picture(std::move(dot_), boxes_);
    }

private:
    bool collapsed(std::uint32_t index) const {
        return options_.collapse_patterns && scene_.pattern_of[index] != no_pattern;
    }

    bool derived(std::uint32_t index) const {
        return scene_.derived_from && index >= *scene_.derived_from;
    }

    // Boxes are numbered: node N is box N, collapsed pattern K box (node count + K).
    std::size_t box_of(std::uint32_t index) const {
        if (collapsed(index)) {
            return scene_.nodes.size() + static_cast<std::size_t>(scene_.pattern_of[index]);
        }
        return index;
    }

    // A box's DOT name: nN for node N, pK for collapsed pattern K.
    std::string name_of_box(std::size_t box) const {
        const bool is_pattern = box >= scene_.nodes.size();
        std::string name(1, is_pattern ? 'p' : 'n');
        name += std::to_string(is_pattern ? box - scene_.nodes.size() : box);
        return name;
    }

    std::size_t count_boxes() const {
        std::size_t boxes = options_.collapse_patterns ? scene_.patterns.size() : 0;
        for (const Node& node : scene_.nodes) {
            boxes += collapsed(node.index()) ? 0 : 1;
        }
        return boxes;
    }

    void write_header(std::size_t boxes) {
        dot_ += "digraph topos {\n  graph [rankdir=";
        dot_ += options_.left_to_right ? "LR" : "TB";
        dot_ += ", fontname=\"Helvetica\", fontsize=12, nodesep=0.25, ranksep=0.35";
        if (boxes > large_graph_boxes) {
            dot_ += ", nslimit=0, mclimit=0.1, splines=line";
        }
        if (!options_.title.empty()) {
            dot_ += ", labelloc=t, label=" + dot_quoted(options_.title);
        }
        dot_ += "];\n";
        // Graphviz sizes boxes by Helvetica's metrics; the wide side margin
        // keeps the label inside where a browser substitutes a wider font.
        dot_ +=
            "  node [fontname=\"Helvetica\", fontsize=10, height=0.3, margin=\"0.14,0.04\", "
            "style=filled, fillcolor=\"#ffffff\", color=\"#333333\"];\n"
            "  edge [fontname=\"Helvetica\", fontsize=8, arrowsize=0.6, color=\"#555555\"];\n";
    }

    static std::string_view kind_class(const Node& node) {
        switch (node.opcode()) {
            case Opcode::Parameter:
                return "parameter";
            case Opcode::Input:
                return node.dtype() == DType::Index ? "input indices" : "input";
            case Opcode::Leaf:
                return "leaf";
            default:
                return "op";
        }
    }

    static std::string_view kind_shape(const Node& node) {
        switch (node.opcode()) {
            case Opcode::Parameter:
                return "hexagon";
            case Opcode::Input:
                return "parallelogram";
            case Opcode::Leaf:
                return "ellipse";
            default:
                return "box";
        }
    }

    std::string label_of(const Node& node) const {
        std::string label = std::to_string(node.index()) + " " +
                            std::string(name_of(node.opcode())) + " " + node.shape().str();
        if (const std::string& value = scene_.values[node.index()]; !value.empty()) {
            label += " = " + value;
        }
        if (node.dtype() == DType::Index) {
            label += "\nindices";
        }
        if (const std::string& note = scene_.notes[node.index()]; !note.empty()) {
            label += "\n" + note;
        }
        return label;
    }

    // The words and looks every box shares: shading, fading, borders.
    void write_state(std::string classes, bool is_derived, bool faded, bool declared, bool marked) {
        std::string style = "filled";
        if (is_derived) {
            classes += " derived";
            dot_ += ", fillcolor=\"#d6e2f5\"";
        }
        if (faded) {
            classes += " unscheduled";
            style += ",dashed";
            dot_ += ", color=\"#b0b0b0\", fontcolor=\"#9a9a9a\"";
        }
        if (declared) {
            classes += " declared";
            dot_ += ", peripheries=2";
        }
        if (marked) {
            classes += " marked";
            dot_ += ", penwidth=3";
        }
        dot_ += ", style=\"" + style + "\", class=\"" + classes + "\"];\n";
    }

    // `  n3 [label="...", shape=box`: the rest of the box's attributes follow.
    void open_box(std::size_t box, std::string_view label, std::string_view shape) {
        dot_ += "  ";
        dot_ += name_of_box(box);
        dot_ += " [label=";
        dot_ += dot_quoted(label);
        dot_ += ", shape=";
        dot_ += shape;
    }

    void write_node(const Node& node) {
        const std::uint32_t i = node.index();
        open_box(i, label_of(node), kind_shape(node));
        write_state(std::string(kind_class(node)),
                    derived(i),
                    scene_.unscheduled[i],
                    scene_.declared[i],
                    scene_.marked[i]);
        ++boxes_;
    }

    // The scope each pattern is drawn in: the innermost holding all its nodes.
    std::vector<std::uint32_t> pattern_homes() const {
        std::vector<std::optional<std::uint32_t>> home(scene_.patterns.size());
        for (const Node& node : scene_.nodes) {
            const int k = scene_.pattern_of[node.index()];
            if (k != no_pattern) {
                std::optional<std::uint32_t>& found = home[static_cast<std::size_t>(k)];
                const std::uint32_t scope = scene_.scope_of[node.index()];
                found = found ? common_scope(scene_.scopes, *found, scope) : scope;
            }
        }
        std::vector<std::uint32_t> homes;
        homes.reserve(home.size());
        for (const std::optional<std::uint32_t>& found : home) {
            homes.push_back(found.value_or(top_scope));
        }
        return homes;
    }

    // Every box's cluster: name scopes nest as they were opened, a pattern
    // sits in the scope that holds all its nodes, and each node in its
    // pattern's cluster or else its scope's.
    void write_clusters() {
        const std::size_t scope_count = scene_.scopes.size();
        homes_ = pattern_homes();
        members_.assign(scope_count, {});
        for (const Node& node : scene_.nodes) {
            if (scene_.pattern_of[node.index()] == no_pattern) {
                members_[scene_.scope_of[node.index()]].push_back(name_of_box(node.index()));
            }
        }
        if (options_.collapse_patterns) {
            for (std::size_t k = 0; k < homes_.size(); ++k) {
                members_[homes_[k]].push_back(name_of_box(scene_.nodes.size() + k));
            }
        }
        children_.assign(scope_count, {});
        std::vector<bool> drawn(scope_count, false);
        for (std::size_t k = 0; k < homes_.size(); ++k) {
            drawn[homes_[k]] = true;
        }
        for (std::size_t scope = scope_count; scope-- > 1;) {
            drawn[scope] = drawn[scope] || !members_[scope].empty();
            if (drawn[scope]) {
                drawn[scene_.scopes[scope].parent] = true;
                children_[scene_.scopes[scope].parent].push_back(static_cast<std::uint32_t>(scope));
            }
        }
        write_scope_contents(top_scope, "  ");
    }

    void write_scope_contents(std::uint32_t scope, const std::string& indent) {
        if (!options_.collapse_patterns) {
            for (std::size_t k = 0; k < homes_.size(); ++k) {
                if (homes_[k] == scope) {
                    write_pattern_cluster(k, indent);
                }
            }
        }
        for (auto child = children_[scope].rbegin(); child != children_[scope].rend(); ++child) {
            write_scope_cluster(*child, indent);
        }
    }

    void write_scope_cluster(std::uint32_t scope, const std::string& indent) {
        dot_ += indent + "subgraph cluster_s" + std::to_string(scope) + " {\n" + indent +
                "  graph [label=" + dot_quoted(scene_.scope_labels[scope]) +
                ", class=\"scope\", style=\"rounded\", color=\"#8aa4c8\", "
                "fontcolor=\"#4a6285\", fontsize=10];\n";
        if (!members_[scope].empty()) {
            dot_ += indent + " ";
            for (const std::string& box : members_[scope]) {
                dot_ += ' ' + box + ';';
            }
            dot_ += '\n';
        }
        write_scope_contents(scope, indent + "  ");
        dot_ += indent + "}\n";
    }

    void write_pattern_cluster(std::size_t k, const std::string& indent) {
        const Pattern& pattern = scene_.patterns[k];
        dot_ += indent + "subgraph cluster_" + std::to_string(k) + " {\n" + indent +
                "  graph [label=" + dot_quoted(name_of(pattern.kind())) +
                ", class=\"pattern\", style=\"rounded,dashed\", color=\"#c08a00\", "
                "fontcolor=\"#8a6400\", fontsize=10];\n" +
                indent + " ";
        for (const Symbol& symbol : pattern.nodes()) {
            if (scene_.pattern_of[symbol.index()] == static_cast<int>(k)) {
                dot_ += ' ';
                dot_ += name_of_box(symbol.index());
                dot_ += ';';
            }
        }
        dot_ += '\n' + indent + "}\n";
    }

    void write_pattern_boxes() {
        for (std::size_t k = 0; k < scene_.patterns.size(); ++k) {
            const Pattern& pattern = scene_.patterns[k];
            bool any_derived = false;
            bool any_declared = false;
            bool any_marked = false;
            for (const Symbol& symbol : pattern.nodes()) {
                any_derived = any_derived || derived(symbol.index());
                any_declared = any_declared || scene_.declared[symbol.index()];
                any_marked = any_marked || scene_.marked[symbol.index()];
            }
            const std::string label = std::string(name_of(pattern.kind())) + "\n" +
                                      std::to_string(pattern.nodes().size()) + " nodes, root " +
                                      std::to_string(pattern.root().index());
            open_box(scene_.nodes.size() + k, label, "box3d");
            write_state("pattern", any_derived, false, any_declared, any_marked);
            ++boxes_;
        }
    }

    // Operand to reader, in operand order; a collapsed pattern's inner edges
    // vanish and its outer ones meet its box once per neighbour.
    void write_edges() {
        std::set<std::pair<std::size_t, std::size_t>> joined_to_patterns;
        for (const Node& node : scene_.nodes) {
            const std::span<const std::uint32_t> operands = node.operands();
            const std::size_t reader = box_of(node.index());
            for (std::size_t position = 0; position < operands.size(); ++position) {
                const std::size_t source = box_of(operands[position]);
                if (source == reader) {
                    continue;
                }
                if (collapsed(node.index())) {
                    if (joined_to_patterns.emplace(source, reader).second) {
                        write_edge(source, reader, "", false);
                    }
                    continue;
                }
                const std::string label =
                    operands.size() > 1 ? std::to_string(position) : std::string();
                write_edge(source, reader, label, scene_.unscheduled[node.index()]);
            }
        }
    }

    void write_edge(std::size_t source, std::size_t reader, const std::string& label, bool faded) {
        dot_ += "  ";
        dot_ += name_of_box(source);
        dot_ += " -> ";
        dot_ += name_of_box(reader);
        std::string attributes;
        if (!label.empty()) {
            attributes += "label=" + dot_quoted(label);
        }
        if (faded) {
            attributes += attributes.empty() ? "" : ", ";
            attributes += "style=dashed, color=\"#b0b0b0\", fontcolor=\"#9a9a9a\"";
        }
        dot_ += attributes.empty() ? ";\n" : " [" + attributes + "];\n";
    }

    const Scene& scene_;
    const GraphOptions& options_;
    std::string dot_;
    std::size_t boxes_ = 0;
    std::vector<std::uint32_t> homes_;                  // per pattern: its scope
    std::vector<std::vector<std::string>> members_;     // per scope: its own boxes
    std::vector<std::vector<std::uint32_t>> children_;  // per scope: the scopes drawn in it
};

Picture draw(const Scene& scene, const GraphOptions& options) {
    return DotWriter(scene, options).write();
}

}  // namespace

template <Element T>
Picture graph(const Tape<T>& tape, const GraphOptions& options) {
    Scene scene = scene_of(tape.nodes(), options);
    add_reading(scene, tape, options);
    return draw(scene, options);
}

template <Element T>
Picture graph(const Network<T>& network, const GraphOptions& options) {
    Scene scene = scene_of(network.nodes(), options);
    add_reading(scene, network, options);
    return draw(scene, options);
}

template <Element T>
Picture graph(const Network<T>& network, const Adjoints<T>& adjoints, GraphOptions options) {
    if (!options.derived_from) {
        options.derived_from = first_derived(network.nodes(), adjoints);
    }
    Scene scene = scene_of(network.nodes(), options);
    add_reading(scene, network, options);
    return draw(scene, options);
}

template <Element T>
Picture graph(const Plan<T>& plan, const GraphOptions& options) {
    const Network<T>& network = plan.entry().network();
    Scene scene = scene_of(network.nodes(), options);
    add_reading(scene, network, options);
    add_plan(scene, plan.nodes(), plan.entry().declared());
    add_patterns(scene, plan.patterns());
    return draw(scene, options);
}

template Picture graph(const Tape<float>&, const GraphOptions&);
template Picture graph(const Tape<double>&, const GraphOptions&);
template Picture graph(const Tape<bf16>&, const GraphOptions&);
template Picture graph(const Network<float>&, const GraphOptions&);
template Picture graph(const Network<double>&, const GraphOptions&);
template Picture graph(const Network<bf16>&, const GraphOptions&);
template Picture graph(const Network<float>&, const Adjoints<float>&, GraphOptions);
template Picture graph(const Network<double>&, const Adjoints<double>&, GraphOptions);
template Picture graph(const Network<bf16>&, const Adjoints<bf16>&, GraphOptions);
template Picture graph(const Plan<float>&, const GraphOptions&);
template Picture graph(const Plan<double>&, const GraphOptions&);
template Picture graph(const Plan<bf16>&, const GraphOptions&);

}  // namespace topos::show
