// The floats whose exact results lie nearest a midpoint between two floats,
// eight normal and eight subnormal results (where a function has them) for
// each exact function, found among all 2^32 float bit patterns by
//   build/tools/topos_float_hard_cases 8
// (tools/float_hard_cases.cpp; the distances are in units of the result's
// last place as a double).
// Rounding them to float needs nearly all of the exact result: the float
// shortcut must leave them to the exact lanes.
#pragma once

#include "kernels/transcendental.hpp"

#include <array>
#include <cstdint>

namespace topos::test {

using detail::ExactFunction;

struct FloatHardCases {
    ExactFunction function;
    std::array<std::uint32_t, 8> patterns;  // float bit patterns
};

inline constexpr FloatHardCases float_hard_cases[] = {
    // The tool's rows, as it prints them.
    // clang-format off
    // normal results: distances from the midpoint: 1 2 3 4 4 4 4 5
    {ExactFunction::Exp, {0xc16912cdu, 0xbbf0edf1u, 0x377eff81u, 0x38e69cc1u, 0x39c6be5bu, 0xb3000000u, 0xbae0e25cu, 0x383a3ef1u}},
    // subnormal results: distances from the midpoint: 39 193 803 8479 11149 12539 12571 16868
    {ExactFunction::Exp, {0xc2b2e798u, 0xc2b27dd9u, 0xc2b43fb7u, 0xc2af8231u, 0xc2b79f85u, 0xc2b1c033u, 0xc2b1189fu, 0xc2afaf2eu}},
    // normal results: distances from the midpoint: 5 5 9 9 13 13 14 14
    {ExactFunction::Tanh, {0x3ac37de2u, 0xbac37de2u, 0x3eee0566u, 0xbeee0566u, 0x3cd41b91u, 0xbcd41b91u, 0x40acb4d0u, 0xc0acb4d0u}},
    // normal results: distances from the midpoint: 0 0 0 0 0 0 0 0
    {ExactFunction::Sigmoid, {0x34000000u, 0x34c00000u, 0x35200000u, 0x35600000u, 0x35900000u, 0x35b00000u, 0x35d00000u, 0x35f00000u}},
    // subnormal results: distances from the midpoint: 39 193 803 8479 11149 12539 12571 16868
    {ExactFunction::Sigmoid, {0xc2b2e798u, 0xc2b27dd9u, 0xc2b43fb7u, 0xc2af8231u, 0xc2b79f85u, 0xc2b1c033u, 0xc2b1189fu, 0xc2afaf2eu}},
    // normal results: distances from the midpoint: 0 0 3 3 4 4 4 4
    {ExactFunction::Erf, {0x3940ead6u, 0xb940ead6u, 0x39c0057du, 0xb9c0057du, 0x358e9d2du, 0x36aea466u, 0xb58e9d2du, 0xb6aea466u}},
    // subnormal results: distances from the midpoint: 1241 1241 1257 1257 1305 1305 1337 1337
    {ExactFunction::Erf, {0x00706afeu, 0x80706afeu, 0x001ce387u, 0x801ce387u, 0x003bfff1u, 0x803bfff1u, 0x006bf938u, 0x806bf938u}},
    // normal results: distances from the midpoint: 1 1 2 2 3 3 3 3
    {ExactFunction::Gelu, {0x37b0a46fu, 0xb7b0a46fu, 0x38ca1be2u, 0xb8ca1be2u, 0x38028e89u, 0x3eada244u, 0xb8028e89u, 0xc0925885u}},
    // subnormal results: distances from the midpoint: 0 0 0 0 0 0 0 0
    {ExactFunction::Gelu, {0x00000001u, 0x00000003u, 0x00000005u, 0x00000007u, 0x00000009u, 0x0000000bu, 0x0000000du, 0x0000000fu}},
    // normal results: distances from the midpoint: 0 0 0 0 0 0 0 0
    {ExactFunction::Log, {0x1f116ab8u, 0x3c413d3au, 0x41178febu, 0x4c5d65a5u, 0x4d604ebeu, 0x65d890d3u, 0x66a8c860u, 0x6f31a8ecu}},
    // normal results: distances from the midpoint: 0 1 1 2 3 4 5 5
    {ExactFunction::Softplus, {0x39ea41d0u, 0x3ad68ba7u, 0x40a3f888u, 0x398b9622u, 0xb36fa39fu, 0x3a294d42u, 0x3aef7621u, 0xbe6064b3u}},
    // subnormal results: distances from the midpoint: 39 193 803 8479 11149 12539 12571 16868
    {ExactFunction::Softplus, {0xc2b2e798u, 0xc2b27dd9u, 0xc2b43fb7u, 0xc2af8231u, 0xc2b79f85u, 0xc2b1c033u, 0xc2b1189fu, 0xc2afaf2eu}},
    // clang-format on
};

}  // namespace topos::test
