#!/usr/bin/env bash
# Negative control of the browser check: copies a built site, breaks a formula, an image, a link,
# a code block (unhighlighted CUDA, typeset as math, no copy button), the style, the search box, a
# figure's caption, a figure's width, the text column's width and a command's label in lesson 02;
# a formula's scrolling box, the title's wrapping (the page wider than a phone), a figure's link
# and the light/dark toggle in lesson 06; lesson 03's entry in the phone menu; the explorer's
# arithmetic, its XOR swizzle, its tile picture's rows and its note of lanes outside the picture;
# and, in a second copy, the search index's lesson 04. Requires check-docs-browser.sh to report
# each of them.
#   scripts/check-docs-breakage.sh HTML_DIR WORK_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
html="${1:?}"
work=$(realpath -m "${2:?}")
rm -rf "$work"
mkdir -p "$work"
cp -r "$html" "$work/html"
sed -i 's|<div class="contents"[^>]*>|<div class="contents"><p>broken: \\(\\frac{1}{\\)</p><img src="no-such-figure.svg" alt="x"><a href="no-such-page.html">x</a><div class="fragment"><div class="line">__global__ void k() { s\\[t\\] = 0; }</div></div>|' \
  "$work/html/lesson-02.html"
# A command without its "run" label, a figure whose caption is hidden, one wider than the page, a text column squeezed by a sidebar.
sed -i -e '0,/<div class="io-label">run<\/div>/s|<div class="io-label">run</div>||' \
  -e '0,/<div class="caption">/s|<div class="caption">|<div class="caption" style="display:none">|' \
  -e 's|<div class="contents"[^>]*>|<div class="contents"><img src="l02-column-read.svg" style="width:3000px;max-width:none">|' \
  -e 's|</head>|<style>div.contents { max-width: 150px; }</style></head>|' "$work/html/lesson-02.html"
# Lesson 06's widest formula left to run off a phone's screen (its scrolling box removed).
sed -i 's|</head>|<style>div.MathJax_Display, div.contents p, div.contents li { overflow: visible !important; }</style></head>|' \
  "$work/html/lesson-06.html"
# ... and the site's set-up on that page: MathJax told to typeset code, no style, no search box,
# no copy buttons.
sed -i -e 's|ignoreClass: "fragment"|ignoreClass: "none"|' -e '/href="doxygen-awesome.css"/d' \
  -e '/id="MSearchField"/d' -e '/DoxygenAwesomeFragmentCopyButton.init()/d' "$work/html/lesson-02.html"
# Lesson 06: formulas that do not break into lines (with the scrolling box above, its widest runs
# off a phone), the project's name kept on one line (wider than a phone), a figure that cannot be
# opened full size, the light/dark toggle hidden.
sed -i -e 's|</head>|<style>#projectname { white-space: nowrap !important; font-size: 28px !important; } doxygen-awesome-dark-mode-toggle { display: none !important; }</style></head>|' \
  -e 's|linebreaks: { automatic: true }|linebreaks: { automatic: false }|' \
  -e '0,/<a class="figure-link" href="[^"]*" title="Open the figure full size">/s|<a class="figure-link" href="[^"]*" title="Open the figure full size">||' \
  "$work/html/lesson-06.html"
# The phone menu without lesson 03.
sed -i '/url:"lesson-03.html"/d' "$work/html/menudata.js"
# The explorer shows one wavefront more than the bank model computes.
sed -i 's|\$("ex-wavefronts").textContent = r.wavefronts;|$("ex-wavefronts").textContent = r.wavefronts + 1;|' \
  "$work/html/explorer.js"
# ... the XOR swizzle of short rows back to c ^ r (float4 rows of 8: element 9t, a padded stride),
# the tile picture on 32-word rows whatever the expression, and lanes below it left unsaid.
sed -i -e 's|(cols >= 32 ? "t" : "(t % " + cols + ")")|"t"|' -e 's|    if (best) return {|    if (false) return {|' \
  -e 's|kMaxRows = 64|kMaxRows = 16|' -e 's|(below.length ? "; lane(s) "|(false ? "; lane(s) "|' \
  "$work/html/explorer.js"
for broken in 'r.wavefronts + 1' '" ^ " + "t" + ")"' 'if (false) return {' 'kMaxRows = 16' '(false ? "; lane(s) "'; do
  grep -qF "$broken" "$work/html/explorer.js" || { echo "check-docs-breakage: explorer.js not broken: $broken" >&2; exit 1; }
done
# The broken pages and a healthy one (the whole site is docs_browser's job).
if BANKDIAGRAM="$(dirname "$html")/../bin/bankdiagram" \
  DOCS_CHECK_PAGES="lesson-02.html lesson-03.html lesson-06.html explorer.html" scripts/check-docs-browser.sh "$work/html" \
  "$work/check" >"$work/out.txt" 2>&1; then
  echo "check-docs-breakage: the browser check passed a broken page" >&2
  exit 1
fi
status=0
for want in "raw TeX left|MathJax error" "image does not load: no-such-figure.svg" \
  "broken link: no-such-page.html" "math typeset inside a code block" "CUDA code not highlighted: __global__" \
  "the site's style \(doxygen-awesome.css\) is not loaded" "no search box" "code blocks without a copy button" \
  "figure without a visible caption: l02-column-read.svg" "figure cut off at 390 px: l02-column-read.svg" \
  "the text column is [0-9]+ of 390 px" "command not labelled 'run'" "formula cut off at 390 px" \
  "the page is [0-9]+ px wide at 390 px" "figure does not open full size \(no link to it\): l06-" \
  "no light/dark toggle on screen" "the phone menu does not reach lesson-03.html" \
  "explorer: t \* 32 \(4-byte\) shows 33 wavefronts, the bank model 32" \
  "explorer tile float4 rows of 8\+0 swizzled, column 0 \(t \* 8 \+ \(0 \^ t\)\) puts the lanes at bytes" \
  "explorer picture of t \* 33 \(4-byte\): not on rows of 33 words" \
  "explorer picture of t \* (33|64): lanes 16,17,[0-9,]*31 neither drawn nor named"; do
  if ! grep -Eq "FAIL (lesson-02|lesson-06|explorer).html@[0-9]+: ($want)" "$work/out.txt"; then
    echo "check-docs-breakage: not reported: $want" >&2
    status=1
  fi
done
# A search index without lesson 04 (its page left unmarked for Pagefind): the check over HTTP must
# see that "padding" no longer leads there, from the box and on the search page.
rm -rf "$work/search-html" && cp -r "$html" "$work/search-html"
rm -rf "$work/search-html/pagefind"
sed -i 's|<div class="contents" data-pagefind-body>|<div class="contents">|' "$work/search-html/lesson-04.html"
python3 -m pagefind_bin --site "$work/search-html" --force-language en --quiet
if DOCS_CHECK_PAGES=index.html DOCS_CHECK_SEARCH=1 DOCS_SHOTS=0 \
  scripts/check-docs-browser.sh "$work/search-html" "$work/search-check" >"$work/search.txt" 2>&1 ||
  ! grep -q "FAIL search@box: padding does not lead to lesson-04.html" "$work/search.txt" ||
  ! grep -q "FAIL search@page: padding does not lead to lesson-04.html" "$work/search.txt"; then
  echo "check-docs-breakage: not reported: a search that cannot find lesson 04" >&2
  cat "$work/search.txt" >&2
  status=1
fi
cat "$work/out.txt"
exit $status
