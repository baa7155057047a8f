#!/usr/bin/env bash
# Opens every page of a built course site in headless Chromium and checks, after scripts ran:
# the page loads, MathJax typeset every formula (no raw TeX left, no MathJax error) and nothing
# inside a code block, CUDA code is highlighted, the search box and the site's style are there,
# every image loads, every internal link (and #anchor) resolves, and no console error was logged.
# Keeps a screenshot of lesson 02.
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
pages=$(cd "$html" && if [ -n "${DOCS_CHECK_PAGES:-}" ]; then printf '%s\n' $DOCS_CHECK_PAGES; else ls *.html; fi |
  sed 's/.*/"&"/' | paste -sd, -)
cat >"$out/harness.html" <<HTML
<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>docs check</title></head>
<body><iframe id="f" style="width:1200px;height:900px"></iframe><pre id="report"></pre>
<script>
const base = "file://$html/";
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
function check(doc, page) {
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
    report.textContent += "CHECKED " + pages.length + " pages, " + formulas + " formulas, " + failures + " failures\n";
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
      const fails = check(doc, page);
      for (const f of fails) report.textContent += "FAIL " + page + ": " + f + "\n";
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
common=(--headless --no-sandbox --disable-gpu --disable-background-networking --disable-web-security
        --allow-file-access-from-files --user-data-dir="$out/profile")
timeout 300 "$browser" "${common[@]}" --enable-logging=stderr --v=0 --virtual-time-budget=600000 \
  --dump-dom "file://$out/harness.html" >"$out/dom.html" 2>"$out/console.log" || true
sed 's/<[^>]*>//g' "$out/dom.html" | grep -E '^(FAIL|CHECKED) ' >"$out/report.txt" || true
cat "$out/report.txt"
rm -rf "$out/profile"
timeout 120 "$browser" "${common[@]}" --user-data-dir="$out/profile2" --virtual-time-budget=10000 \
  --window-size=1280,2200 --screenshot="$out/lesson-02.png" "file://$html/lesson-02.html" \
  >/dev/null 2>&1 || true
rm -rf "$out/profile2"
status=0
if ! grep -q "^CHECKED [0-9]* pages" "$out/report.txt"; then
  echo "check-docs-browser: the harness did not finish (see $out/console.log)" >&2
  status=1
fi
if grep -q "^FAIL " "$out/report.txt"; then status=1; fi
# Console errors of the pages (not the harness's own cross-origin noise).
if grep -E ':CONSOLE\([0-9]+\)\] "(Uncaught|.*[Ee]rror)' "$out/console.log" | grep -v harness.html >"$out/console-errors.txt"; then
  echo "check-docs-browser: console errors:" >&2
  cat "$out/console-errors.txt" >&2
  status=1
fi
[ -s "$out/lesson-02.png" ] || { echo "check-docs-browser: no screenshot" >&2; status=1; }
exit $status
