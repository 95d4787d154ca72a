# topos_warnings: the warning set every target of the project compiles with.
add_library(topos_warnings INTERFACE)
target_compile_options(topos_warnings INTERFACE
    -Wall -Wextra -Wpedantic -Werror=switch
    $<$<BOOL:${TOPOS_WARNINGS_AS_ERRORS}>:-Werror>)
