// detail::bit_cast: std::bit_cast where the standard library has it, else the
// compiler's __builtin_bit_cast, which std::bit_cast is built on (g++ 11 and
// clang++ 9 on). The libc++ of Emscripten 3.1 (LLVM 13) has no std::bit_cast.
#pragma once

#include <bit>
#include <type_traits>

namespace topos::detail {

template <class To, class From>

requires(sizeof(To) == sizeof(From) && std::is_trivially_copyable_v<To> &&
         std::is_trivially_copyable_v<From>) constexpr To bit_cast(const From& from) noexcept {
#if defined(__cpp_lib_bit_cast)
    return std::bit_cast<To>(from);
#else
    return __builtin_bit_cast(To, from);
#endif
}

}  // namespace topos::detail
