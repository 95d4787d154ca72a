# Runs MLIR_OPT --allow-unregistered-dialect over every *.generic.mlir file in
# CORPUS: each must parse and verify. Fails, saying how to install it, when
# mlir-opt is missing.
if(NOT MLIR_OPT OR NOT EXISTS "${MLIR_OPT}")
    message(FATAL_ERROR "mlir-opt was not found: install Debian's mlir-16-tools "
                        "(tools/install-deps does) and reconfigure")
endif()
file(GLOB modules "${CORPUS}/*.generic.mlir")
list(LENGTH modules count)
if(count EQUAL 0)
    message(FATAL_ERROR "no generic modules in ${CORPUS}: run topos_emit_corpus first")
endif()
set(failures 0)
foreach(module IN LISTS modules)
    execute_process(COMMAND ${MLIR_OPT} --allow-unregistered-dialect ${module} -o /dev/null
        RESULT_VARIABLE status
        ERROR_VARIABLE errors)
    if(NOT status EQUAL 0)
        math(EXPR failures "${failures} + 1")
        message(SEND_ERROR "${module}:\n${errors}")
    endif()
endforeach()
message(STATUS "mlir-opt: ${count} modules checked, ${failures} rejected")
