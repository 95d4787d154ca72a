# topos_auto_option(NAME DOC): a cache string AUTO, ON or OFF, AUTO by default.
# AUTO builds a part where what it needs is found, ON requires it, OFF leaves it
# out. A value CMake reads as a boolean (YES, TRUE, 1, NO, FALSE, 0) counts as ON
# or OFF; any other is an error, so a misspelt value never passes unseen.
function(topos_auto_option name doc)
    set(${name} AUTO CACHE STRING "${doc}")
    set_property(CACHE ${name} PROPERTY STRINGS AUTO ON OFF)
    string(TOUPPER "${${name}}" value)
    if(value MATCHES "^(ON|YES|Y|TRUE|1)$")
        set(value ON)
    elseif(value MATCHES "^(OFF|NO|N|FALSE|0)$")
        set(value OFF)
    elseif(NOT value STREQUAL "AUTO")
        message(FATAL_ERROR "${name} is '${${name}}': use AUTO, ON or OFF")
    endif()
    set(${name} ${value} PARENT_SCOPE)
endfunction()

# topos_find_mode(NAME VAR): VAR is REQUIRED where the option NAME is ON, so that
# a find_* call fails the configuration, and empty where it is AUTO.
function(topos_find_mode name var)
    set(mode "")
    if(${name} STREQUAL "ON")
        set(mode REQUIRED)
    endif()
    set(${var} ${mode} PARENT_SCOPE)
endfunction()
