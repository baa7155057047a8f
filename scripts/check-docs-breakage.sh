#!/usr/bin/env bash
# Negative control of the browser check: copies a built site, breaks a formula, an image, a link,
# a code block (unhighlighted CUDA, typeset as math), the style, the search, a figure's caption,
# a figure's width, the text column's width and a command's label in lesson 02, a formula's
# scrolling box in lesson 06, the explorer's arithmetic on purpose, and requires
# check-docs-browser.sh to report each of them.
#   scripts/check-docs-breakage.sh HTML_DIR WORK_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
html="${1:?}"
work=$(realpath -m "${2:?}")
rm -rf "$work"
mkdir -p "$work"
cp -r "$html" "$work/html"
sed -i 's|<div class="contents">|<div class="contents"><p>broken: \\(\\frac{1}{\\)</p><img src="no-such-figure.svg" alt="x"><a href="no-such-page.html">x</a><div class="fragment"><div class="line">__global__ void k() { s\\[t\\] = 0; }</div></div>|' \
  "$work/html/lesson-02.html"
# A command without its "run" label, a figure whose caption is hidden, one wider than the page, a text column squeezed by a sidebar.
sed -i -e '0,/<div class="io-label">run<\/div>/s|<div class="io-label">run</div>||' \
  -e '0,/<div class="caption">/s|<div class="caption">|<div class="caption" style="display:none">|' \
  -e 's|<div class="contents">|<div class="contents"><img src="l02-column-read.svg" style="width:3000px;max-width:none">|' \
  -e 's|</head>|<style>div.contents { max-width: 150px; }</style></head>|' "$work/html/lesson-02.html"
# Lesson 06's widest formula left to run off a phone's screen (its scrolling box removed).
sed -i 's|</head>|<style>div.MathJax_Display, div.contents p, div.contents li { overflow: visible !important; }</style></head>|' \
  "$work/html/lesson-06.html"
# ... and the site's set-up on that page: MathJax told to typeset code, no style, no search.
sed -i -e 's|ignoreClass: "fragment"|ignoreClass: "none"|' -e '/doxygen-awesome.css/d' \
  -e '/search\/search.js/d' "$work/html/lesson-02.html"
# The explorer shows one wavefront more than the bank model computes.
sed -i 's|\$("ex-wavefronts").textContent = r.wavefronts;|$("ex-wavefronts").textContent = r.wavefronts + 1;|' \
  "$work/html/explorer.js"
grep -q 'r.wavefronts + 1' "$work/html/explorer.js" || { echo "check-docs-breakage: explorer.js not broken" >&2; exit 1; }
# The broken pages and a healthy one (the whole site is docs_browser's job).
if BANKDIAGRAM="$(dirname "$html")/../bin/bankdiagram" \
  DOCS_CHECK_PAGES="lesson-02.html lesson-03.html lesson-06.html explorer.html" scripts/check-docs-browser.sh "$work/html" \
  "$work/check" >"$work/out.txt" 2>&1; then
  echo "check-docs-breakage: the browser check passed a broken page" >&2
  exit 1
fi
status=0
for want in "raw TeX left|MathJax error" "image does not load: no-such-figure.svg" \
  "broken link: no-such-page.html" "math typeset inside a code block" "CUDA code not highlighted" \
  "the site's style \(doxygen-awesome.css\) is not loaded" "no search" \
  "figure without a visible caption: l02-column-read.svg" "figure cut off at 390 px: l02-column-read.svg" \
  "the text column is [0-9]+ of 390 px" "command not labelled 'run'" "formula cut off at 390 px" \
  "explorer: t \* 32 \(4-byte\) shows 33 wavefronts, the bank model 32"; do
  if ! grep -Eq "FAIL (lesson-02|lesson-06|explorer).html@[0-9]+: ($want)" "$work/out.txt"; then
    echo "check-docs-breakage: not reported: $want" >&2
    status=1
  fi
done
# A search index that does not lead to a lesson (the whole-site run checks it).
rm -rf "$work/search-html" && cp -r "$html" "$work/search-html"
sed -i "s|'\.\./lesson-04\.html'|'../elsewhere.html'|g" "$work/search-html"/search/*.js
if scripts/check-docs-browser.sh "$work/search-html" "$work/search-check" >"$work/search.txt" 2>&1 ||
  ! grep -q "the search finds nothing that leads to lesson-04.html" "$work/search.txt"; then
  echo "check-docs-breakage: not reported: a search that cannot find lesson 04" >&2
  cat "$work/search.txt" >&2
  status=1
fi
cat "$work/out.txt"
exit $status
