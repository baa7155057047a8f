// advice.hpp - the words of a race or a divergent barrier once its source lines are known: the
// two accesses of a race in the order they happened, and advice that fits the code around them
// (an early `return` before a barrier, or a barrier inside an `if` some threads skip). Module
// (module.cpp) calls these after symbolisation; the runtime only knows program counters.
#pragma once

#include <string>
#include <vector>

#include "banksim/runtime.hpp"

namespace banksim::advice {

/// A race's (or a read-before-another-thread's-write's) message: both accesses with their
/// threads and lines, first the one that happened first, what the GPU may do instead, and where
/// a __syncthreads() goes. `source` holds the file's lines (line k is source[k - 1]).
std::string race(const rt::RawProblem& p, int line, int other_line,
                 const std::vector<std::string>& source);

/// A barrier some threads of the block never reached because they had finished the kernel: an
/// early `return` before it (named with its line) or an `if` or loop around it that they skipped
/// (named with its line), from the source. "" when the source shows neither (the runtime's
/// message stands).
std::string finished_barrier(const rt::RawProblem& p, int line,
                             const std::vector<std::string>& source);

/// Threads waiting at two different __syncthreads() calls, at `line` and `other_line`.
std::string different_barriers(int line, int other_line);

}  // namespace banksim::advice
