#!/bin/sh
# grade_without_symbolizer.sh GRADE OUT - grading stops before the first submission, naming
# llvm-symbolizer and how to install it, when the folders the sandboxed steps search hold none
# (each copy there hidden by an empty file in a mount namespace): without it banksim's lines
# read 0 and nvcc's access widths are lost, which changed verdicts on a GPU box that had clang
# but not llvm. Then the same command with the tools in place grades (the check can pass).
set -u
grade=$1
out=$2
hide=""
for f in /usr/local/bin/llvm-symbolizer* /usr/bin/llvm-symbolizer* /bin/llvm-symbolizer*; do
  [ -e "$f" ] && hide="$hide --ro-bind /dev/null $f"
done
[ -n "$hide" ] || { echo "no llvm-symbolizer here to hide: nothing to test"; exit 1; }
rm -rf "$out"
# shellcheck disable=SC2086  # $hide is a list of bwrap arguments
msg=$(bwrap --dev-bind / / $hide "$grade" --mode cpu --no-sandbox --submission solutions \
  --exercise 02 --out "$out/hidden" 2>&1)
rc=$?
echo "$msg"
[ "$rc" -eq 2 ] || { echo "FAIL: exit status $rc, expected 2"; exit 1; }
echo "$msg" | grep -q "llvm-symbolizer" || { echo "FAIL: the message does not name llvm-symbolizer"; exit 1; }
echo "$msg" | grep -q "apt-get install llvm" || { echo "FAIL: the message does not say what to install"; exit 1; }
[ ! -e "$out/hidden/results.json" ] || { echo "FAIL: graded without the tool"; exit 1; }
msg=$("$grade" --mode cpu --no-sandbox --submission solutions --exercise 02 --out "$out/present" 2>&1)
rc=$?
[ "$rc" -eq 0 ] || { echo "$msg"; echo "FAIL: with llvm-symbolizer in place: exit status $rc"; exit 1; }
echo "OK: stops without llvm-symbolizer, grades with it"
