#!/usr/bin/env bash
# Over 600 lines on purpose: one headless browser session loads each page once and runs every
# check on it, so the checks share its loader and report.
# Opens every page of a built course site in headless Chromium and checks, after scripts ran:
# the page loads, MathJax typeset every formula (no raw TeX left, no MathJax error) and nothing
# inside a code block, CUDA's keywords (__global__, __shared__, __syncthreads) are highlighted,
# code blocks have copy buttons, the search box, the light/dark toggle and the site's style are
# there, every image loads, every internal link (and #anchor) resolves, every lesson command is
# labelled "run", every lesson figure has a visible caption, fits the page and opens full size (a
# link to the SVG itself), and no console error was logged. Twice: every page at 1280 px, then the
# course's pages (not the API reference) at a phone's 390 px, where no page may be wider than the
# screen, no formula may run off it, the text column must keep most of the width, and the menu
# behind the menu button must reach every course page and exercise. The bank explorer must start
# and show, for typed expressions and for the tiles the lessons use (float 32x32 and 32x33, float4
# rows of 8, double 32x32 and 32x33; column, row and XOR-swizzled reads), the wavefronts and byte
# offsets the native bank model (bankdiagram) computes, and draw its tile picture on the rows the
# expression implies, naming any lane it cannot draw. The full-text search (Pagefind; the site
# served over HTTP on 127.0.0.1) must find padding, swizzle, broadcast, wavefront, float4 and
# explorer on the pages that teach them, from the header's box and on the search page.
# Screenshots of the front page, lessons 02, 06 and 08, the exercises page and the explorer at
# both widths go to OUT_DIR/shots/.
#   [DOCS_CHECK_PAGES="a.html ..."] scripts/check-docs-browser.sh HTML_DIR OUT_DIR
# Over 600 lines on purpose: one headless-Chromium session checks every page, and each check's
# script sits beside its message.
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
# The search index (Pagefind's, scripts/build-docs.sh) is there; what it finds is checked below.
if [ ! -s "$html/pagefind/pagefind-entry.json" ] || [ ! -s "$html/pagefind/pagefind.js" ]; then
  echo "check-docs-browser: the site has no search index ($html/pagefind/)" >&2
  exit 1
fi
if [ -z "${DOCS_CHECK_PAGES:-}" ] && ! grep -qx explorer.html <<<"$all_pages"; then
  echo "check-docs-browser: the site has no bank explorer (explorer.html)" >&2
  exit 1
fi
# The course's pages: everything but the API reference (instructor edition) and Doxygen's folder
# pages. The phone's menu must lead to each of them (measurement logs: through their section page).
course_re='^(index|lesson-[0-9]+|lessons|exercises|explorer|grading|reference|bank_rules|instructors|deploy|grading_security|solutions|measurements|search|md_.*)\.html$'
menu_re='^(index|lesson-[0-9]+|lessons|exercises|explorer|grading|reference|bank_rules|instructors|deploy|grading_security|solutions|measurements|search|md_banksim_README|md_CONTRIBUTING)\.html$'
phone_pages=$(grep -E "$course_re" <<<"$all_pages" || true)
menu_pages=$(cd "$html" && ls *.html | grep -E "$menu_re" | sed 's/.*/"&"/' | paste -sd, -)
exercise_ids=$(grep -o 'id="exercise-[0-9]*"' "$html/exercises.html" 2>/dev/null | sed 's/id="\(.*\)"/"exercises.html#\1"/' | paste -sd, - || true)
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
# The explorer's tiles against the same bank model: element [r][c] of rows of COLS elements + PAD
# at index r*(COLS+PAD) + c, or c ^ (r % COLS) with the XOR swizzle; a column read puts lane t in
# row t, column K; a row read gives lane t element t of the rows from K on. Each case: width, cols,
# pad, swizzle, read, K; expected: the wavefronts and every lane's byte offset.
tile_offsets() { # WIDTH COLS PAD SWIZZLE READ K -> 32 byte offsets
  local w=$1 cols=$2 pad=$3 swz=$4 read=$5 k=$6 t r c
  for t in $(seq 0 31); do
    if [ "$read" = column ]; then r=$t c=$k; else r=$((k + t / cols)) c=$((t % cols)); fi
    [ "$swz" = 1 ] && c=$((c ^ (r % cols)))
    echo $(((r * (cols + pad) + c) * w))
  done
}
tile_cases=""
if [ -x "$bankdiagram" ]; then
  for c in "4 32 0 0 column 0" "4 32 0 1 column 0" "4 32 0 1 column 5" "4 32 0 1 row 3" "4 32 1 0 column 0" \
           "4 32 1 0 row 2" "16 8 0 0 column 0" "16 8 0 1 column 0" "16 8 0 1 column 3" "16 8 0 0 row 0" \
           "16 8 0 1 row 1" "8 32 0 0 column 0" "8 32 0 1 column 0" "8 32 1 0 column 0" "8 32 1 0 row 0"; do
    read -r w cols pad swz rd k <<<"$c"
    offs=$(tile_offsets "$w" "$cols" "$pad" "$swz" "$rd" "$k" | paste -sd' ')
    # shellcheck disable=SC2086
    wf=$("$bankdiagram" --width "$w" --offsets $offs | grep -o '[0-9]* wavefronts\? (ideal' | head -1 | cut -d' ' -f1)
    tile_cases+="[$w, $cols, $pad, $swz, \"$rd\", $k, ${wf:-0}, \"$offs\"],"
  done
fi
# The tile picture of typed expressions: the words per row it must draw (0: none, said why), and
# whether every lane must be in the picture.
picture_cases='["t * 33", 4, 33], ["t * 64", 4, 64], ["t * 32", 4, 32], ["t * 8", 16, 32], ["t * 2", 4, 32], ["t * 1000", 4, 0]'
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
const tileCases = [$tile_cases];
const pictureCases = [$picture_cases];
const menuPages = [$menu_pages];
const exerciseIds = [$exercise_ids];
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
    const show = () => doc.getElementById("ex-error").textContent.trim() || doc.getElementById("ex-wavefronts").textContent.trim();
    for (const [expr, w, want] of explorerCases) {
      doc.getElementById("ex-width").value = String(w);
      const box = doc.getElementById("ex-expr");
      box.value = expr;
      box.dispatchEvent(new win.Event("input"));
      const got = show();
      if (got !== String(want)) fails.push("explorer: " + expr + " (" + w + "-byte) shows " + got + " wavefronts, the bank model " + want);
    }
    // The tiles: set the fields as a reader would, press "use this tile".
    if (tileCases.length === 0) fails.push("no expected explorer tiles (bankdiagram missing?)");
    for (const id of ["ex-tile-preset", "ex-cols", "ex-pad", "ex-swizzle", "ex-read", "ex-k", "ex-apply", "ex-tile-note", "ex-tile"]) {
      if (!doc.getElementById(id)) { fails.push("the explorer has no #" + id); done(fails); return; }
    }
    for (const [w, cols, pad, swz, read, k, want, offs] of tileCases) {
      const name = (w === 4 ? "float" : w === 8 ? "double" : "float4") + " rows of " + cols + "+" + pad +
        (swz ? " swizzled" : "") + ", " + read + " " + k;
      doc.getElementById("ex-tile-preset").value = "";
      doc.getElementById("ex-width").value = String(w);
      doc.getElementById("ex-cols").value = String(cols);
      doc.getElementById("ex-pad").value = String(pad);
      doc.getElementById("ex-swizzle").checked = !!swz;
      doc.getElementById("ex-read").value = read;
      doc.getElementById("ex-k").value = String(k);
      doc.getElementById("ex-apply").click();
      const got = show();
      const expr = doc.getElementById("ex-expr").value;
      if (got !== String(want)) fails.push("explorer tile " + name + " (" + expr + ") shows " + got + " wavefronts, the bank model " + want);
      const bytes = [...doc.querySelectorAll("#ex-lanes tr")].map((tr) => tr.children[2].textContent.trim()).join(" ");
      if (bytes !== offs) fails.push("explorer tile " + name + " (" + expr + ") puts the lanes at bytes " + bytes.slice(0, 60) + "..., the tile at " + offs.slice(0, 60) + "...");
    }
    // The tile picture: drawn on the rows the expression implies, every lane in it or named.
    for (const [expr, w, words] of pictureCases) {
      doc.getElementById("ex-width").value = String(w);
      const box = doc.getElementById("ex-expr");
      box.value = expr;
      box.dispatchEvent(new win.Event("input"));
      const note = doc.getElementById("ex-tile-note").textContent;
      const svg = doc.getElementById("ex-tile").textContent;
      if (words === 0) {
        if (svg.trim() || !/^No tile picture: /.test(note)) fails.push("explorer picture of " + expr + ": drawn, or not said why not: " + note.slice(0, 80));
        continue;
      }
      if (!new RegExp("rows? of " + words + " words").test(note) || !/ rows of [0-9]+ words/.test(svg) ||
          !svg.includes("rows of " + words + " words")) {
        fails.push("explorer picture of " + expr + " (" + w + "-byte): not on rows of " + words + " words: " + note.slice(0, 80));
      }
      const missing = [];
      for (let t = 0; t < 32; t++) if (!new RegExp("(^|[^0-9])t" + t + "([^0-9]|$)").test(svg) && !/outside the picture/.test(note)) missing.push(t);
      if (missing.length) fails.push("explorer picture of " + expr + ": lanes " + missing.join(",") + " neither drawn nor named");
      if (/words lie outside the picture/.test(svg) && !/outside the picture/.test(note)) fails.push("explorer picture of " + expr + ": words cut off without saying which lanes");
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
  // CUDA's own words are keywords (scripts/docs-postprocess.py), outside comments and strings.
  cuda: for (const frag of doc.querySelectorAll("div.fragment")) {
    const words = frag.ownerDocument.createTreeWalker(frag, NodeFilter.SHOW_TEXT);
    let w;
    while ((w = words.nextNode())) {
      const m = /(^|[^A-Za-z0-9_])(__global__|__shared__|__syncthreads)([^A-Za-z0-9_]|$)/.exec(w.nodeValue);
      if (m && !w.parentNode.closest("span.keyword, span.keywordflow, span.keywordtype, span.comment, span.stringliteral, span.charliteral, span.preprocessor, .ttc")) {
        fails.push("CUDA code not highlighted: " + m[2] + " in " + frag.textContent.trim().slice(0, 50));
        break cuda;
      }
    }
  }
  // Every code block has a copy button (doxygen-awesome-css's extension).
  const frags = doc.querySelectorAll("div.contents div.fragment").length;
  const copies = doc.querySelectorAll("div.contents doxygen-awesome-fragment-copy-button").length;
  if (frags > 0 && copies < frags) fails.push("code blocks without a copy button: " + (frags - copies) + " of " + frags);
  // The header's search box (full text, Pagefind) and the light/dark toggle, on screen.
  const box = doc.querySelector("form#site-search-form input#MSearchField");
  if (!box || !/(^|\/)search\.html$/.test(box.form.getAttribute("action") || "") || box.getBoundingClientRect().width < 100) fails.push("no search box");
  const toggle = doc.querySelector("doxygen-awesome-dark-mode-toggle");
  const tr = toggle && toggle.getBoundingClientRect();
  if (!tr || tr.width === 0 || tr.right > doc.documentElement.clientWidth + 1) fails.push("no light/dark toggle on screen");
  const styled = [...doc.styleSheets].some(sh => /doxygen-awesome\.css$/.test(sh.href || ""));
  if (!styled) fails.push("the site's style (doxygen-awesome.css) is not loaded");
  const err = doc.querySelector(".MathJax_Error, .merror, merror");
  if (err) fails.push("MathJax error: " + err.textContent.trim().slice(0, 60));
  for (const img of doc.images) {
    if (!(img.complete && img.naturalWidth > 0)) fails.push("image does not load: " + img.getAttribute("src"));
  }
  // Lesson figures (SVG): a caption the reader sees, and the whole figure on the page.
  const view = doc.documentElement.clientWidth;
  for (const img of doc.querySelectorAll("div.contents img, div.contents object")) {
    const src = img.getAttribute("src") || img.getAttribute("data") || "";
    if (img.nodeName === "OBJECT" && load(new URL(src, doc.URL).href) === null) fails.push("figure does not load: " + src);
    if (/\.svg$/.test(src) && /^lesson-[0-9]+\.html$/.test(page)) {
      const box = img.closest("div.image");
      const cap = box && box.querySelector(".caption");
      if (!cap || !cap.textContent.trim() || cap.getBoundingClientRect().height === 0) {
        fails.push("figure without a visible caption: " + src);
      }
    }
    const r = img.getBoundingClientRect();
    if (r.width > 0 && r.right > view + 1) fails.push("figure cut off at " + width + " px: " + src + " ends at " + Math.round(r.right) + " px");
    // A figure opens full size: it is a link to the figure itself.
    const link = img.closest("a[href]");
    if (img.closest("div.image") && (!link || link.getAttribute("href") !== src)) fails.push("figure does not open full size (no link to it): " + src);
  }
  // The toggle switches between the light and the dark theme (and back).
  if (page === "index.html" && tr && tr.width > 0) {
    const dark = () => doc.documentElement.classList.contains("dark-mode");
    const before = dark();
    toggle.click();
    const after = dark();
    toggle.click();
    if (before === after || dark() !== before) fails.push("the light/dark toggle does not switch the theme");
  }
  // On a phone the menu button opens a menu that reaches every course page and exercise.
  if (width <= 600 && menuPages.length) {
    const btn = doc.querySelector("label.main-menu-btn"), state = doc.getElementById("main-menu-state");
    const menu = doc.getElementById("main-menu");
    const br = btn && btn.getBoundingClientRect();
    if (!btn || !state || !menu || br.width === 0 || br.right > view + 1) {
      fails.push("no menu button at " + width + " px");
    } else {
      const jq = win.jQuery;
      jq.fx.off = true;  // no animations: what opens is open at once
      state.checked = true;
      state.dispatchEvent(new win.Event("change", { bubbles: true }));
      for (const a of menu.querySelectorAll("a.has-submenu")) jq(menu).smartmenus("itemActivate", jq(a));
      const shown = new Set();
      for (const a of menu.querySelectorAll("a[href]")) {
        const r = a.getBoundingClientRect();
        if (r.width > 0 && r.height > 0 && r.left >= -1 && r.left < view) shown.add(a.getAttribute("href"));
      }
      for (const want of menuPages.concat(exerciseIds)) {
        if (!shown.has(want)) fails.push("the phone menu does not reach " + want);
      }
      state.checked = false;
      state.dispatchEvent(new win.Event("change", { bubbles: true }));
    }
  }
  // On a phone no page is wider than the screen (a long title, a table, a figure...).
  if (width <= 600) {
    const wide = Math.max(doc.documentElement.scrollWidth, doc.body.scrollWidth);
    if (wide > view + 1) {
      // The first element past the edge that no scrolling or clipping box holds.
      const clipped = (el) => {
        for (let a = el.parentElement; a && a !== doc.body; a = a.parentElement) {
          if (/^(auto|scroll|hidden|clip)$/.test(win.getComputedStyle(a).overflowX)) return true;
        }
        return false;
      };
      let culprit = "";
      for (const el of doc.querySelectorAll("body *")) {
        const r = el.getBoundingClientRect();
        if (r.width > 0 && r.right > view + 1 && !clipped(el)) {
          culprit = el.nodeName.toLowerCase() + (el.id ? "#" + el.id : el.className && typeof el.className === "string" ? "." + el.className.split(" ")[0] : "");
          break;
        }
      }
      fails.push("the page is " + wide + " px wide at " + width + " px" + (culprit ? " (" + culprit + ")" : ""));
    }
  }
  // Commands are labelled "run" (scripts/doxygen-md-filter.py), outputs "you should see".
  if (/^lesson-[0-9]+\.html$/.test(page)) {
    for (const frag of doc.querySelectorAll("div.fragment")) {
      const first = (frag.querySelector("div.line") || frag).textContent.trim();
      if (!/^(build\/bin\/|make |for )/.test(first)) continue;
      // The copy button's wrapper (doxygen-awesome-fragment-wrapper) holds the block when it is there.
      const block = frag.parentElement.classList.contains("doxygen-awesome-fragment-wrapper") ? frag.parentElement : frag;
      let prev = block.previousElementSibling;
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
      // The light/dark toggle joins the header once jQuery's ready handlers have run.
      if (!doc.querySelector("doxygen-awesome-dark-mode-toggle") && (finish.waited = (finish.waited || 0) + 50) < 3000) {
        return setTimeout(finish, 50);
      }
      finish.waited = 0;
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
# The full-text search as a reader uses it, with the site served over HTTP on 127.0.0.1 (browsers
# do not load Pagefind's index into file:// pages): each word typed into the header's box of the
# front page on a phone, and looked up on the search page. The page that teaches the word must be
# among the first three results of both, and the box's results must fit the phone's screen.
# (DOCS_CHECK_PAGES runs only on request: DOCS_CHECK_SEARCH=1.)
search_words='["padding", ["lesson-04.html"]], ["swizzle", ["lesson-06.html"]],
  ["broadcast", ["lesson-01.html", "bank_rules.html"]], ["wavefront", ["lesson-01.html", "bank_rules.html"]],
  ["float4", ["lesson-06.html", "lesson-07.html", "lesson-08.html"]], ["explorer", ["explorer.html"]]'
serve="$out/serve"
server=""
if [ -z "${DOCS_CHECK_PAGES:-}" ] || [ "${DOCS_CHECK_SEARCH:-0}" = 1 ]; then
  mkdir -p "$serve"
  ln -s "$html" "$serve/site"
  python3 -u -m http.server --bind 127.0.0.1 --directory "$serve" 0 >"$out/http.log" 2>&1 &
  server=$!
  trap 'kill "$server" 2>/dev/null || true' EXIT
  port=""
  for _ in $(seq 100); do
    port=$(grep -o 'port [0-9]*' "$out/http.log" | head -1 | cut -d' ' -f2 || true)
    [ -n "$port" ] && break
    sleep 0.1
  done
  cat >"$serve/search-harness.html" <<HTML
<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>search check</title></head>
<body><iframe id="f" style="width:390px;height:900px;border:0"></iframe><pre id="report"></pre>
<script>
// ?shot=WORD (the screenshot): type WORD into the box and leave its results open.
const shot = new URLSearchParams(location.search).get("shot");
const words = shot ? [[shot, []]] : [$search_words];
const frame = document.getElementById("f"), report = document.getElementById("report");
const pageOf = (href) => new URL(href, frame.contentWindow.location.href).pathname.split("/").pop() || "index.html";
// Waits on the page's own changes, never on a timer: under a virtual time budget a timer fires at
// once while the search's WebAssembly compiles. (A search that never answers: the browser's timeout
// ends the run without SEARCHED, which fails the check.)
function waitFor(doc, get, done) {
  const v = get();
  if (v) return done(v);
  const seen = new MutationObserver(() => {
    const w = get();
    if (w) { seen.disconnect(); done(w); }
  });
  seen.observe(doc.documentElement, { childList: true, subtree: true, characterData: true, attributes: true });
}
function verdict(where, word, want, found) {
  report.textContent += "SEARCH " + where + " " + word + ": " + (found.length ? found.slice(0, 5).join(" ") : "(nothing)") + "\n";
  if (!found.slice(0, 3).some((p) => want.includes(p))) {
    report.textContent += "FAIL search@" + where + ": " + word + " does not lead to " + want.join(" or ") + " (first results: " + (found.slice(0, 3).join(" ") || "none") + ")\n";
  }
}
let i = 0;
function next() {
  if (i >= words.length) { report.textContent += "SEARCHED " + words.length + " words\n"; document.title = "done"; return; }
  const [word, want] = words[i++];
  frame.onload = () => {
    const doc = frame.contentDocument, win = frame.contentWindow;
    const box = doc.getElementById("MSearchField");
    if (!box) { report.textContent += "FAIL search@box: no search box\n"; return next(); }
    box.focus();
    box.value = word;
    box.dispatchEvent(new win.Event("input", { bubbles: true }));  // as typing does
    waitFor(doc, () => doc.querySelector("#site-search-results li a, #site-search-results .site-search-note"), () => {
      const panel = doc.getElementById("site-search-results");
      const links = panel ? [...panel.querySelectorAll("li a")].map((a) => pageOf(a.getAttribute("href"))) : [];
      verdict("box", word, want, links);
      if (panel && panel.getBoundingClientRect().right > doc.documentElement.clientWidth + 1) {
        report.textContent += "FAIL search@box: the results of " + word + " run off a 390 px screen\n";
      }
      if (!links.length && panel) report.textContent += "NOTE " + panel.textContent.trim().slice(0, 120) + "\n";
      if (shot) return;
      frame.onload = () => {
        const sdoc = frame.contentDocument;
        // Done when every result shown has loaded, or the message says there is none.
        const settled = () => {
          const msg = sdoc.querySelector(".pagefind-ui__message");
          if (sdoc.querySelector(".pagefind-ui__result") && !sdoc.querySelector(".pagefind-ui__loading")) return true;
          return msg && /^(No|0) results/i.test(msg.textContent.trim());
        };
        waitFor(sdoc, settled, () => {
          verdict("page", word, want, [...sdoc.querySelectorAll(".pagefind-ui__result-link")].map((a) => pageOf(a.getAttribute("href"))));
          setTimeout(next, 0);
        });
      };
      frame.src = "site/search.html?q=" + encodeURIComponent(word);
    });
  };
  frame.src = "site/index.html";
}
next();
</script></body></html>
HTML
  if [ -n "$port" ]; then
    timeout 300 "$browser" "${common[@]}" --user-data-dir="$out/profile-search" --enable-logging=stderr \
      --v=0 --virtual-time-budget=300000 --dump-dom "http://127.0.0.1:$port/search-harness.html" \
      >"$out/dom-search.html" 2>>"$out/console.log" || true
    rm -rf "$out/profile-search"
    sed 's/<[^>]*>//g' "$out/dom-search.html" | grep -E '^(FAIL|SEARCH|SEARCHED|NOTE) ' >>"$out/report.txt" || true
  else
    echo "FAIL search: the HTTP server did not start (see $out/http.log)" >>"$out/report.txt"
  fi
fi
cat "$out/report.txt"
# Screenshots for a person to look at (make docs-check); the test suite takes only the one it
# checks below (DOCS_SHOTS=0: ten browser starts cost it about a minute).
mkdir -p "$out/shots"
shot_pages="index lesson-02 lesson-06 lesson-08 exercises explorer" shot_sizes="1280,2200 390,2400"
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
# The phone's menu opened (Lessons unfolded) and the search box's results for "swizzle": a harness
# page holds the site in a 390 px frame, opens them, and is photographed.
if [ "${DOCS_SHOTS:-1}" != 0 ] && [ -f "$html/index.html" ]; then
  cat >"$out/menu-shot.html" <<HTML
<!DOCTYPE html><html><head><meta charset="utf-8"><style>body{margin:0}</style></head><body>
<iframe id="f" src="file://$html/index.html" style="width:390px;height:900px;border:0"></iframe>
<script>
const frame = document.getElementById("f");
// Opened after the page settled, and again after any resize (the menu closes itself on one).
const open = () => {
  const win = frame.contentWindow, doc = frame.contentDocument, jq = win.jQuery, state = doc.getElementById("main-menu-state");
  jq.fx.off = true;
  state.checked = true;
  state.dispatchEvent(new win.Event("change", { bubbles: true }));
  const lessons = [...doc.querySelectorAll("#main-menu a.has-submenu")].find((a) => /Lessons/.test(a.textContent));
  if (lessons) jq(doc.getElementById("main-menu")).smartmenus("itemActivate", jq(lessons));
};
frame.onload = () => {
  setTimeout(open, 1000);
  frame.contentWindow.addEventListener("resize", () => setTimeout(open, 100));
};
</script></body></html>
HTML
  timeout 120 "$browser" "${common[@]}" --user-data-dir="$out/profile-shot" --virtual-time-budget=10000 \
    --hide-scrollbars --window-size=390,900 --screenshot="$out/shots/menu-390.png" \
    "file://$out/menu-shot.html" >/dev/null 2>&1 || true
  rm -rf "$out/profile-shot"
  if [ -n "$server" ] && [ -n "${port:-}" ]; then
    timeout 120 "$browser" "${common[@]}" --user-data-dir="$out/profile-shot" --virtual-time-budget=20000 \
      --hide-scrollbars --window-size=390,900 --screenshot="$out/shots/search-390.png" \
      "http://127.0.0.1:$port/search-harness.html?shot=swizzle" >/dev/null 2>&1 || true
    rm -rf "$out/profile-shot"
    timeout 120 "$browser" "${common[@]}" --user-data-dir="$out/profile-shot" --virtual-time-budget=20000 \
      --hide-scrollbars --window-size=1280,1400 --screenshot="$out/shots/search-page-1280.png" \
      "http://127.0.0.1:$port/site/search.html?q=padding" >/dev/null 2>&1 || true
    rm -rf "$out/profile-shot"
  fi
fi
status=0
if [ -n "$server" ] && ! grep -q "^SEARCHED " "$out/report.txt"; then
  echo "check-docs-browser: the search check did not finish (see $out/console.log)" >&2
  status=1
fi
if ! grep -q "^CHECKED [0-9]* pages at 1280 px" "$out/report.txt" ||
  { [ -n "$phone_pages" ] && ! grep -q "^CHECKED [0-9]* pages at 390 px" "$out/report.txt"; }; then
  echo "check-docs-browser: the harness did not finish (see $out/console.log)" >&2
  status=1
fi
if grep -q "^FAIL " "$out/report.txt"; then status=1; fi
# Console errors of the pages (not the harness's own cross-origin noise).
if grep -E ':CONSOLE\([0-9]+\)\] "(Uncaught|.*[Ee]rror)' "$out/console.log" | grep -v -E '(harness-[0-9]*|search-harness)\.html' >"$out/console-errors.txt"; then
  echo "check-docs-browser: console errors:" >&2
  cat "$out/console-errors.txt" >&2
  status=1
fi
if [ -f "$html/lesson-02.html" ] && ! [ -s "$out/shots/lesson-02-390.png" ]; then
  echo "check-docs-browser: no screenshot" >&2
  status=1
fi
exit $status
