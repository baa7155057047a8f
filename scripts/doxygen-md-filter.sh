#!/usr/bin/env bash
# Doxygen input filter for Markdown pages (FILTER_PATTERNS). One line in, one line out, so
# Doxygen's warnings keep their line numbers:
# - a figure on a line of its own, ![caption](file.svg), becomes `\image html file.svg "caption"`,
#   which Doxygen 1.9 draws with a visible caption (the Markdown form gets only a tooltip);
# - commands and their output are labelled: the `<!-- try -->` marker (and the blank line before
#   any other ```sh block) becomes "run", `<!-- expect -->` "you should see", and
#   `<!-- expect shortened -->` (a block that leaves lines out; the lessons test enforces the
#   marker) "you should see (shortened)".
exec awk '
  function label(text) { return "<div class=\"io-label\">" text "</div>" }
  {
    line = $0
    if (line ~ /^!\[[^]]+\]\([^)"]+\.svg\)[[:space:]]*$/) {
      i = index(line, "](")
      cap = substr(line, 3, i - 3)
      file = substr(line, i + 2); sub(/\)[[:space:]]*$/, "", file)
      line = "\\image html " file " \"" cap "\""
    } else if (line ~ /^<!-- try -->[[:space:]]*$/) {
      line = label("run")
    } else if (line ~ /^<!-- expect -->[[:space:]]*$/) {
      line = label("you should see")
    } else if (line ~ /^<!-- expect shortened -->[[:space:]]*$/) {
      line = label("you should see (shortened)")
    } else if (line ~ /^```sh[[:space:]]*$/ && have_prev && prev ~ /^[[:space:]]*$/ && !in_code) {
      prev = label("run")
    }
    if (line ~ /^```/) in_code = !in_code
    if (have_prev) print prev
    prev = line; have_prev = 1
  }
  END { if (have_prev) print prev }
' "$1"
