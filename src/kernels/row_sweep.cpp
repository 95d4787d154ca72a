// The portable row sweep (one element at a time, std::fma) and the choice of
// sweep by instruction set, over B of the product's type or of bf16.
#include "kernels/row_sweep.hpp"

namespace topos::detail {

template <Element T>
void portable_row_sweep(const SweepOperands<T>& operands, std::size_t first, std::size_t count) {
    sweep_columns_one_by_one(operands, first, count);
}

template <Element T>
SweepFunction<T> row_sweep_for(Isa isa) {
    switch (isa) {
        case Isa::Portable:
            return portable_row_sweep<T>;
#if defined(__x86_64__)
        case Isa::Avx2:
            return avx2_row_sweep<T>;
        case Isa::Avx512:
            return avx512_row_sweep<T>;
#else
        case Isa::Avx2:
        case Isa::Avx512:
            break;
#endif
    }
    return portable_row_sweep<T>;
}

SweepFunction<float, bf16> widening_row_sweep_for(Isa isa) {
    switch (isa) {
        case Isa::Portable:
            return sweep_columns_one_by_one<float, bf16>;
#if defined(__x86_64__)
        case Isa::Avx2:
            return avx2_widening_row_sweep;
        case Isa::Avx512:
            return avx512_widening_row_sweep;
#else
        case Isa::Avx2:
        case Isa::Avx512:
            break;
#endif
    }
    return sweep_columns_one_by_one<float, bf16>;
}

template void portable_row_sweep<float>(const SweepOperands<float>&, std::size_t, std::size_t);
template void portable_row_sweep<double>(const SweepOperands<double>&, std::size_t, std::size_t);
template SweepFunction<float> row_sweep_for<float>(Isa);
template SweepFunction<double> row_sweep_for<double>(Isa);

}  // namespace topos::detail
