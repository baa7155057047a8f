#!/bin/bash
# gen-corpus.sh - writes corpus.inc for measure.cu: every kernel of exercises 09 and 10 (baseline,
# solution, the corpus tests/students/09|10/*.cu) in a namespace of its own, and kCorpus, the
# table measure.cu iterates. Run from the repository root: gen-corpus.sh > corpus.inc
set -eu
entries=()
for ex in 09 10; do
  kernel=$([ $ex = 09 ] && echo scan_blocks || echo histogram256)
  for f in tests/students/$ex/*.cu; do
    ns="c${ex}_$(basename "$f" .cu)"
    printf 'namespace %s {\n#include "%s"\n}\n' "$ns" "$f"
    entries+=("  {\"$ex\", \"$(basename "$f" .cu)\", (const void*)$ns::$kernel},")
  done
done
echo "const CorpusEntry kCorpus[] = {"
printf '%s\n' "${entries[@]}"
echo "};"
