// The emission corpus's plans that elect every pattern that raises to a named
// StableHLO operation: strided, padded, dilated convolutions with max and
// average pooling, a window sum written by hand, a conv net's training plan
// over its recorded derivative (the filter gradient's transposed window
// product), and batch norm training (statistics observed) and inference, in
// float and double.
#pragma once

#include "support/emission_corpus.hpp"

namespace topos::test {

void visit_pattern_plans(EmissionCorpusVisitor& visitor);

}  // namespace topos::test
