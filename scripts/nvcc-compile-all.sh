#!/usr/bin/env bash
# Compiles every .cu file of the repo with nvcc for the GPU (compile only, no GPU needed).
#   scripts/nvcc-compile-all.sh [ARCH]      ARCH defaults to 90 (H100/H200)
# Files under tests/corpus/bad/ are meant to misbehave at run time, not to fail compiling, so they
# are compiled too; paths containing ".nocompile" are deliberately broken and skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
arch="${1:-90}"
if ! command -v nvcc >/dev/null; then
  echo "nvcc-compile-all: nvcc not found; skipping the GPU compile check" >&2
  exit 0
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
n=0; failed=0
while IFS= read -r f; do
  case "$f" in *.nocompile*) continue ;; esac
  n=$((n + 1))
  if ! nvcc -arch=sm_"$arch" -std=c++17 -Ibanksim/include -Igpu -Igpu/include -Iregistry/include -Igrader/include -c "$f" -o "$out/x.o" 2>"$out/err"; then
    echo "nvcc-compile-all: $f does not compile for sm_$arch:" >&2
    cat "$out/err" >&2
    failed=$((failed + 1))
  fi
done < <(git ls-files '*.cu' 2>/dev/null || find . -name '*.cu' -not -path './build/*')
echo "nvcc-compile-all: $n .cu files compiled for sm_$arch, $failed failed"
[ "$failed" -eq 0 ]
