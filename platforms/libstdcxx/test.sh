#!/usr/bin/env bash
# make platform-libstdcxx: banksim with newer GCC's C++ headers. A GPU box on Ubuntu 24.04 or
# Debian 13 gives clang the libstdc++ of GCC 13 or 14, whose <string> says
# __attribute__((__noinline__)): a file that reaches it after banksim's CUDA keywords (through
# <cuda/std/array>, for one) must still compile. Fetches libstdc++-13-dev and libstdc++-14-dev
# from Debian 13's archive into BUILD_DIR/libstdcxx/ (once), then with each of them as clang's
# C++ headers builds and runs, under banksim, a kernel that includes each header a submission may
# include (the grader's list: `grade includes`), the corpus row that writes its tile with
# libcu++ (tests/students/04/libcuxx_array_tile.cu), the public corpus against the H200's
# counters (as public_matches_h200), and the whole student corpus graded in CPU mode (the
# grader hands $BANKSIM_CLANG to its compile step). About 5 minutes; not part of `make test`
# (it downloads).
#   platforms/libstdcxx/test.sh BUILD_DIR
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
W=$BUILD/libstdcxx
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
mkdir -p "$W"
if [ ! -f "$W/Packages" ]; then
  curl -fsS --max-time 300 "$MIRROR/dists/trixie/main/binary-amd64/Packages.xz" | xz -dc >"$W/Packages.tmp"
  mv "$W/Packages.tmp" "$W/Packages"
fi
fail=0
for v in 13 14; do
  R=$W/gcc$v
  if [ ! -d "$R/usr/include/c++/$v" ]; then
    f=$(awk -v p="libstdc++-$v-dev" '$1 == "Package:" { hit = ($2 == p) } hit && $1 == "Filename:" { print $2; exit }' "$W/Packages")
    [ -n "$f" ] || { echo "libstdc++-$v-dev is not in Debian 13's package list ($W/Packages)"; exit 1; }
    curl -fsS --max-time 300 -o "$W/libstdcxx$v.deb" "$MIRROR/$f"
    # Only the headers are kept (the package's library links point at a libstdc++ not here,
    # and dangling links in the build folder would trouble tools that walk it, Doxygen's).
    rm -rf "$R" "$R.deb-tree" && dpkg-deb -x "$W/libstdcxx$v.deb" "$R.deb-tree"
    mkdir -p "$R/usr" && mv "$R.deb-tree/usr/include" "$R/usr/include" && rm -rf "$R.deb-tree"
  fi
  # clang++ with only GCC $v's C++ headers (the C library's and the compiler's own stay).
  cat >"$W/clang-gcc$v" <<WRAP
#!/bin/sh
exec clang++ -nostdinc++ -isystem $R/usr/include/c++/$v -isystem $R/usr/include/x86_64-linux-gnu/c++/$v -isystem $R/usr/include/c++/$v/backward "\$@"
WRAP
  chmod +x "$W/clang-gcc$v"
  grep -q "__noinline__" "$R/usr/include/c++/$v/bits/basic_string.h" ||
    echo "note: GCC $v's basic_string.h has no __noinline__: this run cannot fail on it"
  T=$(mktemp -d /tmp/libstdcxx-test.XXXXXX)
  export BANKSIM_CLANG=$W/clang-gcc$v BANKSIM_CACHE=$T/cache
  bad=0 n=0
  while read -r h; do
    n=$((n + 1))
    printf '#include <%s>\n__global__ void k(float* p) { p[threadIdx.x] = 1.0f; }\n' "$h" >"$T/k.cu"
    if ! out=$("$BUILD/bin/banksim" profile "$T/k.cu" -I "$ROOT/gpu/include" --kernel k --block 32 --arg 32 2>&1); then
      bad=$((bad + 1))
      echo "GCC $v: #include <$h> under banksim: $(echo "$out" | head -1 | cut -c1-300)"
    fi
  done < <("$BUILD/bin/grade" includes)
  echo "GCC $v: $((n - bad)) of $n allowed headers build and run under banksim"
  [ "$bad" -eq 0 ] || fail=1
  # The corpus row that writes its tile with libcu++ (cuda::std::array), run as written at
  # exercise 04's first size: its kernel, launch and buffers from the registry, then n.
  f=$ROOT/tests/students/04/libcuxx_array_tile.cu
  mapfile -t launch < <("$BUILD/bin/course-registry" export --json | python3 -c '
import json, sys
e = next(x for x in json.load(sys.stdin)["exercises"] if x["id"] == "04")
s = e["sizes"][0]
print(e["kernel"]); print(",".join(map(str, s["grid"]))); print(",".join(map(str, s["block"])))
for b in s["buffers"]: print(b["count"])
print(s["n"])')
  args=()
  for a in "${launch[@]:3}"; do args+=(--arg "$a"); done
  if out=$("$BUILD/bin/banksim" profile "$f" -I "$ROOT/gpu/include" --kernel "${launch[0]}" \
      --grid "${launch[1]}" --block "${launch[2]}" "${args[@]}" 2>&1); then
    echo "GCC $v: ${f#"$ROOT"/} builds and runs under banksim"
  else
    fail=1
    echo "GCC $v: ${f#"$ROOT"/} under banksim: $(echo "$out" | head -1 | cut -c1-300)"
  fi
  # The public corpus (tests/public: CUDA samples, SGEMM_CUDA, llm.c...), as public_matches_h200
  # runs it: its files include <string>, <iostream>, <vector> as written.
  if python3 "$ROOT/tests/everyday/compare.py" "$BUILD/bin/banksim" \
      "$ROOT/measurements/fidelity/2026-12-03-public-corpus/public-ncu.json" --widths nvcc \
      --manifest "$ROOT/tests/public/public.json" --expect-differ reduction/reduce5 --jobs 2 \
      >"$T/public.txt" 2>&1; then
    echo "GCC $v: public corpus: $(grep -E "launches agree" "$T/public.txt")"
  else
    fail=1
    echo "GCC $v: public corpus FAILED: $(grep -E "DIFFERS|expected these" "$T/public.txt" | head -4)"
  fi
  # The whole student corpus graded in CPU mode by the grader, whose sandboxed compile step
  # is handed the same clang ($BANKSIM_CLANG).
  if python3 "$ROOT/tests/students/run_students.py" "$BUILD" --mode cpu --jobs 2 \
      >"$T/students.txt" 2>&1; then
    echo "GCC $v: student corpus: $(tail -1 "$T/students.txt")"
  else
    fail=1
    echo "GCC $v: student corpus: $(tail -1 "$T/students.txt")"
    grep -E "MISMATCH" "$T/students.txt" | head -5
  fi
  rm -rf "$T"
done
if [ "$fail" -ne 0 ]; then echo "platform-libstdcxx: FAILED"; exit 1; fi
echo "platform-libstdcxx: passed"
