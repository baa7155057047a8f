// course_catch.hpp - the test suite's one way into Catch2: v2 (Debian 12 and Ubuntu 22.04 package
// its single header) or v3 (Ubuntu 24.04, Debian 13: a compiled library). CMake defines
// COURSE_CATCH2_V3 when it found v3. The few names that differ between the two are here.
#pragma once

#include <string>

#ifdef COURSE_CATCH2_V3
#include <catch2/catch_all.hpp>
/// Matches a string holding `s` (v2's Contains, v3's ContainsSubstring).
inline auto HasSubstr(const std::string& s) {
  return Catch::Matchers::ContainsSubstring(s);
}
#else
#include <catch2/catch.hpp>
/// Matches a string holding `s` (v2's Contains, v3's ContainsSubstring).
inline auto HasSubstr(const std::string& s) {
  return Catch::Matchers::Contains(s);
}
#endif
/// Matches a string that the regular expression `re` matches in full.
inline auto MatchesRegex(const std::string& re) {
  return Catch::Matchers::Matches(re);
}
