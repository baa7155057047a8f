#!/usr/bin/env bash
# scripts/deps.sh looks for tools and headers rather than package names, and names the packages
# of the distribution it runs on for what is missing (os-release files of this folder).
set -uo pipefail
cd "$(dirname "$0")/../.."
fail() { echo "FAIL: $*"; exit 1; }
# Nothing found (headers looked for in an empty folder): Ubuntu 24.04's names (its catch2 is v3,
# which the suite builds with).
out=$(DEPS_INCLUDE_DIRS=/nonexistent DEPS_OS_RELEASE=tests/deps/ubuntu-24.04.os-release \
      scripts/deps.sh test --dry-run 2>&1)
rc=$?
echo "$out"
[ $rc -eq 1 ] || fail "exit status $rc, expected 1"
grep -q 'apt-get install -y nlohmann-json3-dev libcli11-dev libfmt-dev libtoml11-dev libboost-context-dev libbenchmark-dev catch2$' <<<"$out" ||
  fail "24.04: the missing packages"
out=$(DEPS_INCLUDE_DIRS=/nonexistent DEPS_OS_RELEASE=tests/deps/ubuntu-22.04.os-release \
      scripts/deps.sh grade --dry-run 2>&1)
grep -q "Missing for 'make grade' on ubuntu-22.04" <<<"$out" || fail "22.04 named: $out"
out=$(DEPS_INCLUDE_DIRS=/nonexistent scripts/deps.sh grade --dry-run 2>&1)
grep -q "on debian-12" <<<"$out" || fail "Debian 12 named: $out"
# Headers found through CPATH (a GPU box with libraries unpacked under /opt): nothing to do.
CPATH=/usr/include DEPS_INCLUDE_DIRS= scripts/deps.sh grade || fail "headers on CPATH not found"
# A header without its library (the H200 box: Ubuntu's Boost headers, no libboost_context.so):
# the library's package is named, once, and not passed over because its header is there.
out=$(DEPS_LIB_DIRS=/nonexistent DEPS_OS_RELEASE=tests/deps/ubuntu-24.04.os-release \
      scripts/deps.sh grade --dry-run 2>&1)
grep -q 'apt-get install -y libboost-context-dev$' <<<"$out" || fail "library missing, header there: $out"
out=$(DEPS_INCLUDE_DIRS=/nonexistent DEPS_LIB_DIRS=/nonexistent scripts/deps.sh grade --dry-run 2>&1)
[ "$(grep -o libboost-context-dev <<<"$out" | wc -l)" -eq 1 ] || fail "a package named twice: $out"
# MODE=gpu: the toolkit, not clang; NVIDIA's toolkit is named, never apt-get installed.
out=$(PATH=/nonexistent:/usr/bin:/bin DEPS_OS_RELEASE=tests/deps/ubuntu-24.04.os-release \
      /bin/bash scripts/deps.sh grade-gpu --dry-run 2>&1)
rc=$?
echo "$out"
[ $rc -eq 1 ] || fail "grade-gpu without nvcc: exit status $rc, expected 1"
grep -q "no package for: nvcc ncu compute-sanitizer" <<<"$out" || fail "grade-gpu: the toolkit not named"
grep -q "GPU mode needs NVIDIA's CUDA toolkit" <<<"$out" || fail "grade-gpu: no advice"
grep -q "clang" <<<"$out" && fail "grade-gpu asks for clang"
# The site's search index (PyPI's pagefind_bin) missing from the Python that builds the site: with
# pip there, the pip command is named; without pip, apt-get brings python3-pip first.
fake=$(mktemp -d)
trap 'rm -rf "$fake"' EXIT
printf '#!/bin/sh\ncase "$*" in "-m pip --version") echo pip 23; exit 0 ;; esac\nexit 1\n' >"$fake/with-pip"
printf '#!/bin/sh\nexit 1\n' >"$fake/without-pip"
chmod +x "$fake/with-pip" "$fake/without-pip"
out=$(DEPS_PYTHON="$fake/with-pip" scripts/deps.sh docs --dry-run 2>&1)
rc=$?
[ $rc -eq 1 ] || fail "docs without pagefind_bin: exit status $rc, expected 1: $out"
grep -q "missing for the site's search: $fake/with-pip -m pip install pagefind_bin" <<<"$out" ||
  fail "docs without pagefind_bin: the pip command not named: $out"
out=$(DEPS_PYTHON="$fake/without-pip" DEPS_OS_RELEASE=tests/deps/ubuntu-24.04.os-release \
      scripts/deps.sh docs --dry-run 2>&1)
grep -q 'apt-get install -y .*python3-pip' <<<"$out" || fail "docs without pip: python3-pip not named: $out"
# A fresh machine without clang (a new autograder image): the packages are named; under pipefail a
# missing clang++ once ended the script silently with status 127.
t="$fake/no-clang"
mkdir "$t"
for c in sed head grep gcc id cat tr dirname readlink; do ln -s "$(command -v $c)" "$t/$c"; done
out=$(PATH=$t /bin/bash scripts/deps.sh grade --dry-run 2>&1)
rc=$?
[ $rc -eq 1 ] && grep -q "apt-get install -y .*clang" <<<"$out" || fail "no clang: exit $rc: $out"
echo "ok"
