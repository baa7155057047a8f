#!/usr/bin/env bash
# Doxygen input filter of the student edition's Markdown pages (scripts/build-docs.sh): the
# course's own filter (scripts/doxygen-md-filter.py), then every link into the measurement logs,
# which only the instructor edition holds, becomes the file's name in the repository:
#   [measurements](../../measurements/h200-x/README.md)  ->  measurements in `measurements/h200-x/README.md`
#   [measurements/h200-x](measurements/h200-x/README.md) ->  `measurements/h200-x`
# One line in, one line out, so Doxygen's warnings keep their line numbers.
set -euo pipefail
"$(dirname "$0")/doxygen-md-filter.py" "$1" | sed -E \
  -e 's#\[(measurements/[^]]*)\]\((\.\./)*measurements/[^)]*\)#`\1`#g' \
  -e 's#\[([^]]*)\]\((\.\./)*(measurements/[^)\#]*)(\#[^)]*)?\)#\1 in `\3`#g'
