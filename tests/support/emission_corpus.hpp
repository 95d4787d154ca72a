// The plans every emission check runs over: for each computed opcode (its test
// spec, on three random draws), an inference plan, a training plan
// (forward-only over the recorded gradients), the same simplified
// (Entry::simplify) and the backward posture of its loss; and the plans the examples
// lower (the seeds' scalar chain, the walk-through, an MLP), in float and double;
// each opcode's graph and the walk-through again in bf16 (inference and training);
// plans that elect every pattern raising to a named operation
// (support/pattern_corpus.hpp); and small versions of the gallery's models
// (a CNN with batch norm, a transformer block), training and evaluation.
#pragma once

#include <topos/plan/plan.hpp>

#include <string>

namespace topos::test {

class EmissionCorpusVisitor {
public:
    virtual ~EmissionCorpusVisitor() = default;
    virtual void visit(const std::string& name, const Plan<float>& plan) = 0;
    virtual void visit(const std::string& name, const Plan<double>& plan) = 0;
    virtual void visit(const std::string& name, const Plan<bf16>& plan) = 0;
};

// Calls visitor.visit once per plan of the corpus, names unique and file-safe.
void visit_emission_corpus(EmissionCorpusVisitor& visitor);

}  // namespace topos::test
