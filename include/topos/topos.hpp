// topos: record a computation on a tape, seal it into a network, run it through
// the exact interpreter, differentiate it, lower it to plans, train models on
// it, read it. One include for all of the topos library (topos::topos): the
// compiler and model maps, data, the presentation layer (show) and the
// playground's language (lang). It leaves out <topos/distributed.hpp>:
// data-parallel training on MPI is a library and package component of its own
// (topos::distributed, built where MPI is found), so a program that uses it
// includes that header and links that component.
#pragma once

#include <topos/compiler.hpp>
#include <topos/config.hpp>
#include <topos/data.hpp>
#include <topos/lang/play.hpp>
#include <topos/lang/program.hpp>
#include <topos/lang/readings.hpp>
#include <topos/model.hpp>
#include <topos/show.hpp>
