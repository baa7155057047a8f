#!/usr/bin/env bash
# Doxygen input filter of the site's Markdown pages (scripts/build-docs.sh, both editions): the
# course's own filter (scripts/doxygen-md-filter.py), then every link into a measurement page
# (the pages are not site pages; the instructor edition has their index) becomes the file's name
# in the repository:
#   [measurements](../../measurements/x/y/README.md)  ->  measurements in `measurements/x/y/README.md`
#   [measurements/x/y](measurements/x/y/README.md)    ->  `measurements/x/y`
# One line in, one line out, so Doxygen's warnings keep their line numbers.
set -euo pipefail
"$(dirname "$0")/doxygen-md-filter.py" "$1" | sed -E \
  -e 's#\[(measurements/[^]]*)\]\((\.\./)*measurements/[^)]*\)#`\1`#g' \
  -e 's#\[([^]]*)\]\((\.\./)*(measurements/[^)\#]*)(\#[^)]*)?\)#\1 in `\3`#g'
