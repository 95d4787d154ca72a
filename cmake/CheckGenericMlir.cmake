# Runs MLIR_OPT --allow-unregistered-dialect over every *.generic.mlir file in
# CORPUS: each must parse and verify. The modules go through one mlir-opt run
# (--split-input-file, one split per module, headed by the module's file name,
# which mlir-opt's "within split at" line points to). Fails, saying how to
# install it, when mlir-opt is missing.
if(NOT MLIR_OPT OR NOT EXISTS "${MLIR_OPT}")
    message(FATAL_ERROR "mlir-opt was not found: install Debian's mlir-16-tools "
                        "(tools/install-deps does) and reconfigure")
endif()
file(GLOB modules "${CORPUS}/*.generic.mlir")
list(LENGTH modules count)
if(count EQUAL 0)
    message(FATAL_ERROR "no generic modules in ${CORPUS}: run topos_emit_corpus first")
endif()
set(combined "")
set(separator "")
foreach(module IN LISTS modules)
    file(READ ${module} text)
    get_filename_component(name ${module} NAME)
    string(APPEND combined "${separator}// module ${name}\n${text}")
    set(separator "// -----\n")
endforeach()
set(all_modules "${CORPUS}/all-modules.mlir.split")
file(WRITE ${all_modules} "${combined}")
execute_process(COMMAND ${MLIR_OPT} --allow-unregistered-dialect --split-input-file ${all_modules}
        -o /dev/null
    RESULT_VARIABLE status
    ERROR_VARIABLE errors)
if(NOT status EQUAL 0)
    message(FATAL_ERROR "mlir-opt rejected modules of ${CORPUS}:\n${errors}")
endif()
message(STATUS "mlir-opt: ${count} modules parsed and verified")
