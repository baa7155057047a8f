#!/usr/bin/env bash
# test-catch2-v3.sh - builds and runs the whole suite against Catch2 v3 (what Ubuntu 24.04 and
# Debian 13 package; Debian 12, where CI runs, has v2). Minutes: `make test-catch2-v3`.
# Catch2 v3 comes from Debian 13's source package (the Debian archive, fetched with a private apt
# state: the machine's own sources are not touched), built and installed under build/catch2-v3/.
#   CATCH2_V3_PREFIX=DIR  use a Catch2 v3 already installed there instead
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work="$root/build/catch2-v3"
prefix=${CATCH2_V3_PREFIX:-$work/prefix}
jobs=${JOBS:-$(nproc)}
mkdir -p "$work"
if [ ! -e "$prefix/lib/cmake/Catch2/Catch2Config.cmake" ]; then
  echo "== Catch2 v3: Debian 13's source package, built into $prefix"
  apt="$work/apt"
  mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/parts" "$work/src"
  echo "deb-src http://deb.debian.org/debian trixie main" >"$apt/sources.list"
  opts=(-o "Dir::Etc::SourceList=$apt/sources.list" -o "Dir::Etc::SourceParts=$apt/parts"
        -o "Dir::State=$apt" -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache"
        -o "APT::Sandbox::User=root")
  apt-get "${opts[@]}" update >"$work/apt-update.log" 2>&1 || {
    tail -5 "$work/apt-update.log"; echo "test-catch2-v3: cannot reach Debian's archive (log above)"; exit 1; }
  (cd "$work/src" && apt-get "${opts[@]}" source --download-only catch2 >"$work/apt-source.log" 2>&1) || {
    tail -5 "$work/apt-source.log"; echo "test-catch2-v3: apt-get source catch2 failed"; exit 1; }
  tarball=$(ls "$work"/src/catch2_3.*.orig.tar.* | head -1)
  rm -rf "$work/src/tree" && mkdir -p "$work/src/tree"
  tar -xf "$tarball" -C "$work/src/tree" --strip-components=1
  cmake -S "$work/src/tree" -B "$work/src/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$prefix" -DBUILD_TESTING=OFF -DCATCH_INSTALL_DOCS=OFF >"$work/catch2-build.log" 2>&1
  cmake --build "$work/src/build" -j "$jobs" >>"$work/catch2-build.log" 2>&1
  cmake --install "$work/src/build" >>"$work/catch2-build.log" 2>&1
fi
echo "== the course's suite against $(basename "$(ls -d "$prefix"/include/catch2)") $(grep -ho 'PACKAGE_VERSION "[0-9.]*"' "$prefix/lib/cmake/Catch2/Catch2ConfigVersion.cmake")"
cmake -S "$root" -B "$work/course" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" -DCOURSE_CATCH2=3 \
  -DCOURSE_REQUIRE_TEST_DEPS=ON -DCOURSE_BUILD_BENCH=OFF >"$work/configure.log" 2>&1 || {
  cat "$work/configure.log"; exit 1; }
# The build must really use v3: a configure that fell back to v2 proves nothing.
grep -q "Course: Catch2 3\." "$work/configure.log" || { echo "test-catch2-v3: configured without Catch2 v3"; cat "$work/configure.log"; exit 1; }
cmake --build "$work/course" -j "$jobs"
cd "$work/course" && ctest --output-on-failure -j "$jobs"
