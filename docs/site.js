// site.js - the course site's own behaviour, loaded on every page by docs/header.html: the search
// box in the header shows Pagefind's full-text results as you type (Enter opens the search page,
// search.html, with every result). Pagefind's index (pagefind/, written by scripts/build-docs.sh)
// is loaded the first time the box is used. Browsers refuse to load it from file:// pages, so there
// the box says how to serve the site (make docs-serve).
(function () {
  "use strict";
  const root = typeof siteRoot === "string" ? siteRoot : "";
  const served = location.protocol === "http:" || location.protocol === "https:";
  let engine = null;

  // The light/dark toggle (doxygen-awesome-css's extension) sits beside the search box.
  if (typeof DoxygenAwesomeDarkModeToggle === "function") DoxygenAwesomeDarkModeToggle.init();

  function pagefind() {
    if (!engine) {
      const url = new URL(root + "pagefind/pagefind.js", document.baseURI).href;
      engine = import(url).then(async (pf) => {
        // No web worker: the index is small, and a page opened for a moment must not wait on one.
        await pf.options({ noWorker: true, excerptLength: 18 });
        return pf;
      });
    }
    return engine;
  }

  function escapeHtml(s) {
    return s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
  }

  // The results panel under the box: fixed to the viewport, never wider than the screen.
  function panel() {
    let p = document.getElementById("site-search-results");
    if (!p) {
      p = document.createElement("div");
      p.id = "site-search-results";
      p.setAttribute("role", "listbox");
      document.body.appendChild(p);
    }
    const box = document.getElementById("MSearchBox").getBoundingClientRect();
    const width = Math.min(560, window.innerWidth - 16);
    p.style.top = Math.round(box.bottom + 6) + "px";
    p.style.left = Math.round(Math.max(8, Math.min(box.left, window.innerWidth - width - 8))) + "px";
    p.style.width = width + "px";
    return p;
  }

  function hide() {
    const p = document.getElementById("site-search-results");
    if (p) p.hidden = true;
  }

  let latest = 0;
  async function show(query) {
    const ticket = ++latest;
    if (query.trim().length < 2) { hide(); return; }
    const p = panel();
    p.hidden = false;
    const all = root + "search.html?q=" + encodeURIComponent(query);
    if (!served) {
      p.innerHTML = '<p class="site-search-note">The full-text search needs the site served over HTTP: ' +
        "run <code>make docs-serve</code> and open the address it prints.</p>";
      return;
    }
    let results;
    try {
      const pf = await pagefind();
      const found = await pf.debouncedSearch(query, {}, 150);
      if (found === null || ticket !== latest) return;  // a newer query replaced this one
      results = await Promise.all(found.results.slice(0, 8).map((r) => r.data()));
    } catch (e) {
      p.innerHTML = '<p class="site-search-note">The search index did not load (' + escapeHtml(String(e)) + ").</p>";
      return;
    }
    if (ticket !== latest) return;
    if (results.length === 0) {
      p.innerHTML = '<p class="site-search-note">Nothing in the course matches <b>' + escapeHtml(query) + "</b>.</p>";
      return;
    }
    p.innerHTML = "<ol>" + results.map((d) => {
      // The best-matching section of the page, when Pagefind found one.
      const sub = (d.sub_results || []).find((s) => s.url !== d.url) || null;
      const href = sub ? sub.url : d.url;
      const section = sub && sub.title && sub.title !== d.meta.title ? " — " + escapeHtml(sub.title) : "";
      return '<li><a href="' + escapeHtml(href) + '"><span class="site-search-title">' +
        escapeHtml(d.meta.title || d.url) + section + '</span><span class="site-search-excerpt">' +
        (sub ? sub.excerpt : d.excerpt) + "</span></a></li>";
    }).join("") + '</ol><p class="site-search-all"><a href="' + escapeHtml(all) + '">Every result for <b>' +
      escapeHtml(query) + "</b></a></p>";
  }

  // Listeners on the document, attached as this script runs (in the page's head): a reader who
  // types before the page has finished loading is answered too.
  const isField = (e) => e.target && e.target.id === "MSearchField";
  const setActive = (active) => {
    const box = document.getElementById("MSearchBox");
    if (box) box.className = box.className.replace(active ? "MSearchBoxInactive" : "MSearchBoxActive", active ? "MSearchBoxActive" : "MSearchBoxInactive");
  };
  document.addEventListener("input", (e) => { if (isField(e)) show(e.target.value); });
  document.addEventListener("focusin", (e) => {
    if (!isField(e)) return;
    setActive(true);
    if (e.target.value) show(e.target.value);
  });
  document.addEventListener("focusout", (e) => { if (isField(e)) setActive(false); });
  document.addEventListener("keydown", (e) => { if (isField(e) && e.key === "Escape") { hide(); e.target.blur(); } });
  document.addEventListener("click", (e) => {
    const p = document.getElementById("site-search-results");
    if (p && !p.contains(e.target) && !isField(e)) hide();
  });
  window.addEventListener("resize", () => {
    const p = document.getElementById("site-search-results");
    if (p && !p.hidden) panel();
  });
  // On the search page the box shows what was searched for.
  document.addEventListener("DOMContentLoaded", () => {
    const field = document.getElementById("MSearchField");
    const q = new URLSearchParams(location.search).get("q");
    if (field && q && /(^|\/)search\.html$/.test(location.pathname)) field.value = q;
  });
})();
