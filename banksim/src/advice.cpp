// advice.cpp - the words of a race or a divergent barrier once its source lines are known (see
// advice.hpp). The source is read as text, not parsed: comments and string literals are dropped,
// `return`, `if`, loops and braces are found by word and counted; where the text is unclear the
// advice stays general rather than wrong.
#include "advice.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <regex>

namespace banksim::advice {
namespace {

using rt::Access;

/// The code of one line: without `//` and one-line `/* */` comments, and with the text of
/// string and character literals blanked (a "return" in a string is not a return).
std::string code_of(const std::string& line) {
  std::string out;
  char quote = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote != 0) {
      if (c == '\\') {
        ++i;
      } else if (c == quote) {
        quote = 0;
        out += c;
      }
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
      out += c;
    } else if (c == '/' && i + 1 < line.size() && line[i + 1] == '/') {
      break;
    } else if (c == '/' && i + 1 < line.size() && line[i + 1] == '*') {
      const std::size_t end = line.find("*/", i + 2);
      if (end == std::string::npos) break;
      i = end + 1;
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::string code_at(const std::vector<std::string>& source, int line) {
  if (line <= 0 || static_cast<std::size_t>(line) > source.size()) return {};
  return code_of(source[static_cast<std::size_t>(line - 1)]);
}

bool has_word(const std::string& code, const char* word) {
  return std::regex_search(code, std::regex(std::string("\\b") + word + "\\b"));
}

bool blank(const std::string& code) {
  return code.find_first_not_of(" \t\r") == std::string::npos;
}

/// A function starts on this line (its head names __global__ or __device__): scans stop there.
bool function_head(const std::string& code) {
  return code.find("__global__") != std::string::npos ||
         code.find("__device__") != std::string::npos;
}

/// The barrier's line cut before its call (so that `if (c) return; __syncthreads();` reads the
/// `return` and not what follows); the whole line when the call is not spelled there.
std::string before_barrier(const std::vector<std::string>& source, int line) {
  const std::string code = code_at(source, line);
  const std::size_t at = code.find("__syncthreads");
  return at == std::string::npos ? code : code.substr(0, at);
}

/// The line of a `return` between the start of the barrier's function and the barrier, or 0.
int return_before(const std::vector<std::string>& source, int line) {
  for (int l = line; l >= 1; --l) {
    const std::string code = l == line ? before_barrier(source, l) : code_at(source, l);
    if (has_word(code, "return")) return l;
    if (function_head(code)) break;
  }
  return 0;
}

enum class Around { kNothing, kBranch, kLoop };

Around classify(const std::string& head) {
  if (has_word(head, "if") || has_word(head, "else") || has_word(head, "switch") ||
      has_word(head, "case")) {
    return Around::kBranch;
  }
  if (has_word(head, "for") || has_word(head, "while") || has_word(head, "do")) {
    return Around::kLoop;
  }
  return Around::kNothing;
}

/// The `if` or loop the barrier at `line` sits in, and the line that opens it: a brace-less
/// `if (c) __syncthreads();` (on its line or the line before), else the innermost `{` around the
/// barrier whose head is an `if`, `else` or loop. Nothing when the innermost block is the
/// function's body or a plain block.
std::pair<Around, int> enclosing(const std::vector<std::string>& source, int line) {
  const std::string mine = before_barrier(source, line);
  // `if (c) __syncthreads();`: the head is what follows the line's last brace.
  const std::size_t brace = mine.find_last_of("{}");
  if (const Around a = classify(brace == std::string::npos ? mine : mine.substr(brace + 1));
      a != Around::kNothing) {
    return {a, line};
  }
  if (blank(mine)) {
    int prev = line - 1;
    while (prev >= 1 && blank(code_at(source, prev))) --prev;
    const std::string p = code_at(source, prev);
    const std::size_t last = p.find_last_not_of(" \t\r");
    if (last != std::string::npos && p[last] != ';' && p[last] != '{' && p[last] != '}' &&
        classify(p) != Around::kNothing) {
      return {classify(p), prev};
    }
  }
  int depth = 0;
  for (int l = line; l >= 1; --l) {
    const std::string code = l == line ? mine : code_at(source, l);
    for (std::size_t i = code.size(); i-- > 0;) {
      if (code[i] == '}') {
        ++depth;
      } else if (code[i] == '{' && depth > 0) {
        --depth;
      } else if (code[i] == '{') {
        // The block's head: the text before the brace, or the line above when the brace is
        // alone on its line.
        std::string head = code.substr(0, i);
        int head_line = l;
        if (blank(head) && l > 1) {
          head_line = l - 1;
          while (head_line > 1 && blank(code_at(source, head_line))) --head_line;
          head = code_at(source, head_line);
        }
        if (function_head(head)) return {Around::kNothing, 0};
        return {classify(head), head_line};
      }
    }
    if (l != line && function_head(code)) break;
  }
  return {Around::kNothing, 0};
}

/// A __syncthreads() on a line strictly between lo and hi.
bool barrier_between(const std::vector<std::string>& source, int lo, int hi) {
  for (int l = lo + 1; l < hi; ++l) {
    if (code_at(source, l).find("__syncthreads") != std::string::npos) return true;
  }
  return false;
}

std::string thread(const uint3& t) {
  return fmt::format("thread ({},{},{})", t.x, t.y, t.z);
}

const char* verb(Access a) {
  return a == Access::kRead ? "read" : "wrote";
}

const char* noun(Access a) {
  return a == Access::kRead ? "read" : "write";
}

}  // namespace

std::string race(const rt::RawProblem& p, int line, int other_line,
                 const std::vector<std::string>& source) {
  if (line <= 0 || other_line <= 0 || p.access == Access::kNone ||
      p.other_access == Access::kNone) {
    return "";
  }
  const std::string me = thread(p.thread);
  const std::string other = p.has_other_thread ? thread(p.other_thread) : "another thread";
  // The two accesses in the order they happened.
  const bool swap = p.other_first;
  const std::string& who1 = swap ? other : me;
  const std::string& who2 = swap ? me : other;
  const Access a1 = swap ? p.other_access : p.access;
  const Access a2 = swap ? p.access : p.other_access;
  const int l1 = swap ? other_line : line;
  const int l2 = swap ? line : other_line;
  const std::string target = p.target.empty() ? "shared memory" : p.target;
  std::string msg;
  if (p.kind == "uninitialized_read") {
    msg = fmt::format(
        "{} read {} at line {} before any thread of the block had written it; {} wrote it "
        "afterwards, at line {}, with no __syncthreads() in between (on the GPU the write may "
        "come first or not: the read sees either value)",
        who1, target, l1, who2, l2);
  } else if (a1 == Access::kWrite && a2 == Access::kWrite) {
    return fmt::format(
        "{} wrote {} at line {}, then {} wrote a different value to the same bytes at line {}, "
        "with no __syncthreads() in between: a write-after-write race (which value stays is "
        "undefined); let one thread write each element, or separate the writes with a "
        "__syncthreads()",
        who1, target, l1, who2, l2);
  } else {
    msg = fmt::format(
        "{} {} {} at line {}, then {} {} it at line {}, with no __syncthreads() in between: a "
        "{}-after-{} race ({})",
        who1, verb(a1), target, l1, who2, verb(a2), l2, noun(a2), noun(a1),
        a2 == Access::kRead ? "on the GPU the read may come first and see the old value"
                            : "on the GPU the write may come first, and the read see the new "
                              "value");
  }
  const int lo = std::min(l1, l2);
  const int hi = std::max(l1, l2);
  if (lo == hi) {
    return msg + fmt::format(
                     "; both accesses are on line {}: split it so that a __syncthreads() "
                     "separates them (read into a register, __syncthreads(), then write)",
                     lo);
  }
  if (barrier_between(source, lo, hi)) {
    return msg +
           fmt::format(
               "; a __syncthreads() lies between lines {} and {}, so the two accesses met across "
               "two iterations of a loop (or a branch skipped that barrier): add a "
               "__syncthreads() after line {}, at the end of the loop body, so that no thread "
               "starts the next iteration's accesses before every thread has finished this one",
               lo, hi, hi);
  }
  return msg + fmt::format(
                   "; put a __syncthreads() between line {} and line {}, where every thread of "
                   "the block reaches it",
                   lo, hi);
}

std::string finished_barrier(const rt::RawProblem& p, int line,
                             const std::vector<std::string>& source) {
  if (line <= 0 || !p.others_finished) return "";
  const std::string head = fmt::format(
      "__syncthreads() reached by {} of {} threads of the block; the others{}", p.reached,
      p.block_threads, p.has_other_thread ? " (e.g. " + thread(p.other_thread) + ")" : "");
  const int r = return_before(source, line);
  const auto [around, at] = enclosing(source, line);
  if (r > 0 && around != Around::kNothing) {
    return head +
           fmt::format(
               " had left the kernel or skipped it: the `return` at line {} comes before the "
               "barrier, and the barrier is inside the {} at line {}. Every thread must reach "
               "every barrier: move that `return` after the barrier and take the barrier out of "
               "the {}, so that only the work is guarded",
               r, around == Around::kBranch ? "`if`" : "loop", at,
               around == Around::kBranch ? "`if`" : "loop");
  }
  if (r > 0) {
    return head + fmt::format(
                      " had left the kernel: the `return` at line {} comes before the barrier. "
                      "Every thread must reach every barrier: move that `return` after the "
                      "barrier, or put the work in an `if` instead of returning",
                      r);
  }
  if (around == Around::kBranch) {
    return head + fmt::format(
                      " skipped it: the barrier is inside the `if` at line {}, which they did not "
                      "enter. Every thread must reach every barrier: close the `if` before the "
                      "barrier (and open another after it), so that it guards only the work",
                      at);
  }
  if (around == Around::kLoop) {
    return head + fmt::format(
                      " skipped it: the barrier is inside the loop at line {}, which they left "
                      "earlier or never entered. Every thread must reach every barrier: give "
                      "every thread of the block the same number of iterations, and guard the "
                      "work inside the loop instead",
                      at);
  }
  return "";
}

std::string different_barriers(int line, int other_line) {
  return fmt::format(
      "threads of one block wait at different __syncthreads() calls (lines {} and {}): a "
      "barrier inside divergent code (if/else) is undefined behaviour on the GPU; use one "
      "__syncthreads() after the branches join, reached by every thread",
      std::min(line, other_line), std::max(line, other_line));
}

}  // namespace banksim::advice
