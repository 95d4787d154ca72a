// StableHLO emission: a plan written as an MLIR module of the StableHLO dialect,
// the text an industrial compiler (XLA, IREE) reads. Two spellings of one
// module: MLIR's pretty (custom) form, and its generic operation form, which any
// MLIR build parses even without the StableHLO dialect registered.
#pragma once

#include <cstdint>
#include <iosfwd>

namespace topos {

enum class MlirForm : std::uint8_t {
    Pretty,   // `%v3 = stablehlo.multiply %arg0, %arg1 : tensor<f64>`
    Generic,  // `%v3 = "stablehlo.multiply"(%arg0, %arg1) : (...) -> tensor<f64>`
};

std::ostream& operator<<(std::ostream& out, MlirForm form);

}  // namespace topos
