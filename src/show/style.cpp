// show::style_sheet: the one CSS text every report embeds. It styles the cards,
// the preformatted text and StableHLO blocks, the Graphviz pictures (by the
// classes show::graph gives each node), the plots, and the report's layout:
// sections with a table of contents, or tabs made of hidden radio inputs and
// their labels (CSS only). It holds no '<' and no '&', so it embeds as text in
// a well-formed document.
#include <topos/show/card.hpp>

#include <string>

namespace topos::show {
namespace {

constexpr const char* page_rules = R"css(
body.topos-report {
  margin: 0 auto; padding: 1.5rem; max-width: 72rem; color: #1e1e1e; background: #ffffff;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif;
  font-size: 15px; line-height: 1.45;
}
.topos-report h1 { font-size: 1.6rem; margin: 0 0 1rem; }
.topos-report h2 { font-size: 1.2rem; margin: 0 0 0.6rem; border-bottom: 1px solid #dddddd; }
nav.topos-toc { margin: 0 0 1.5rem; padding: 0.6rem 1rem; background: #f6f7f9; border-radius: 6px; }
nav.topos-toc ol { margin: 0; padding-left: 1.4rem; }
nav.topos-toc a { color: #1a5fb4; text-decoration: none; }
nav.topos-toc a:hover { text-decoration: underline; }
section.topos-exhibit { margin: 0 0 2rem; }
)css";

constexpr const char* tab_rules = R"css(
.topos-tabs { display: flex; flex-wrap: wrap; align-items: flex-end; }
.topos-tabs > input[type="radio"] {
  position: absolute; width: 1px; height: 1px; margin: 0; opacity: 0; overflow: hidden;
}
.topos-tabs > label {
  order: 1; padding: 0.4rem 0.9rem; margin-right: 0.2rem; cursor: pointer;
  background: #eef0f3; border: 1px solid #d0d4da; border-bottom: none; border-radius: 6px 6px 0 0;
}
.topos-tabs > input:checked + label { background: #ffffff; font-weight: 600; }
.topos-tabs > input:focus-visible + label { outline: 2px solid #1a5fb4; }
.topos-tabs > section {
  order: 2; display: none; width: 100%; padding: 1rem 0; border-top: 1px solid #d0d4da;
}
.topos-tabs > input:checked + label + section { display: block; }
.topos-tabs > section > h2 { display: none; }
)css";

constexpr const char* card_rules = R"css(
.topos-card {
  max-width: 100%; overflow-x: auto; margin: 0.8rem 0; padding: 0.6rem 0.8rem;
  background: #ffffff; border: 1px solid #d0d4da; border-radius: 6px; font-size: 0.9rem;
}
.topos-card-header { margin-bottom: 0.4rem; font-family: ui-monospace, Menlo, Consolas, monospace; font-weight: 600; }
.topos-card-section { margin: 0.6rem 0 0.2rem; font-weight: 600; color: #444444; }
.topos-card table { border-collapse: collapse; font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 0.85rem; }
.topos-card caption { caption-side: top; text-align: left; white-space: nowrap; padding-bottom: 0.2rem; color: #555555; }
.topos-card th, .topos-card td { padding: 0.15rem 0.5rem; border: 1px solid #e3e5e8; vertical-align: top; }
.topos-card th { background: #f6f7f9; font-weight: 600; text-align: left; }
.topos-values td { text-align: right; font-variant-numeric: tabular-nums; }
.topos-values th { color: #666666; font-weight: normal; text-align: right; }
.topos-card td.nonfinite, .topos-scalar.nonfinite { background: #fff1c2; color: #a51d2d; font-weight: 600; }
.topos-fields th { width: 9rem; }
.topos-nodes td.topos-index { text-align: right; color: #555555; }
.topos-nodes td.topos-op { font-weight: 600; }
.topos-nodes a { color: #1a5fb4; text-decoration: none; }
.topos-nodes a:hover { text-decoration: underline; }
.topos-nodes tr:target { background: #fff6d5; }
.topos-elided td { text-align: center; color: #777777; font-style: italic; }
.topos-elided-ref, .topos-attributes { color: #777777; }
.topos-freed { color: #555555; }
.topos-kept { color: #26a269; font-weight: 600; }
.topos-retained { color: #1a5fb4; }
.topos-releasable { color: #986a44; }
.topos-fused { color: #813d9c; }
.topos-stats { margin: 0.2rem 0 0.5rem; }
.topos-stat { margin-right: 1.2rem; }
.topos-stat b { font-family: ui-monospace, Menlo, Consolas, monospace; font-weight: 600; }
.topos-scalar { display: inline-block; margin: 0.2rem 0; padding: 0.1rem 0.4rem; font-family: ui-monospace, monospace; font-size: 1.1rem; }
.topos-summary { margin: 0.3rem 0; font-family: ui-monospace, Menlo, Consolas, monospace; color: #333333; white-space: pre-wrap; }
.topos-note { margin: 0.3rem 0; color: #666666; font-style: italic; }
.topos-patterns { margin: 0.2rem 0; padding-left: 1.4rem; font-family: ui-monospace, monospace; }
.topos-histogram-frame { display: inline-block; }
svg.topos-histogram { display: block; background: #fafbfc; border-bottom: 1px solid #999999; }
svg.topos-histogram rect.topos-bar { fill: #3584e4; }
svg.topos-histogram rect.topos-bar:hover { fill: #1a5fb4; }
.topos-range { display: flex; justify-content: space-between; font-family: ui-monospace, monospace; font-size: 0.8rem; color: #555555; }
.topos-card-plot { margin-top: 0.6rem; }
)css";

constexpr const char* text_rules = R"css(
pre.topos-text, pre.topos-hlo, .topos-text pre, .topos-hlo pre {
  margin: 0.6rem 0; padding: 0.6rem 0.8rem; overflow-x: auto; background: #f8f9fa;
  border: 1px solid #e3e5e8; border-radius: 6px;
  font-family: ui-monospace, Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 0.85rem; line-height: 1.35;
}
.hlo-op { color: #1a5fb4; font-weight: 600; }
.hlo-type { color: #26a269; }
.hlo-value { color: #a51d2d; }
.hlo-number { color: #c64600; }
.hlo-keyword { color: #813d9c; font-weight: 600; }
.hlo-comment { color: #77767b; font-style: italic; }
)css";

constexpr const char* picture_rules = R"css(
.topos-picture { max-width: 100%; overflow-x: auto; }
.topos-picture svg, .topos-plot svg { max-width: 100%; height: auto; }
.topos-picture g.node polygon, .topos-picture g.node ellipse { fill: #ffffff; stroke: #444444; }
.topos-picture g.node.parameter polygon, .topos-picture g.node.parameter ellipse { fill: #fdf0c4; }
.topos-picture g.node.input polygon, .topos-picture g.node.input ellipse { fill: #dbeafc; }
.topos-picture g.node.leaf polygon, .topos-picture g.node.leaf ellipse { fill: #ececec; }
.topos-picture g.node.derived polygon, .topos-picture g.node.derived ellipse { fill: #f1e2f6; }
.topos-picture g.node.declared polygon, .topos-picture g.node.declared ellipse { stroke: #1a5fb4; }
.topos-picture g.node.marked polygon, .topos-picture g.node.marked ellipse { stroke: #c01c28; stroke-width: 3; }
.topos-picture g.node.pattern polygon { fill: #fff4dc; stroke: #e5a50a; }
.topos-picture g.cluster.pattern polygon { fill: #fffaf0; stroke: #e5a50a; stroke-dasharray: 4 2; }
.topos-picture g.cluster.scope polygon { fill: #f5f8fc; stroke: #8aa4c8; }
.topos-picture .unscheduled { opacity: 0.35; }
.topos-picture text { font-family: ui-monospace, Menlo, Consolas, monospace; }
.topos-plot { margin: 0.6rem 0; }
.topos-plot text { font-family: system-ui, sans-serif; }
)css";

constexpr const char* print_rules = R"css(
@media print {
  body.topos-report { max-width: none; padding: 0; font-size: 11pt; }
  nav.topos-toc a { color: inherit; }
  .topos-tabs > label { display: none; }
  .topos-tabs > section { display: block; border-top: none; }
  .topos-tabs > section > h2 { display: block; }
  section.topos-exhibit, .topos-tabs > section { break-before: auto; }
  .topos-card, .topos-picture, .topos-plot { break-inside: avoid; }
  .topos-card { overflow: visible; }
  pre.topos-text, pre.topos-hlo, .topos-text pre, .topos-hlo pre { white-space: pre-wrap; overflow: visible; }
}
)css";

}  // namespace

const std::string& style_sheet() {
    static const std::string sheet =
        std::string(page_rules) + tab_rules + card_rules + text_rules + picture_rules + print_rules;
    return sheet;
}

}  // namespace topos::show
