#!/usr/bin/env bash
# The lessons' figures, committed next to each lesson so that GitHub shows them: every
# `<!-- figure NAME.svg: ARGS -->` comment in lessons/NN-slug/README.md runs
# `build/bin/banksim ARGS --svg lessons/NN-slug/NAME.svg` (the bank picture of the worst request
# of the line given with --diagram).
#   scripts/lesson-figures.sh [--check] [BANKSIM]
# Without --check the figures are (re)written in place: run it after changing a lesson's kernel or
# banksim's drawing, and commit them. With --check they are drawn into a temporary folder and
# compared with the committed ones: exit 1, naming each figure that differs or is missing (the
# test suite runs this).
set -euo pipefail
cd "$(dirname "$0")/.."
check=0
if [ "${1:-}" = "--check" ]; then
  check=1
  shift
fi
banksim="${1:-build/bin/banksim}"
if [ ! -x "$banksim" ]; then
  echo "lesson-figures: $banksim is missing: run make build (or make grade) first" >&2
  exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
stale=0
for readme in lessons/*/README.md; do
  dir=$(dirname "$readme")
  while IFS= read -r line; do
    name=$(sed -E 's/.*<!-- figure ([^:]+): .*/\1/' <<<"$line")
    args=$(sed -E 's/.*<!-- figure [^:]+: (.*) -->.*/\1/' <<<"$line")
    # shellcheck disable=SC2086
    if ! "$banksim" $args --svg "$tmp/$name" >"$tmp/$name.log" 2>&1; then
      # exit 1 means "problems found"; the figure is still written. Anything else is an error.
      if [ ! -s "$tmp/$name" ]; then
        echo "lesson-figures: $dir/$name failed: $banksim $args" >&2
        cat "$tmp/$name.log" >&2
        exit 1
      fi
    fi
    n=$((n + 1))
    if [ "$check" = 1 ]; then
      if [ ! -f "$dir/$name" ]; then
        echo "lesson-figures: $dir/$name is missing: run scripts/lesson-figures.sh and commit it" >&2
        stale=$((stale + 1))
      elif ! cmp -s "$tmp/$name" "$dir/$name"; then
        echo "lesson-figures: $dir/$name differs from what banksim draws now: run" \
          "scripts/lesson-figures.sh and commit it" >&2
        stale=$((stale + 1))
      fi
    else
      cp "$tmp/$name" "$dir/$name"
    fi
  done < <(grep -o '<!-- figure .* -->' "$readme" || true)
done
# A committed figure that no lesson draws any more is stale too.
for svg in lessons/*/*.svg; do
  [ -e "$svg" ] || continue
  if ! grep -q "<!-- figure $(basename "$svg"): " "$(dirname "$svg")/README.md"; then
    if [ "$check" = 1 ]; then
      echo "lesson-figures: $svg is drawn by no figure comment of its lesson: git rm it" >&2
      stale=$((stale + 1))
    else
      rm -f "$svg"
    fi
  fi
done
if [ "$check" = 1 ] && [ "$stale" -gt 0 ]; then
  echo "lesson-figures: $stale of $n figures stale" >&2
  exit 1
fi
echo "lesson-figures: $n figures $([ "$check" = 1 ] && echo "equal to what banksim draws" || echo "written next to their lessons")"
