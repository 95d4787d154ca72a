// Picture::svg and Picture::html: DOT text laid out by Graphviz's library where
// this build has it, and said plainly where it does not.
#include <topos/config.hpp>
#include <topos/show/picture.hpp>

#include <string>
#include <string_view>

#if TOPOS_HAS_GRAPHVIZ
#include <atomic>
#include <cstdint>
#include <gvc.h>
#include <memory>
#include <mutex>
#if defined(__GLIBC__)
#include <dlfcn.h>
#include <link.h>
#endif
#if defined(__SANITIZE_ADDRESS__)
#define TOPOS_SHOW_LEAK_CHECKED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(leak_sanitizer)
#define TOPOS_SHOW_LEAK_CHECKED 1
#endif
#endif
#if defined(TOPOS_SHOW_LEAK_CHECKED)
#include <sanitizer/lsan_interface.h>
#endif
#endif

namespace topos::show {

namespace {

#if TOPOS_HAS_GRAPHVIZ

// The SVG document without what may not appear inside HTML (the <?xml ...?>
// prolog and the <!DOCTYPE ...> declaration), its ids (Graphviz numbers them
// graph0, node1, ... in every picture) prefixed so that several pictures can
// share one page.
std::string inline_svg(const std::string& document) {
    static std::atomic<std::uint64_t> pictures{0};
    const std::string prefix = "topos-picture" + std::to_string(pictures++) + "-";
    const std::size_t start = document.find("<svg");
    std::string svg = start == std::string::npos ? document : document.substr(start);
    constexpr std::string_view id = " id=\"";
    for (std::size_t at = svg.find(id); at != std::string::npos; at = svg.find(id, at)) {
        at += id.size();
        svg.insert(at, prefix);
    }
    return svg;
}

// The document without Graphviz's <!DOCTYPE svg PUBLIC ...>: it names a DTD by
// URL, which no reader needs and a self-contained file should not mention.
std::string without_doctype(std::string svg) {
    const std::size_t start = svg.find("<!DOCTYPE");
    if (start != std::string::npos) {
        const std::size_t end = svg.find('>', start);
        svg.erase(start, end == std::string::npos ? std::string::npos : end + 1 - start);
        if (start < svg.size() && svg[start] == '\n') {
            svg.erase(start, 1);
        }
    }
    return svg;
}

// Graphviz keeps global state (its error handler, its parser): one picture at a time.
std::mutex& graphviz_mutex() {
    static std::mutex mutex;
    return mutex;
}

// What Graphviz said while the lock was held; its error handler is a plain
// function, so the messages go through this (guarded) string.
std::string& graphviz_messages() {
    static std::string messages;
    return messages;
}

int collect_message(char* message) {
    graphviz_messages() += message;
    return 0;
}

// The reason Graphviz gave, trimmed; `fallback` when it said nothing.
std::string reason(std::string_view fallback) {
    std::string said = graphviz_messages();
    while (!said.empty() && (said.back() == '\n' || said.back() == ' ')) {
        said.pop_back();
    }
    if (said.starts_with("Error: ")) {
        said.erase(0, 7);
    }
    return said.empty() ? std::string(fallback) : said;
}

// gvRenderData's length is `unsigned int*` in Graphviz 2 and may widen later:
// take whatever this build's header declares.
template <class Format, class Length>
Length length_type(int (*)(GVC_t*, graph_t*, Format, char**, Length*));
using RenderLength = decltype(length_type(&gvRenderData));

#if defined(__GLIBC__)

// The folder libgvc was loaded from: Graphviz keeps its plugins in its
// `graphviz` subfolder and finds them the same way.
std::string graphviz_library_folder() {
    std::string library;
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void* found) {
            const std::string_view name = info->dlpi_name != nullptr ? info->dlpi_name : "";
            if (name.find("/libgvc.") == std::string_view::npos) {
                return 0;
            }
            *static_cast<std::string*>(found) = name;
            return 1;
        },
        &library);
    return library.substr(0, library.rfind('/'));
}

// The plugin library `name` (core, dot_layout) of plugin API 6, or null.
void* plugin_library(const std::string& folder, const std::string& name) {
    for (const char* suffix : {".so.6", ".so"}) {
        std::string path = folder;
        path += "/graphviz/libgvplugin_";
        path += name;
        path += suffix;
        void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (handle != nullptr) {
            return dlsym(handle, ("gvplugin_" + name + "_LTX_library").c_str());
        }
    }
    return nullptr;
}

// A context with only the dot layout and the SVG writer: without a text layout
// plugin Graphviz sizes labels from its own font metrics, so the SVG is the
// same on every machine, and pango (which leaks its font caches, failing leak
// checks) is never loaded.
GVC_t* lean_context() {
    const std::string folder = graphviz_library_folder();
    void* const core = plugin_library(folder, "core");
    void* const layout = plugin_library(folder, "dot_layout");
    if (folder.empty() || core == nullptr || layout == nullptr) {
        return nullptr;
    }
    static const lt_symlist_t builtins[] = {{"gvplugin_core_LTX_library", core},
                                            {"gvplugin_dot_layout_LTX_library", layout},
                                            {nullptr, nullptr}};
    return gvContextPlugins(builtins, 0);
}

#else

GVC_t* lean_context() {
    return nullptr;
}

#endif

// One context for the process, made once and never freed: Graphviz 2.4x's
// pango plugin (loaded where the lean context cannot be made) keeps a pointer
// to the last font name it measured, a string the context owns, so a freed
// context leaves the next layout reading freed memory.
GVC_t* shared_context() {
    static GVC_t* const context = [] {
        GVC_t* const lean = lean_context();
        return lean != nullptr ? lean : gvContext();
    }();
    return context;
}

// Graphviz 2.4x's dot leaks the virtual nodes and edges it makes to lay out
// clusters (a long-standing upstream bug, some kilobytes per picture). Under a
// leak checker the allocations Graphviz makes on this thread are not tracked,
// so that a program drawing a plan with patterns still passes its leak check.
class UntrackedAllocations {
public:
    UntrackedAllocations() {
#if defined(TOPOS_SHOW_LEAK_CHECKED)
        __lsan_disable();
#endif
    }

    UntrackedAllocations(const UntrackedAllocations&) = delete;
    UntrackedAllocations& operator=(const UntrackedAllocations&) = delete;

    ~UntrackedAllocations() {
#if defined(TOPOS_SHOW_LEAK_CHECKED)
        __lsan_enable();
#endif
    }
};

struct GraphCloser {
    void operator()(Agraph_t* graph) const { agclose(graph); }
};

// The messages handler, set for the lifetime of one call and restored after.
class MessageCapture {
public:
    MessageCapture() : previous_(agseterrf(collect_message)) { graphviz_messages().clear(); }

    MessageCapture(const MessageCapture&) = delete;
    MessageCapture& operator=(const MessageCapture&) = delete;

    ~MessageCapture() { agseterrf(previous_); }

private:
    agusererrf previous_;
};

std::string render_svg(GVC_t* context, Agraph_t* graph) {
    if (gvLayout(context, graph, "dot") != 0) {
        gvFreeLayout(context, graph);
        throw ShowError("Graphviz could not lay out the picture: " + reason("no reason given"));
    }
    char* data = nullptr;
    RenderLength length = 0;
    const int rendered = gvRenderData(context, graph, "svg", &data, &length);
    std::string svg = rendered == 0 && data != nullptr ? std::string(data, length) : std::string();
    if (data != nullptr) {
        gvFreeRenderData(data);
    }
    gvFreeLayout(context, graph);
    if (rendered != 0 || svg.empty()) {
        throw ShowError("Graphviz could not write the picture as SVG: " +
                        reason("is its svg plugin installed? (`dot -c` registers plugins)"));
    }
    return svg;
}

#else

constexpr std::string_view no_graphviz_advice =
    "this build of topos has no Graphviz library, so a picture has no SVG; install it "
    "(Debian: apt-get install libgraphviz-dev pkg-config) and reconfigure topos, or lay out "
    "the picture's dot() text yourself with `dot -Tsvg`";

#endif

}  // namespace

bool Picture::can_lay_out() {
    return TOPOS_HAS_GRAPHVIZ != 0;
}

#if TOPOS_HAS_GRAPHVIZ

std::string Picture::svg() const {
    const std::lock_guard lock(graphviz_mutex());
    const MessageCapture capture;
    const UntrackedAllocations untracked;
    GVC_t* const context = shared_context();
    if (context == nullptr) {
        throw ShowError("Graphviz could not start: " + reason("gvContext() failed"));
    }
    const std::unique_ptr<Agraph_t, GraphCloser> graph(agmemread(dot_.c_str()));
    if (!graph) {
        throw ShowError("Graphviz rejected the picture's DOT text: " + reason("it holds no graph"));
    }
    return without_doctype(render_svg(context, graph.get()));
}

Html Picture::html() const {
    return Html("<div class=\"topos-picture\">" + inline_svg(svg()) + "</div>");
}

#else

std::string Picture::svg() const {
    throw GraphvizUnavailable(std::string(no_graphviz_advice));
}

Html Picture::html() const {
    return Html("<div class=\"topos-picture topos-picture-dot\"><p>" + escape(no_graphviz_advice) +
                ".</p><pre class=\"topos-dot\">" + escape(dot_) + "</pre></div>");
}

#endif

}  // namespace topos::show
