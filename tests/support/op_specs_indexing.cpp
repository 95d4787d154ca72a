// The record functions of the indexing opcodes' specs: Gather, ScatterAdd and
// OneHot on random index tensors (recorded with tape.indices, with repeats),
// each with a call its shape rule rejects.
#include "support/op_specs_records.hpp"

#include <span>

namespace topos::test::records {
namespace {

// Index values uniform in [0, bound), recorded with tape.indices.
Value<double> random_indices(Tape<double>& tape, Rng& rng, const Shape& shape, std::size_t bound) {
    return tape.indices(Tensor<double>::generate(shape, [&](std::span<double> out) {
        for (double& index : out) {
            index = static_cast<double>(rng.between(0, bound - 1));
        }
    }));
}

}  // namespace

// ---- indexing ----

// Picks with repeats (indices of rank 0 to 2 from up to 4 rows), so rows gather
// several times and scatter-add accumulates.
OpCase record_gather(Tape<double>& tape, Rng& rng) {
    const std::size_t rows = rng.between(1, 4);
    const Shape table_shape = rng.shape(0, 2, 3).with_axis(0, rows);
    const Value<double> table = source(tape, 0, rng.tensor<double>(table_shape, -1.0, 1.0));
    const Value<double> picks = random_indices(tape, rng, rng.shape(0, 2, 3), rows);
    return {{table}, table.apply(Opcode::Gather, {table, picks}), {picks}};
}

void invalid_gather(Tape<double>& tape) {
    const Value<double> table = parameter_of(tape, {});
    table.apply(Opcode::Gather, {table, tape.indices({2}, {0, 0})});
}

OpCase record_scatter_add(Tape<double>& tape, Rng& rng) {
    const std::size_t rows = rng.between(1, 4);
    const Shape picks_shape = rng.shape(0, 2, 3);
    const Value<double> picks = random_indices(tape, rng, picks_shape, rows);
    Shape updates_shape = picks_shape;
    const Shape rest = rng.shape(0, 2, 3);  // named: extents() views its storage
    for (std::size_t extent : rest.extents()) {
        updates_shape = updates_shape.with_axis(updates_shape.rank(), extent);
    }
    const Value<double> updates = source(tape, 0, rng.tensor<double>(updates_shape, -1.0, 1.0));
    return {{updates},
            picks.apply(Opcode::ScatterAdd, {picks, updates}, RowsAttributes{rows}),
            {picks}};
}

void invalid_scatter_add(Tape<double>& tape) {
    const Value<double> picks = tape.indices({2}, {0, 1});
    picks.apply(Opcode::ScatterAdd, {picks, parameter_of(tape, {3, 4})}, RowsAttributes{2});
}

OpCase record_one_hot(Tape<double>& tape, Rng& rng) {
    const std::size_t depth = rng.between(1, 4);
    const Value<double> picks = random_indices(tape, rng, rng.shape(0, 2, 3), depth);
    return {{}, picks.one_hot(depth), {picks}};
}

void invalid_one_hot(Tape<double>& tape) {
    // Reals where indices belong.
    parameter_of(tape, {2, 3}).one_hot(3);
}

}  // namespace topos::test::records
