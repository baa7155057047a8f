#!/usr/bin/env bash
# Opens every page of a built course site in headless Chromium and checks, after scripts ran:
# the page loads, MathJax typeset every formula (no raw TeX left, no MathJax error) and nothing
# inside a code block, CUDA code is highlighted, the search box and the site's style are there,
# every image loads, every internal link (and #anchor) resolves, every lesson command is labelled
# "run", every lesson figure has a visible
# caption and fits the page, and no console error was logged. Twice: every page at 1280 px, then
# the course pages (front page, lessons, exercises, deploy) at a phone's 390 px, where the text
# column must also keep most of the width. The bank explorer must start and show, for typed
# expressions, the wavefronts the native bank model (bankdiagram) computes. Screenshots of the front page, lessons 02 and 06 and
# the exercises page at both widths go to OUT_DIR/shots/.
#   [DOCS_CHECK_PAGES="a.html ..."] scripts/check-docs-browser.sh HTML_DIR OUT_DIR
set -euo pipefail
html=$(realpath "${1:?usage: check-docs-browser.sh HTML_DIR OUT_DIR}")
out=$(realpath -m "${2:?usage: check-docs-browser.sh HTML_DIR OUT_DIR}")
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "check-docs-browser: chromium is missing: apt-get install chromium" >&2
  exit 1
fi
rm -rf "$out"
mkdir -p "$out"
# DOCS_CHECK_PAGES="a.html b.html" checks only those pages (links out of them still resolve).
all_pages=$(cd "$html" && if [ -n "${DOCS_CHECK_PAGES:-}" ]; then printf '%s\n' $DOCS_CHECK_PAGES; else ls *.html; fi)
# DOCS_API_SAMPLE=N (the test suite: CI has ten minutes): every course page, and of the API
# reference's generated pages (structs, classes, files, folders, member indexes) the first N of
# each kind; `make docs-check` checks them all.
if [ -z "${DOCS_CHECK_PAGES:-}" ] && [ -n "${DOCS_API_SAMPLE:-}" ]; then
  all_pages=$(awk -v n="$DOCS_API_SAMPLE" '{
      kind = $0; sub(/[_-].*/, "", kind)
      if (kind !~ /^(functions|struct|class|dir|namespace|file|files|union|globals)/ || seen[kind]++ < n) print }' \
    <<<"$all_pages")
fi
# The search box finds every course page by its title (Doxygen indexes titles and symbols).
if [ -z "${DOCS_CHECK_PAGES:-}" ]; then
  for p in $(grep -E '^(lesson-[0-9]+|exercises|explorer|grading|deploy)\.html$' <<<"$all_pages"); do
    if ! grep -qs "'\.\./$p'" "$html"/search/*.js; then
      echo "check-docs-browser: the search finds nothing that leads to $p" >&2
      exit 1
    fi
  done
fi
if [ -z "${DOCS_CHECK_PAGES:-}" ] && ! grep -qx explorer.html <<<"$all_pages"; then
  echo "check-docs-browser: the site has no bank explorer (explorer.html)" >&2
  exit 1
fi
phone_pages=$(grep -E '^(index|lesson-[0-9]+|exercises|deploy|explorer)\.html$' <<<"$all_pages" || true)
common=(--headless --no-sandbox --disable-gpu --disable-background-networking --disable-web-security
        --allow-file-access-from-files)
# The bank explorer is checked against the native bank model: expression, width, and the
# wavefronts bankdiagram (the same C++, compiled natively) gives for that request.
bankdiagram=${BANKDIAGRAM:-$(dirname "$html")/../bin/bankdiagram}
explorer_cases=""
if [ -x "$bankdiagram" ]; then
  for c in "t * 32|4|128" "t * 33|4|132" "t * 2|4|8" "t * 8|16|128" "t|8|8" "t / 4|4|1"; do
    IFS='|' read -r expr width stride <<<"$c"
    if [ "$expr" = "t / 4" ]; then
      offs=$(for t in $(seq 0 31); do echo $(( (t / 4) * 4 )); done | paste -sd' ')
      # shellcheck disable=SC2086
      wf=$("$bankdiagram" --width "$width" --offsets $offs | grep -o '[0-9]* wavefronts\? (ideal' | head -1 | cut -d' ' -f1)
    else
      wf=$("$bankdiagram" --width "$width" --stride "$stride" | grep -o '[0-9]* wavefronts\? (ideal' | head -1 | cut -d' ' -f1)
    fi
    explorer_cases+="[\"$expr\", $width, ${wf:-0}],"
  done
fi
# One pass of the harness: WIDTH (the page's width in px), the pages, report lines with @WIDTH.
run_pass() {
  local width=$1 list=$2
  local pages
  pages=$(sed 's/.*/"&"/' <<<"$list" | paste -sd, -)
cat >"$out/harness-$width.html" <<HTML
<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>docs check</title></head>
<body><iframe id="f" style="width:${width}px;height:900px;border:0"></iframe><pre id="report"></pre>
<script>
const base = "file://$html/";
const width = $width;
const explorerCases = [$explorer_cases];
const pages = [$pages];
const cache = {};
function load(url) {
  if (url in cache) return cache[url];
  try {
    const x = new XMLHttpRequest();
    x.open("GET", url, false);
    x.send();
    cache[url] = (x.status === 0 || x.status === 200) && x.responseText.length > 0 ? x.responseText : null;
  } catch (e) { cache[url] = null; }
  return cache[url];
}
// The bank explorer: it starts (WebAssembly loaded), and for each case typed in it shows the
// wavefronts the native bank model gives (explorerCases, from bankdiagram).
function explore(doc, win, done) {
  const fails = [];
  let waited = 0;
  const ready = () => {
    if (!doc.body.dataset.explorerReady) {
      if ((waited += 50) > 8000) { done(["the explorer did not start (bankmodel.js?)"]); return; }
      setTimeout(ready, 50);
      return;
    }
    if (explorerCases.length === 0) fails.push("no expected explorer values (bankdiagram missing?)");
    for (const [expr, w, want] of explorerCases) {
      doc.getElementById("ex-width").value = String(w);
      const box = doc.getElementById("ex-expr");
      box.value = expr;
      box.dispatchEvent(new win.Event("input"));
      const got = doc.getElementById("ex-wavefronts").textContent.trim();
      if (got !== String(want)) fails.push("explorer: " + expr + " (" + w + "-byte) shows " + got + " wavefronts, the bank model " + want);
    }
    done(fails);
  };
  ready();
}
function check(doc, page, win) {
  const fails = [];
  if (!doc || !doc.body || doc.body.children.length === 0) return ["page is empty"];
  const walker = doc.createTreeWalker(doc.body, NodeFilter.SHOW_TEXT);
  let n;
  while ((n = walker.nextNode())) {
    const tag = n.parentNode ? n.parentNode.nodeName : "";
    if (tag === "SCRIPT" || tag === "STYLE") continue;
    if (n.parentNode && n.parentNode.closest && n.parentNode.closest(".fragment")) continue;  // code
    if (/\\\\f[\$\[\]]|\\\\\(|\\\\\[|\\\\(frac|lfloor|bmod|max|oplus|sum)\b/.test(n.nodeValue)) {
      fails.push("raw TeX left: " + n.nodeValue.trim().slice(0, 60));
      break;
    }
  }
  // Code blocks are code: never typeset as math, and CUDA in them is highlighted.
  if (doc.querySelector(".fragment .MathJax, .fragment .MathJax_Display, .fragment .MathJax_Preview")) {
    fails.push("math typeset inside a code block: " + doc.querySelector(".fragment").textContent.trim().slice(0, 60));
  }
  for (const frag of doc.querySelectorAll("div.fragment")) {
    if (/__global__|__shared__/.test(frag.textContent) &&
        !frag.querySelector("span.keyword, span.keywordtype, span.keywordflow")) {
      fails.push("CUDA code not highlighted: " + frag.textContent.trim().slice(0, 60));
      break;
    }
  }
  const search = doc.querySelector('script[src$="search/search.js"]');
  if (!search || load(new URL("search/searchdata.js", doc.URL).href) === null) fails.push("no search");
  const styled = [...doc.styleSheets].some(sh => /doxygen-awesome\.css$/.test(sh.href || ""));
  if (!styled) fails.push("the site's style (doxygen-awesome.css) is not loaded");
  const err = doc.querySelector(".MathJax_Error, .merror, merror");
  if (err) fails.push("MathJax error: " + err.textContent.trim().slice(0, 60));
  for (const img of doc.images) {
    if (!(img.complete && img.naturalWidth > 0)) fails.push("image does not load: " + img.getAttribute("src"));
  }
  // Lesson figures (lNN-*.svg): a caption the reader sees, and the whole figure on the page.
  const view = doc.documentElement.clientWidth;
  for (const img of doc.querySelectorAll("div.contents img, div.contents object")) {
    const src = img.getAttribute("src") || img.getAttribute("data") || "";
    if (img.nodeName === "OBJECT" && load(new URL(src, doc.URL).href) === null) fails.push("figure does not load: " + src);
    if (/^l[0-9][0-9]-.*\.svg$/.test(src)) {
      const box = img.closest("div.image");
      const cap = box && box.querySelector(".caption");
      if (!cap || !cap.textContent.trim() || cap.getBoundingClientRect().height === 0) {
        fails.push("figure without a visible caption: " + src);
      }
    }
    const r = img.getBoundingClientRect();
    if (r.width > 0 && r.right > view + 1) fails.push("figure cut off at " + width + " px: " + src + " ends at " + Math.round(r.right) + " px");
  }
  // Commands are labelled "run" (scripts/doxygen-md-filter.py), outputs "you should see".
  if (/^lesson-[0-9]+\.html$/.test(page)) {
    for (const frag of doc.querySelectorAll("div.fragment")) {
      const first = (frag.querySelector("div.line") || frag).textContent.trim();
      if (!/^(build\/bin\/|make |for )/.test(first)) continue;
      let prev = frag.previousElementSibling;
      if (!prev || !prev.classList.contains("io-label") || !/run/i.test(prev.textContent)) {
        fails.push("command not labelled 'run': " + first.slice(0, 50));
        break;
      }
    }
  }
  // A formula wider than the page must sit in something that scrolls, not run off the edge.
  for (const mj of doc.querySelectorAll(".MathJax_Display, span.MathJax")) {
    const r = mj.getBoundingClientRect();
    if (r.width === 0 || r.right <= view + 1) continue;
    let scrolls = false;
    // Its own block or paragraph must scroll: a whole text column that scrolls sideways is the
    // page running off a phone's screen.
    for (let el = mj.parentElement; el && !scrolls && !el.matches("div.contents, div.textblock"); el = el.parentElement) {
      const ox = win.getComputedStyle(el).overflowX;
      scrolls = (ox === "auto" || ox === "scroll") && el.getBoundingClientRect().right <= view + 1;
    }
    if (!scrolls) {
      fails.push("formula cut off at " + width + " px: " + mj.textContent.trim().slice(0, 40));
      break;
    }
  }
  const contents = doc.querySelector("div.contents");
  if (contents && width <= 600 && /^(index|lesson-[0-9]+|exercises|deploy|explorer)\.html$/.test(page)) {
    const w = contents.getBoundingClientRect().width;
    if (w < 0.75 * view) fails.push("the text column is " + Math.round(w) + " of " + view + " px");
  }
  for (const a of doc.querySelectorAll("a[href]")) {
    const href = a.getAttribute("href");
    if (/^(https?:|mailto:|javascript:)/.test(href) || href === "#" || href === "") continue;
    const url = new URL(href, doc.URL);
    if (url.protocol !== "file:") continue;
    const text = load(url.href.split("#")[0]);
    if (text === null) { fails.push("broken link: " + href); continue; }
    if (url.hash.length > 1) {
      const id = decodeURIComponent(url.hash.slice(1));
      if (!text.includes('id="' + id + '"') && !text.includes('name="' + id + '"')) fails.push("missing anchor: " + href);
    }
  }
  return fails;
}
const frame = document.getElementById("f");
const report = document.getElementById("report");
let i = 0, failures = 0, formulas = 0;
function next() {
  if (i >= pages.length) {
    report.textContent += "CHECKED " + pages.length + " pages at " + width + " px, " + formulas + " formulas, " + failures + " failures\n";
    document.title = "done";
    return;
  }
  const page = pages[i++];
  frame.onload = () => {
    const win = frame.contentWindow, doc = frame.contentDocument;
    let waited = 0;
    const settle = () => {
      const mj = win.MathJax;
      if (mj && mj.Hub && mj.isReady) {
        mj.Hub.Queue(() => {
          formulas += doc.querySelectorAll(".MathJax, .MathJax_Display").length;
          finish();
        });
      } else if (waited < 3000 && /\\\\[(\\[]/.test(doc.body.textContent)) {
        waited += 50; setTimeout(settle, 50);
      } else finish();
    };
    const finish = () => {
      if (page === "explorer.html" && !finish.explored) {
        finish.explored = true;
        return explore(doc, win, (f) => { finish.explorerFails = f; finish(); });
      }
      const fails = check(doc, page, win).concat(finish.explorerFails || []);
      finish.explored = false;
      finish.explorerFails = null;
      for (const f of fails) report.textContent += "FAIL " + page + "@" + width + ": " + f + "\n";
      failures += fails.length;
      setTimeout(next, 0);
    };
    settle();
  };
  frame.src = base + page;
}
next();
</script></body></html>
HTML
  timeout 300 "$browser" "${common[@]}" --user-data-dir="$out/profile-$width" --enable-logging=stderr \
    --v=0 --virtual-time-budget=600000 --dump-dom "file://$out/harness-$width.html" \
    >"$out/dom-$width.html" 2>>"$out/console.log" || true
  rm -rf "$out/profile-$width"
  sed 's/<[^>]*>//g' "$out/dom-$width.html" | grep -E '^(FAIL|CHECKED) ' >>"$out/report.txt" || true
}
: >"$out/report.txt"
run_pass 1280 "$all_pages"
[ -z "$phone_pages" ] || run_pass 390 "$phone_pages"
cat "$out/report.txt"
# Screenshots for a person to look at (make docs-check); the test suite takes only the one it
# checks below (DOCS_SHOTS=0: ten browser starts cost it about a minute).
mkdir -p "$out/shots"
shot_pages="index lesson-02 lesson-06 exercises explorer" shot_sizes="1280,2200 390,2400"
[ "${DOCS_SHOTS:-1}" = 0 ] && shot_pages=lesson-02 shot_sizes=390,2400
for page in $shot_pages; do
  [ -f "$html/$page.html" ] || continue
  for size in $shot_sizes; do
    timeout 120 "$browser" "${common[@]}" --user-data-dir="$out/profile-shot" --virtual-time-budget=10000 \
      --hide-scrollbars --window-size=$size --screenshot="$out/shots/$page-${size%%,*}.png" \
      "file://$html/$page.html" >/dev/null 2>&1 || true
    rm -rf "$out/profile-shot"
  done
done
status=0
if ! grep -q "^CHECKED [0-9]* pages at 1280 px" "$out/report.txt" ||
  { [ -n "$phone_pages" ] && ! grep -q "^CHECKED [0-9]* pages at 390 px" "$out/report.txt"; }; then
  echo "check-docs-browser: the harness did not finish (see $out/console.log)" >&2
  status=1
fi
if grep -q "^FAIL " "$out/report.txt"; then status=1; fi
# Console errors of the pages (not the harness's own cross-origin noise).
if grep -E ':CONSOLE\([0-9]+\)\] "(Uncaught|.*[Ee]rror)' "$out/console.log" | grep -v 'harness-[0-9]*\.html' >"$out/console-errors.txt"; then
  echo "check-docs-browser: console errors:" >&2
  cat "$out/console-errors.txt" >&2
  status=1
fi
if [ -f "$html/lesson-02.html" ] && ! [ -s "$out/shots/lesson-02-390.png" ]; then
  echo "check-docs-browser: no screenshot" >&2
  status=1
fi
exit $status
