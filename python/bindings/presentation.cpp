// Presentation: pictures (graphs of tapes, networks and plans) that draw
// themselves in a notebook as SVG, plots (the live-volume curve, a user's
// curves), and the text readings.
#include "handles.hpp"
#include "module.hpp"
#include <topos/show/card.hpp>
#include <topos/show/graph.hpp>
#include <topos/show/picture.hpp>
#include <topos/show/plot.hpp>
#include <topos/show/report.hpp>

namespace topos::python {
namespace {

// An SVG document as a notebook embeds it: from its <svg> element on, without
// the XML declaration and DOCTYPE a page cannot hold inline.
std::string inline_svg(const std::string& document) {
    const std::size_t element = document.find("<svg");
    return element == std::string::npos ? document : document.substr(element);
}

template <ComputeElement T>
void bind_graphs(py::module_& show) {
    show.def("graph", [](OpenTape<T>& tape) { return show::graph(tape.open()); })
        .def("graph", [](const Network<T>& network) { return show::graph(network); })
        .def("graph",
             [](const Network<T>& network, const Adjoints<T>& adjoints) {
                 return show::graph(network, adjoints);
             })
        .def("graph", [](const Plan<T>& plan) { return show::graph(plan); })
        .def("live_volume", [](const Plan<T>& plan) { return show::live_volume(plan); });
}

// What a report or a notebook shows of a Python object: a picture or plot as
// itself, a string as preformatted text, anything else with _repr_html_ as
// that markup (topos's own cards without the style sheet a notebook needs
// and a report already holds).
show::Exhibit exhibit_of(const py::handle& object) {
    if (py::isinstance<show::Picture>(object)) {
        return object.cast<const show::Picture&>();
    }
    if (py::isinstance<show::Plot>(object)) {
        return object.cast<const show::Plot&>();
    }
    if (py::isinstance<py::str>(object)) {
        return show::Text(object.cast<std::string>());
    }
    if (!py::hasattr(object, "_repr_html_")) {
        throw py::type_error(
            "a report shows pictures, plots, strings and objects with _repr_html_; got " +
            py::str(py::type::of(object)).cast<std::string>());
    }
    std::string markup = object.attr("_repr_html_")().cast<std::string>();
    const std::string style_end = "</style>";
    if (markup.starts_with("<style>")) {
        markup.erase(0, markup.find(style_end) + style_end.size());
    }
    return show::Html(std::move(markup));
}

// The report's body after its style sheet, for a notebook cell.
std::string report_in_cell(const show::Report& report) {
    const std::string document = report.html();
    const std::size_t body = document.find("<body");
    const std::size_t opened = document.find('>', body);
    const std::size_t closed = document.rfind("</body>");
    if (body == std::string::npos || opened == std::string::npos || closed == std::string::npos) {
        return document;
    }
    return "<style>" + show::style_sheet() + "</style><div class=\"topos-report\">" +
           document.substr(opened + 1, closed - opened - 1) + "</div>";
}

}  // namespace

std::string notebook_html(const show::Html& card) {
    return "<style>" + show::style_sheet() + "</style>" + card.html();
}

void bind_presentation(py::module_& module) {
    py::module_ show = module.def_submodule("show", "Pictures, plots and cards (topos::show).");
    show.def("style_sheet", &show::style_sheet, "The CSS topos's cards, plots and pictures use.");
    py::class_<show::Picture>(show, "Picture", "A graph: DOT text, laid out as SVG by Graphviz.")
        .def("dot", &show::Picture::dot)
        .def("svg", &show::Picture::svg)
        .def_property_readonly("nodes", &show::Picture::nodes)
        .def_static("can_lay_out", &show::Picture::can_lay_out)
        .def("_repr_svg_", [](const show::Picture& picture) { return inline_svg(picture.svg()); })
        .def("__repr__", [](const show::Picture& picture) {
            return "<topos.show.Picture, " + std::to_string(picture.nodes()) + " nodes>";
        });
    py::enum_<show::Axis>(show, "Axis")
        .value("Linear", show::Axis::Linear)
        .value("Log", show::Axis::Log);
    py::class_<show::Plot>(show, "Plot", "Curves over steps: SVG for a page, text for a terminal.")
        .def(py::init<>())
        .def(
            "title",
            [](show::Plot& plot, std::string text) -> show::Plot& {
                return plot.title(std::move(text));
            },
            py::return_value_policy::reference_internal)
        .def(
            "x_label",
            [](show::Plot& plot, std::string text) -> show::Plot& {
                return plot.x_label(std::move(text));
            },
            py::return_value_policy::reference_internal)
        .def(
            "y_label",
            [](show::Plot& plot, std::string text) -> show::Plot& {
                return plot.y_label(std::move(text));
            },
            py::return_value_policy::reference_internal)
        .def(
            "y_axis",
            [](show::Plot& plot, show::Axis axis) -> show::Plot& { return plot.y_axis(axis); },
            py::arg("axis"),
            py::return_value_policy::reference_internal)
        .def(
            "line",
            [](show::Plot& plot,
               std::string label,
               std::vector<double> y,
               std::optional<std::vector<double>> x) -> show::Plot& {
                return x ? plot.line(std::move(label), std::move(*x), std::move(y))
                         : plot.line(std::move(label), std::move(y));
            },
            py::arg("label"),
            py::arg("y"),
            py::arg("x") = py::none(),
            py::return_value_policy::reference_internal)
        .def("svg", &show::Plot::svg, py::arg("width") = 640, py::arg("height") = 360)
        .def("text", &show::Plot::text, py::arg("width") = 72, py::arg("height") = 16)
        .def("__str__", [](const show::Plot& plot) { return plot.text(); })
        .def("_repr_svg_", [](const show::Plot& plot) { return inline_svg(plot.svg()); })
        .def("__repr__", [](const show::Plot& plot) {
            return "<topos.show.Plot, " + std::to_string(plot.series().size()) + " series>";
        });
    py::enum_<show::Layout>(show, "Layout")
        .value("Sections", show::Layout::Sections)
        .value("Tabs", show::Layout::Tabs);
    py::class_<show::Report>(
        show, "Report", "Exhibits under titles, written as one self-contained page.")
        .def(py::init<std::string, show::Layout>(),
             py::arg("title"),
             py::arg("layout") = show::Layout::Sections)
        .def(
            "add",
            [](show::Report& report, std::string title, const py::handle& exhibit)
                -> show::Report& { return report.add(std::move(title), exhibit_of(exhibit)); },
            py::arg("title"),
            py::arg("exhibit"),
            py::return_value_policy::reference_internal)
        .def("html", &show::Report::html)
        .def(
            "write",
            [](const show::Report& report, const std::string& path) { report.write(path); },
            py::arg("path"))
        .def("_repr_html_", &report_in_cell);
    bind_graphs<float>(show);
    bind_graphs<double>(show);
}

}  // namespace topos::python
