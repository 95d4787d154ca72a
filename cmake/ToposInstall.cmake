# Installs the library, its headers and a CMake package, so that an outside
# project can write find_package(topos CONFIG REQUIRED) and link topos::topos.
include(CMakePackageConfigHelpers)

set(TOPOS_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/topos)

set(topos_installed_targets topos)
if(TOPOS_HAS_DISTRIBUTED)
    list(APPEND topos_installed_targets topos_distributed)
endif()
if(TOPOS_HAS_ONNX)
    list(APPEND topos_installed_targets topos_onnx)
endif()
if(TOPOS_HAS_TEXT)
    list(APPEND topos_installed_targets topos_text)
endif()
install(TARGETS ${topos_installed_targets}
    EXPORT toposTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    FILE_SET HEADERS DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# Everything `cmake --install` copies, built by one target; the demonstration
# builds it too, so that the README's commands and an install work in any
# order on one build folder.
add_custom_target(topos_installable)
add_dependencies(topos_installable ${topos_installed_targets} topos-play topos-generate)
if(TARGET topos-onnx)
    add_dependencies(topos_installable topos-onnx)
endif()
if(TARGET topos_python)
    add_dependencies(topos_installable topos_python)
endif()
if(TARGET demo)
    add_dependencies(demo topos_installable)
endif()

install(EXPORT toposTargets
    NAMESPACE topos::
    DESTINATION ${TOPOS_INSTALL_CMAKEDIR})

configure_package_config_file(
    ${topos_SOURCE_DIR}/cmake/toposConfig.cmake.in
    ${topos_BINARY_DIR}/toposConfig.cmake
    INSTALL_DESTINATION ${TOPOS_INSTALL_CMAKEDIR})

write_basic_package_version_file(
    ${topos_BINARY_DIR}/toposConfigVersion.cmake
    COMPATIBILITY SameMinorVersion)

install(FILES
    ${topos_BINARY_DIR}/toposConfig.cmake
    ${topos_BINARY_DIR}/toposConfigVersion.cmake
    DESTINATION ${TOPOS_INSTALL_CMAKEDIR})
