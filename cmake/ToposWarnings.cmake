# topos_warnings: the warning set every target of the project compiles with.
add_library(topos_warnings INTERFACE)
target_compile_options(topos_warnings INTERFACE
    -Wall -Wextra -Wpedantic -Werror=switch
    $<$<BOOL:${TOPOS_WARNINGS_AS_ERRORS}>:-Werror>)

# topos_exact_floating_point: what exactness needs of every file that computes
# (see docs/exact-math.md): no silent contraction of a * b + c into fma, and
# never fast-math. The library and everything of the project that includes its
# private headers link it.
add_library(topos_exact_floating_point INTERFACE)
target_compile_options(topos_exact_floating_point INTERFACE -ffp-contract=off -fno-fast-math)
