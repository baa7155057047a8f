#!/usr/bin/env bash
# Compiles every .cu file of the repo with nvcc for the GPU (compile only, no GPU needed), one
# per core at a time, with the registry's nvcc flags (`course-registry nvcc-flags ARCH`: the flags
# the GPU grader and benchmarks use).
#   scripts/nvcc-compile-all.sh [ARCH]      ARCH defaults to the registry's (the H200's)
# COURSE_REGISTRY names course-registry (default build/bin/course-registry; `make build` makes it).
# Files under tests/corpus/bad/ are meant to misbehave at run time, not to fail compiling, so they
# are compiled too; paths containing ".nocompile" are deliberately broken and skipped, and so is
# the student corpus (tests/students: test data that GPU-mode grading compiles itself) and the
# everyday and public corpora (tests/everyday, tests/public: upstream files, some needing their
# projects' headers; banksim compiles each with nvcc in everyday_matches_h200 and
# public_matches_h200). Measurement programs include lesson files by their path in the
# repository: the repository's root is on the include path. A file whose first 5 lines hold
# "nvcc-compile-all: skip (WHY)" is left out (a program that includes a file its script generates).
# tests/corpus/includes is on the include path (uses_include_dir.cu finds its header there, as
# banksim's test passes -I for it).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v nvcc >/dev/null; then
  echo "nvcc-compile-all: nvcc not found; skipping the GPU compile check" >&2
  exit 0
fi
registry="${COURSE_REGISTRY:-build/bin/course-registry}"
if [ ! -x "$registry" ]; then
  echo "nvcc-compile-all: $registry not found: build it first (cmake --build build --target course-registry)" >&2
  exit 2
fi
flags=$("$registry" nvcc-flags ${1:+"$1"} | tr '\n' ' ')
arch=$(sed -n 's/.*-arch=sm_\([0-9a-z]*\).*/\1/p' <<<"$flags")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
{ git ls-files '*.cu' 2>/dev/null || find . -name '*.cu' -not -path './build/*'; } |
  grep -v -e '\.nocompile' -e '^tests/students/' -e '^tests/everyday/' -e '^tests/public/' >"$out/files"
while IFS= read -r f; do
  head -5 "$f" | grep -q 'nvcc-compile-all: skip (' || echo "$f"
done <"$out/files" >"$out/kept"
mv "$out/kept" "$out/files"
n=$(wc -l <"$out/files")
export arch out flags
# Each file in its own object and error log; a failure is reported with the compiler's output.
xargs -P "$(nproc 2>/dev/null || echo 2)" -I{} bash -c '
  f="{}"; o="$out/$(echo "$f" | tr / _)"
  nvcc $flags -I. -Ibankmodel/include -Ibanksim/include -Igpu -Igpu/include -Iregistry/include \
    -Igrader/include -Itests/corpus/includes -c "$f" -o "$o.o" 2>"$o.err" || { echo "$f" >>"$out/failed"; }' <"$out/files"
failed=0
if [ -f "$out/failed" ]; then
  while IFS= read -r f; do
    echo "nvcc-compile-all: $f does not compile for sm_$arch:" >&2
    cat "$out/$(echo "$f" | tr / _).err" >&2
    failed=$((failed + 1))
  done <"$out/failed"
fi
echo "nvcc-compile-all: $n .cu files compiled for sm_$arch, $failed failed"
[ "$failed" -eq 0 ]
