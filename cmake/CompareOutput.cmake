# Runs PROGRAM and compares its standard output with the file GOLDEN.
# With the environment variable TOPOS_UPDATE_GOLDEN=1 it rewrites GOLDEN instead.
execute_process(COMMAND ${PROGRAM}
    OUTPUT_VARIABLE output
    RESULT_VARIABLE status)
if(NOT status EQUAL 0)
    message(FATAL_ERROR "${PROGRAM} exited with ${status}:\n${output}")
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
