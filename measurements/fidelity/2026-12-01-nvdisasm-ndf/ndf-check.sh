#!/bin/bash
# Writes its results to stdout; the committed record is ndf-check-results.txt (a measurement,
# not a build log). Usage: measurements/fidelity/2026-12-01-nvdisasm-ndf/ndf-check.sh > build/ndf-check.txt
cd "$(dirname "$0")/../.."
mkdir -p build
tmp=$(mktemp -d build/ndf-check.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
n=0; same=0; fail=0
for f in tests/everyday/*.cu solutions/*/*.cu tests/corpus/*.cu tests/students/*/*.cu; do
  [ -f "$f" ] || continue
  nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -cubin -w -x cu -Igpu/include -I$(dirname $f) -o $tmp/ndf.cubin "$f" >/dev/null 2>&1 || continue
  n=$((n+1))
  a=$( { /usr/bin/time -f %U nvdisasm -c -gi $tmp/ndf.cubin > $tmp/ndf.a; } 2>&1 )
  b=$( { /usr/bin/time -f %U nvdisasm -c -gi -ndf $tmp/ndf.cubin > $tmp/ndf.b; } 2>&1 )
  if cmp -s $tmp/ndf.a $tmp/ndf.b; then same=$((same+1)); else fail=$((fail+1)); echo "DIFF $f"; fi
  echo "$f $a $b"
done
echo "files $n identical $same differ $fail"
