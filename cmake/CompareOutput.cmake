# Runs PROGRAM (with `--report REPORT` when REPORT is set: a gallery example
# that writes its HTML report there; with the one argument ARGUMENT when that
# is set) and compares its standard output with the file GOLDEN.
# With the environment variable TOPOS_UPDATE_GOLDEN=1 it rewrites GOLDEN instead.
# MASK, when set, is a regular expression for what differs from run to run
# (timings), with one group for the text to keep: every match is replaced by
# `~` and that group before the output is compared or written, so the golden
# file holds only what is reproducible ("1234 examples/s" with the mask
# "[0-9]+( examples/s)" becomes "~ examples/s").
set(arguments)
if(NOT "${REPORT}" STREQUAL "")
    set(arguments --report ${REPORT})
endif()
if(NOT "${ARGUMENT}" STREQUAL "")
    list(APPEND arguments ${ARGUMENT})
endif()
execute_process(COMMAND ${PROGRAM} ${arguments}
    OUTPUT_VARIABLE output
    RESULT_VARIABLE status)
if(NOT status EQUAL 0)
    message(FATAL_ERROR "${PROGRAM} exited with ${status}:\n${output}")
endif()
if(NOT "${MASK}" STREQUAL "")
    string(REGEX REPLACE "${MASK}" "~\\1" output "${output}")
endif()
if("$ENV{TOPOS_UPDATE_GOLDEN}" STREQUAL "1")
    file(WRITE ${GOLDEN} "${output}")
    message(STATUS "rewrote ${GOLDEN}")
    return()
endif()
file(READ ${GOLDEN} expected)
if(NOT output STREQUAL expected)
    string(REPLACE "\n" "\n  | " shown "${output}")
    message(FATAL_ERROR "the output of ${PROGRAM} differs from ${GOLDEN}; it printed:\n  | ${shown}\n"
                        "(rerun with TOPOS_UPDATE_GOLDEN=1 to accept it after reviewing the diff)")
endif()
