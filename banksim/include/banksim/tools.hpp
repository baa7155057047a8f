// banksim/tools.hpp - the names banksim looks for its outside tools under, for whoever must check
// beforehand that a machine has them (the grader, before a class's first submission).
/// \file
/// The tool names banksim searches the PATH for: one list, read by banksim and by the grader.
#pragma once

#include <array>

namespace banksim {

/// llvm-symbolizer, which names the source line of every access banksim reports, by the names
/// Debian and Ubuntu install it under (`llvm`: llvm-symbolizer; `llvm-N`: llvm-symbolizer-N),
/// searched in this order. Without it every line reads 0, and nvcc's access widths, which
/// banksim matches to accesses by line, are lost: an 8-byte LDS.64 nvcc merged counts as two
/// 4-byte reads.
inline constexpr std::array<const char*, 8> kSymbolizerNames = {
    "llvm-symbolizer",    "llvm-symbolizer-14", "llvm-symbolizer-15", "llvm-symbolizer-16",
    "llvm-symbolizer-17", "llvm-symbolizer-18", "llvm-symbolizer-19", "llvm-symbolizer-20"};

}  // namespace banksim
