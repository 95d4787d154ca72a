// What a call that should throw says: the message of the error it throws, or
// "no ShapeError" (or "no IndexError") when it returns.
#pragma once

#include <topos/core/error.hpp>

#include <string>
#include <string_view>

namespace topos::test {

template <class Error, class Call>
std::string message_of_thrown(Call call, std::string_view error_name) {
    try {
        call();
    } catch (const Error& error) {
        return error.what();
    }
    return "no " + std::string(error_name);
}

template <class Call>
std::string shape_error_of(Call call) {
    return message_of_thrown<ShapeError>(call, "ShapeError");
}

template <class Call>
std::string index_error_of(Call call) {
    return message_of_thrown<IndexError>(call, "IndexError");
}

}  // namespace topos::test
