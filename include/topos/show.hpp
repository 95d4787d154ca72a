// The presentation layer: pictures of graphs (show::graph), charts
// (show::Plot, show::live_volume), HTML cards for every type (show::card) and
// self-contained reports (show::Report). It sits above every other layer and
// reads only their public API; see docs/guide/reading.md.
#pragma once

#include <topos/show/card.hpp>
#include <topos/show/graph.hpp>
#include <topos/show/html.hpp>
#include <topos/show/picture.hpp>
#include <topos/show/plot.hpp>
#include <topos/show/report.hpp>
