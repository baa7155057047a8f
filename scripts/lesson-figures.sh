#!/usr/bin/env bash
# Generates the lessons' figures: every `<!-- figure NAME.svg: ARGS -->` comment in
# lessons/*/README.md runs `build/bin/banksim ARGS --svg OUTDIR/NAME.svg` (the bank picture of the
# worst request of the line given with --diagram). Used by `make docs` and by the test suite.
#   scripts/lesson-figures.sh OUTDIR [BANKSIM]
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: lesson-figures.sh OUTDIR [BANKSIM]}"
banksim="${2:-build/bin/banksim}"
mkdir -p "$out"
n=0
while IFS= read -r line; do
  name=$(sed -E 's/.*<!-- figure ([^:]+): .*/\1/' <<<"$line")
  args=$(sed -E 's/.*<!-- figure [^:]+: (.*) -->.*/\1/' <<<"$line")
  # shellcheck disable=SC2086
  if ! "$banksim" $args --svg "$out/$name" >"$out/$name.log" 2>&1; then
    # exit 1 means "problems found"; the figure is still written. Anything else is an error.
    if [ ! -s "$out/$name" ]; then
      echo "lesson-figures: $name failed: $banksim $args" >&2
      cat "$out/$name.log" >&2
      exit 1
    fi
  fi
  n=$((n + 1))
done < <(grep -h -o '<!-- figure [^>]* -->' lessons/*/README.md)
echo "lesson-figures: $n figures in $out"
