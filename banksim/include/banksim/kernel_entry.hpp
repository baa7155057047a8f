// banksim/kernel_entry.hpp - a type-erased handle on one kernel of a compiled .cu file: its name,
// its parameter types (so the CLI and the grader can build arguments) and a trampoline that
// calls it from an array of argument pointers. The stub banksim appends to a student's file
// creates one per requested kernel with make_kernel_entry("name", &name).
/// \file
/// A type-erased handle on one kernel of a compiled .cu file: name, parameter types, trampoline.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace banksim {

/// What a kernel parameter is, as far as building an argument for it goes.
enum class ParamKind : std::uint8_t { kPointer, kSignedInt, kUnsignedInt, kFloat, kOther };

/// One kernel parameter.
struct ParamInfo {
  ParamKind kind;              ///< what the parameter is
  std::uint32_t size;          ///< sizeof the parameter
  ParamKind pointee_kind;      ///< for pointers: what they point to
  std::uint32_t pointee_size;  ///< for pointers: sizeof the element (0 for void*)
  bool pointee_const;          ///< for pointers: `const T*` (an input the kernel must not write)
};

/// One kernel of a compiled module.
struct KernelEntry {
  const char* name;  ///< the kernel's name in reports ("transpose_tile<1>")
  void* function;    ///< the kernel function, type-erased
  /// Calls `function` with its arguments, args[i] pointing at argument i.
  void (*invoke)(void* function, void** args);
  int num_params;           ///< number of parameters
  const ParamInfo* params;  ///< num_params entries (plus an unused terminator)
};

/// Internal helpers of make_kernel_entry().
namespace detail {

/// The ParamKind of type T (enums count as integers).
template <typename T>
constexpr ParamKind kind_of() {
  if constexpr (std::is_pointer<T>::value) {
    return ParamKind::kPointer;
  } else if constexpr (std::is_floating_point<T>::value) {
    return ParamKind::kFloat;
  } else if constexpr (std::is_integral<T>::value || std::is_enum<T>::value) {
    return std::is_signed<T>::value ? ParamKind::kSignedInt : ParamKind::kUnsignedInt;
  } else {
    return ParamKind::kOther;
  }
}

/// sizeof(T), 0 for void.
template <typename T>
constexpr std::uint32_t size_of() {
  if constexpr (std::is_void<T>::value) {
    return 0;
  } else {
    return static_cast<std::uint32_t>(sizeof(T));
  }
}

/// The ParamInfo of a parameter of type T.
template <typename T>
constexpr ParamInfo param_info() {
  using Pointee = std::remove_pointer_t<T>;
  if constexpr (std::is_pointer<T>::value) {
    return ParamInfo{ParamKind::kPointer, sizeof(T), kind_of<std::remove_cv_t<Pointee>>(),
                     size_of<std::remove_cv_t<Pointee>>(), std::is_const<Pointee>::value};
  } else {
    return ParamInfo{kind_of<T>(), sizeof(T), ParamKind::kOther, 0, false};
  }
}

/// Parameter table and type-erased caller of a kernel with parameter types P.
template <typename... P>
struct Trampoline {
  /// ParamInfo of each parameter, then a terminator (so that the array is never empty).
  static constexpr ParamInfo kParams[sizeof...(P) + 1] = {
      param_info<P>()..., ParamInfo{ParamKind::kOther, 0, ParamKind::kOther, 0, false}};
  /// Calls `function` with *args[I] cast to the I-th parameter type.
  template <std::size_t... I>
#if defined(__clang__)
  __attribute__((no_sanitize("address")))
#endif
  static void
  call(void* function, void** args, std::index_sequence<I...>) {
    reinterpret_cast<void (*)(P...)>(function)(*static_cast<P*>(args[I])...);
  }
#if defined(__clang__)
  __attribute__((no_sanitize("address")))
#endif
  /// KernelEntry::invoke for this parameter list.
  static void
  invoke(void* function, void** args) {
    call(function, args, std::index_sequence_for<P...>{});
  }
};

}  // namespace detail

/// The entry of kernel `function`, called `name` in reports.
template <typename... P>
KernelEntry make_kernel_entry(const char* name, void (*function)(P...)) {
  return KernelEntry{name, reinterpret_cast<void*>(function), &detail::Trampoline<P...>::invoke,
                     static_cast<int>(sizeof...(P)), detail::Trampoline<P...>::kParams};
}

}  // namespace banksim
