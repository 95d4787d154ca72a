# topos_sanitizers: the sanitizers named in TOPOS_SANITIZE, for every target of
# the build (the library links it publicly inside the build tree only).
add_library(topos_sanitizers INTERFACE)
if(TOPOS_SANITIZE)
    set(topos_sanitize_flags -fsanitize=${TOPOS_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
    target_compile_options(topos_sanitizers INTERFACE
        $<$<COMPILE_LANGUAGE:CXX>:${topos_sanitize_flags}>)
    target_link_options(topos_sanitizers INTERFACE ${topos_sanitize_flags})
endif()
