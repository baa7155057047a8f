#!/usr/bin/env bash
# Doxygen input filter for Markdown pages (FILTER_PATTERNS): a figure on a line of its own,
# ![caption](file.svg), becomes `\image html file.svg "caption"`, which Doxygen 1.9 draws as a
# figure with a visible caption (it renders the Markdown form as an inline image whose caption is
# only a tooltip). One line in, one line out: warnings keep their line numbers.
exec sed -E 's/^!\[([^]]+)\]\(([^)"]+\.svg)\)[[:space:]]*$/\\image html \2 "\1"/' "$1"
