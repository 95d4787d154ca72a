# topos_warnings: the warning set every target of the project compiles with.
add_library(topos_warnings INTERFACE)
target_compile_options(topos_warnings INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Werror=switch>
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${TOPOS_WARNINGS_AS_ERRORS}>>:-Werror>
    # g++ 12 warns of an overlapping memcpy inside libstdc++ wherever a short
    # literal is added to a std::string at -O2 and above (GCC bug 105329, fixed
    # in g++ 13): the warning is about the library's code, never ours.
    $<$<AND:$<COMPILE_LANG_AND_ID:CXX,GNU>,$<VERSION_LESS:$<CXX_COMPILER_VERSION>,13>>:-Wno-restrict>
    # In a unity build g++ takes every source but the first of a unity source
    # for a header, and warns where a lambda captures a type of that source's
    # anonymous namespace, as it would in a header included twice; a source
    # is compiled once.
    $<$<AND:$<COMPILE_LANG_AND_ID:CXX,GNU>,$<BOOL:${CMAKE_UNITY_BUILD}>>:-Wno-subobject-linkage>
    # CUDA sources (src/backend/cuda/): the host compiler's warnings, and nvcc's own.
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>
    $<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<BOOL:${TOPOS_WARNINGS_AS_ERRORS}>>:-Werror=all-warnings>)

# topos_exact_floating_point: what exactness needs of every file that computes
# (see docs/exact-math.md): no silent contraction of a * b + c into fma, and
# never fast-math. The library and everything of the project that includes its
# private headers link it. -fno-math-errno changes no value: it only spares
# std::sqrt the errno check of a negative operand, so that the correctly
# rounded square root is one instruction and its loops take vector lanes.
add_library(topos_exact_floating_point INTERFACE)
# CUDA kernels serve only Numerics::Fast, so the flags are the C++ compiler's.
target_compile_options(topos_exact_floating_point INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-ffp-contract=off -fno-fast-math -fno-math-errno>)
