// rewrite.cpp - see banksim/rewrite.hpp.
#include "banksim/rewrite.hpp"

#include <cstdio>

#include <algorithm>
#include <cctype>
#include <map>
#include <regex>
#include <set>
#include <stdexcept>

namespace banksim {
namespace {

int line_of(const std::string& s, std::size_t pos) {
  return 1 + static_cast<int>(std::count(s.begin(), s.begin() + static_cast<long>(pos), '\n'));
}

bool is_ident(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

struct Edit {
  std::size_t pos;
  std::size_t length;
  std::string text;
};

std::string apply(const std::string& source, std::vector<Edit> edits) {
  std::sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.pos > b.pos; });
  std::string out = source;
  for (const Edit& e : edits) out.replace(e.pos, e.length, e.text);
  return out;
}

}  // namespace

std::string mask_comments_and_strings(const std::string& s) {
  std::string m = s;
  std::size_t i = 0;
  auto blank = [&](std::size_t from, std::size_t to) {
    for (std::size_t k = from; k < to && k < m.size(); ++k) {
      if (m[k] != '\n') m[k] = ' ';
    }
  };
  while (i < s.size()) {
    if (s.compare(i, 2, "//") == 0) {
      const std::size_t end = s.find('\n', i);
      blank(i, end == std::string::npos ? s.size() : end);
      i = end == std::string::npos ? s.size() : end;
    } else if (s.compare(i, 2, "/*") == 0) {
      const std::size_t end = s.find("*/", i + 2);
      const std::size_t stop = end == std::string::npos ? s.size() : end + 2;
      blank(i, stop);
      i = stop;
    } else if (s[i] == '"' || s[i] == '\'') {
      const char q = s[i];
      std::size_t k = i + 1;
      while (k < s.size() && s[k] != q && s[k] != '\n') k += (s[k] == '\\') ? 2 : 1;
      blank(i + 1, std::min(k, s.size()));
      i = k + 1;
    } else {
      ++i;
    }
  }
  return m;
}

std::size_t matching_paren(const std::string& m, std::size_t open) {
  int depth = 0;
  for (std::size_t k = open; k < m.size(); ++k) {
    if (m[k] == '(') ++depth;
    if (m[k] == ')' && --depth == 0) return k;
  }
  return std::string::npos;
}

bool preceded_by_template(const std::string& m, std::size_t at) {
  std::size_t k = at;
  while (k > 0 && std::isspace(static_cast<unsigned char>(m[k - 1])) != 0) --k;
  if (k == 0 || m[k - 1] != '>') return false;
  int depth = 0;
  while (k > 0) {
    --k;
    if (m[k] == '>') ++depth;
    if (m[k] == '<' && --depth == 0) break;
  }
  while (k > 0 && std::isspace(static_cast<unsigned char>(m[k - 1])) != 0) --k;
  return k >= 8 && m.compare(k - 8, 8, "template") == 0;
}

std::vector<KernelDecl> find_kernels(const std::string& source) {
  const std::string m = mask_comments_and_strings(source);
  std::vector<KernelDecl> out;
  static const std::regex global_kw(R"(\b__global__\b)");
  for (auto it = std::sregex_iterator(m.begin(), m.end(), global_kw); it != std::sregex_iterator();
       ++it) {
    const auto at = static_cast<std::size_t>(it->position());
    std::size_t search = at;
    for (;;) {
      // The name is the identifier just before the first '(' after __global__ (skipping
      // __launch_bounds__(...)).
      const std::size_t paren = m.find('(', search);
      if (paren == std::string::npos) break;
      std::size_t end = paren;
      while (end > at && std::isspace(static_cast<unsigned char>(m[end - 1])) != 0) --end;
      std::size_t begin = end;
      while (begin > at && is_ident(m[begin - 1])) --begin;
      const std::size_t close = matching_paren(m, paren);
      if (begin == end || close == std::string::npos) break;
      const std::string name = m.substr(begin, end - begin);
      if (name == "__launch_bounds__" || name == "__align__") {
        search = close + 1;
        continue;
      }
      KernelDecl k;
      k.name = name;
      k.line = line_of(m, begin);
      k.is_template = preceded_by_template(m, at);
      k.params = source.substr(paren, close - paren + 1);
      out.push_back(k);
      break;
    }
  }
  return out;
}

std::vector<std::string> find_dynamic_shared(const std::string& source) {
  const std::string m = mask_comments_and_strings(source);
  static const std::regex ext(R"(\bextern\s+__shared__\s+([^;\[]*?)\b(\w+)\s*\[\s*\]\s*;)");
  std::vector<std::string> names;
  for (auto it = std::sregex_iterator(m.begin(), m.end(), ext); it != std::sregex_iterator();
       ++it) {
    names.push_back((*it)[2].str());
  }
  return names;
}

/// Where the callee of the launch whose `<<<` is at `at` starts in `m` (comments and strings
/// masked): any postfix expression nvcc accepts there, e.g. `kernel`, `ns::kernel<T, 4>`,
/// `kernels[i]`, `table.fn[2 * i + 1]`, `(*fp)`, `pick(i)`. Template arguments, subscripts and
/// calls are skipped as balanced groups; names join through `::`, `.` and `->`.
namespace {

std::size_t launch_callee_start(const std::string& m, std::size_t at) {
  std::size_t k = at;
  while (k > 0 && std::isspace(static_cast<unsigned char>(m[k - 1])) != 0) --k;
  const std::size_t end = k;
  // Skips back over the balanced group that ends at m[k - 1] (one of `)]>`); false if unbalanced.
  auto skip_group = [&](char close) {
    const char open = close == ')' ? '(' : close == ']' ? '[' : '<';
    int depth = 0;
    for (std::size_t j = k; j > 0; --j) {
      if (m[j - 1] == close) ++depth;
      if (m[j - 1] == open && --depth == 0) {
        k = j - 1;
        return true;
      }
    }
    return false;
  };
  while (k > 0) {
    const char c = m[k - 1];
    if (c == ')' || c == ']' || (c == '>' && !(k >= 2 && m[k - 2] == '-'))) {
      const std::size_t before = k;
      if (!skip_group(c)) {
        k = before;
        break;
      }
      // A group continues the expression only after a name or another group (`f(i)`, `a[i]`,
      // `k<T>`); a parenthesised expression of its own, `(*fp)`, starts it.
      if (k > 0 && (is_ident(m[k - 1]) || m[k - 1] == ']' || m[k - 1] == ')' || m[k - 1] == '>')) {
        continue;
      }
      if (c == ')') break;
      k = before;  // `[...]` or `<...>` with nothing before it is no callee: stop after it
      break;
    }
    if (is_ident(c)) {
      while (k > 0 && is_ident(m[k - 1])) --k;
      if (k >= 2 && m[k - 1] == ':' && m[k - 2] == ':') {
        k -= 2;
      } else if (k >= 1 && m[k - 1] == '.') {
        k -= 1;
      } else if (k >= 2 && m[k - 1] == '>' && m[k - 2] == '-') {
        k -= 2;
      } else {
        break;
      }
      continue;
    }
    if (c == ':' && k >= 2 && m[k - 2] == ':') {  // a leading `::kernel`
      k -= 2;
      break;
    }
    break;
  }
  return k <= end ? k : end;
}

}  // namespace

std::string rewrite_for_host(const std::string& source, const std::string& display_path) {
  const std::string m = mask_comments_and_strings(source);
  std::vector<Edit> edits;
  std::vector<std::pair<std::size_t, std::size_t>> taken;  // ranges already rewritten
  auto newlines = [&](std::size_t pos, std::size_t len) {
    return std::string(
        static_cast<std::size_t>(std::count(source.begin() + static_cast<long>(pos),
                                            source.begin() + static_cast<long>(pos + len), '\n')),
        '\n');
  };
  // 1. extern __shared__ T name[];  ->  T* const name = reinterpret_cast<T*>(banksim_dynamic_smem);
  static const std::regex ext(R"(\bextern\s+__shared__\s+([^;\[]*?)\b(\w+)\s*\[\s*\]\s*;)");
  static const std::regex align(R"(__align__\s*\([^)]*\))");
  for (auto it = std::sregex_iterator(m.begin(), m.end(), ext); it != std::sregex_iterator();
       ++it) {
    const auto pos = static_cast<std::size_t>(it->position());
    const auto len = static_cast<std::size_t>(it->length());
    std::string type = std::regex_replace((*it)[1].str(), align, "");
    const std::string name = (*it)[2].str();
    edits.push_back({pos, len,
                     type + "* const " + name + " = reinterpret_cast<" + type +
                         "*>(banksim_dynamic_smem);" + newlines(pos, len)});
    taken.emplace_back(pos, pos + len);
  }
  auto in_taken = [&](std::size_t pos) {
    return std::any_of(taken.begin(), taken.end(),
                       [pos](const auto& r) { return pos >= r.first && pos < r.second; });
  };
  // 2. [static] __shared__ ...  ->  BANKSIM_REDZONE(__COUNTER__) __shared__ ...
  static const std::regex shared(R"((\bstatic\s+)?\b__shared__\b)");
  for (auto it = std::sregex_iterator(m.begin(), m.end(), shared); it != std::sregex_iterator();
       ++it) {
    const auto pos = static_cast<std::size_t>(it->position());
    if (in_taken(pos)) continue;
    const auto len = static_cast<std::size_t>(it->length());
    edits.push_back({pos, len, "BANKSIM_REDZONE(__COUNTER__) __shared__" + newlines(pos, len)});
  }
  // 3. callee<<<config>>>(args)  ->  ::banksim::configure(config).kernel(callee)(args); for a
  // kernel (not a template) with default arguments, the launch also gets a lambda with the
  // kernel's own parameter list, defaults and all, that turns the launch's arguments into all of
  // them: ...kernel(callee).defaults([](float* out, int n = 32) { return
  // ::std::make_tuple(out, n); })(args). Kept on the launch's line.
  std::map<std::string, std::string> shims;  // kernel name -> its defaults(...) lambda
  for (const KernelDecl& d : find_kernels(source)) {
    if (d.is_template || d.params.size() < 2 || d.params.find('"') != std::string::npos) continue;
    std::string inner = mask_comments_and_strings(d.params.substr(1, d.params.size() - 2));
    for (char& c : inner) {
      if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    }
    // Top-level commas split the parameters; a top-level '=' starts a default.
    std::vector<std::string> params(1);
    int depth = 0;
    bool has_default = false;
    for (char c : inner) {
      if (c == '(' || c == '<' || c == '[' || c == '{') ++depth;
      if (c == ')' || c == '>' || c == ']' || c == '}') --depth;
      if (c == ',' && depth == 0) {
        params.emplace_back();
        continue;
      }
      if (c == '=' && depth == 0) has_default = true;
      params.back() += c;
    }
    if (!has_default) continue;
    std::string names;
    bool ok = true;
    for (const std::string& param : params) {
      std::string decl = param.substr(0, param.find('='));
      while (!decl.empty() && std::isspace(static_cast<unsigned char>(decl.back())) != 0) {
        decl.pop_back();
      }
      if (!decl.empty() && decl.back() == ']') decl = decl.substr(0, decl.find('['));
      while (!decl.empty() && std::isspace(static_cast<unsigned char>(decl.back())) != 0) {
        decl.pop_back();
      }
      std::size_t b = decl.size();
      while (b > 0 && is_ident(decl[b - 1])) --b;
      const std::string name = decl.substr(b);
      // A name, not the last word of a type ("int" alone, "float*"): else no shim.
      static const std::set<std::string> not_names = {
          "int",  "unsigned", "float",  "double", "char", "short",    "long",
          "bool", "const",    "size_t", "signed", "void", "volatile", "__restrict__"};
      if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])) != 0 ||
          not_names.count(name) != 0 || b == 0) {
        ok = false;
        break;
      }
      names += (names.empty() ? "" : ", ") + name;
    }
    if (ok) {
      shims[d.name] = ".defaults([](" + inner + ") { return ::std::make_tuple(" + names + "); })";
    }
  }
  for (std::size_t at = m.find("<<<"); at != std::string::npos; at = m.find("<<<", at + 3)) {
    const std::size_t close = m.find(">>>", at + 3);
    if (close == std::string::npos) break;
    const std::size_t k = launch_callee_start(m, at);
    const std::string callee = source.substr(k, at - k);
    const std::string config = source.substr(at + 3, close - at - 3);
    const auto shim = shims.find(callee);
    edits.push_back({k, close + 3 - k,
                     "::banksim::configure(" + config + ").kernel(" + callee + ")" +
                         (shim != shims.end() ? shim->second : std::string()) +
                         newlines(k, at - k)});
  }
  // The file name as a string literal: quotes and backslashes escaped, other bytes as octal
  // escapes (a student's folder may be called anything).
  std::string name;
  for (char c : display_path) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      name += '\\';
      name += c;
    } else if (u < 0x20 || u >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03o", u);
      name += buf;
    } else {
      name += c;
    }
  }
  return "#line 1 \"" + name + "\"\n" + apply(source, edits);
}

}  // namespace banksim
