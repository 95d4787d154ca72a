# Runs the command given after this script's name (cmake [-D...] -P
# CheckCommand.cmake PROGRAM ARGS...) and fails unless it exits with
# EXPECT_STATUS (0 unless set) and its output, standard output and error
# together, matches the regular expression EXPECT_OUTPUT (when set). FRESH
# names a folder emptied before the run; WRITTEN a file the run must write,
# and SAME_AS a file it must equal byte for byte.
set(command)
set(after_script FALSE)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE 1 ${last})
    if(after_script)
        list(APPEND command "${CMAKE_ARGV${i}}")
    elseif(CMAKE_ARGV${i} STREQUAL "-P")
        math(EXPR script "${i} + 1")
        set(skip ${script})
    endif()
    if(DEFINED skip AND i EQUAL skip)
        set(after_script TRUE)
    endif()
endforeach()
if(NOT DEFINED EXPECT_STATUS)
    set(EXPECT_STATUS 0)
endif()
if(NOT "${FRESH}" STREQUAL "")
    file(REMOVE_RECURSE "${FRESH}")
endif()
execute_process(COMMAND ${command}
    OUTPUT_VARIABLE output
    ERROR_VARIABLE output
    RESULT_VARIABLE status)
string(REPLACE "\n" "\n  | " shown "${output}")
if(NOT status STREQUAL "${EXPECT_STATUS}")
    message(FATAL_ERROR "${command}\nexited with ${status}, not ${EXPECT_STATUS}; it printed:\n  | ${shown}")
endif()
if(DEFINED EXPECT_OUTPUT AND NOT output MATCHES "${EXPECT_OUTPUT}")
    message(FATAL_ERROR "${command}\nprinted what does not match \"${EXPECT_OUTPUT}\":\n  | ${shown}")
endif()
if(NOT "${WRITTEN}" STREQUAL "" AND NOT EXISTS "${WRITTEN}")
    message(FATAL_ERROR "${command}\nwrote no ${WRITTEN}; it printed:\n  | ${shown}")
endif()
if(NOT "${SAME_AS}" STREQUAL "")
    execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${WRITTEN}" "${SAME_AS}"
        RESULT_VARIABLE different)
    if(different)
        message(FATAL_ERROR "${command}\nwrote ${WRITTEN}, which differs from ${SAME_AS}")
    endif()
endif()
