// explorer.js - the bank explorer page: reads the inputs, asks the course's bank model (compiled to
// WebAssembly: bankmodel.js) about the warp request they describe, and shows its wavefronts,
// phases, banks and pictures. Everything runs in the browser, offline.
(function () {
  "use strict";
  const $ = (id) => document.getElementById(id);

  // A small, safe parser for C-like integer expressions of the lane t: numbers, t, ( ),
  // unary - and ~, * / %, + -, << >>, &, ^, | with C's precedence. Returns a function of t.
  function parse(src) {
    const tokens = src.match(/\s*(\d+|t|<<|>>|[-+*/%&^|~()]|\S)/g) || [];
    let i = 0;
    const peek = () => (i < tokens.length ? tokens[i].trim() : "");
    const take = (want) => {
      if (peek() !== want) throw new Error("expected '" + want + "'" + (peek() ? " at '" + peek() + "'" : " at the end"));
      i++;
    };
    function binary(next, ops) {
      return () => {
        let left = next();
        while (ops[peek()]) {
          const op = ops[tokens[i++].trim()];
          const l = left, r = next();
          left = (t) => op(l(t), r(t));
        }
        return left;
      };
    }
    function primary() {
      const tok = peek();
      if (tok === "(") { i++; const e = or(); take(")"); return e; }
      if (tok === "-") { i++; const e = primary(); return (t) => -e(t); }
      if (tok === "~") { i++; const e = primary(); return (t) => ~e(t); }
      if (tok === "t") { i++; return (t) => t; }
      if (/^\d+$/.test(tok)) { i++; const v = parseInt(tok, 10); return () => v; }
      throw new Error(tok ? "unexpected '" + tok + "'" : "the expression ends too early");
    }
    const div = (a, b) => { if (b === 0) throw new Error("division by zero"); return Math.trunc(a / b); };
    const mod = (a, b) => { if (b === 0) throw new Error("division by zero"); return a % b; };
    const mul = binary(primary, { "*": (a, b) => a * b, "/": div, "%": mod });
    const add = binary(mul, { "+": (a, b) => a + b, "-": (a, b) => a - b });
    const shift = binary(add, { "<<": (a, b) => a << b, ">>": (a, b) => a >> b });
    const and = binary(shift, { "&": (a, b) => a & b });
    const xor = binary(and, { "^": (a, b) => a ^ b });
    const or = binary(xor, { "|": (a, b) => a | b });
    const e = or();
    if (i < tokens.length) throw new Error("unexpected '" + peek() + "'");
    return e;
  }

  // The expression a tile stands for. Element [r][c] of rows of `cols` elements + `pad` lies at
  // index r * (cols + pad) + c, or with the XOR swizzle at r * (cols + pad) + (c ^ (r % cols)):
  // the swizzle permutes the elements of a row (for float4 rows of 8: the 8 16-byte chunks of a
  // 128-byte row), so it needs a power-of-two number of them. A column read puts lane t in row t
  // (column k); a row read gives the lanes consecutive elements from row k on, so rows shorter
  // than the warp hold several lanes' worth of it (rows of 8: lanes 8r..8r+7 in row k + r).
  // Returns the expression and the tile's row length, or throws what is wrong.
  function tileExpression() {
    const cols = +$("ex-cols").value, pad = +$("ex-pad").value, k = +$("ex-k").value;
    const swz = $("ex-swizzle").checked;
    if (!(Number.isInteger(cols) && cols >= 1)) throw new Error("rows need at least 1 element");
    if (!(Number.isInteger(pad) && pad >= 0)) throw new Error("the pad is a whole number of elements, 0 or more");
    if (!(Number.isInteger(k) && k >= 0)) throw new Error("the row or column read is a number, 0 or more");
    if (swz && (cols & (cols - 1)) !== 0) {
      throw new Error("the XOR swizzle needs a power-of-two number of elements per row (8, 16, 32...), not " + cols);
    }
    const row = cols + pad;
    let expr;
    if ($("ex-read").value === "column") {
      if (k >= cols) throw new Error("column " + k + " is outside rows of " + cols + " elements (columns 0 to " + (cols - 1) + ")");
      // t < 32: with 32 or more elements per row, r % cols is t itself.
      const c = !swz ? String(k) : "(" + k + " ^ " + (cols >= 32 ? "t" : "(t % " + cols + ")") + ")";
      expr = "t * " + row + " + " + c;
    } else if (cols >= 32) {
      expr = k + " * " + row + " + " + (swz ? "(t ^ " + (k % cols) + ")" : "t");
    } else {
      const r = "(" + k + " + t / " + cols + ")";
      const c = swz ? "((t % " + cols + ") ^ (" + r + " % " + cols + "))" : "t % " + cols;
      expr = r + " * " + row + " + " + c;
    }
    return { expr: expr, rowElements: row };
  }

  // The rows the tile picture draws, in 4-byte words: the tile's when the expression is the one
  // the tile built, else the rows the expression implies: the longest row (up to kMaxRowWords)
  // that puts lane t in row t, each lane's element inside its row (t * 33: rows of 33 words);
  // when no row length does (t * 2, t / 4), rows of 32 words, one word per bank.
  const kMaxRowWords = 128, kMaxRows = 64, kWordBytes = 4;
  function pictureRows(offsets, width, active, fromTile) {
    const wordsOf = (bytes) => bytes / kWordBytes;
    if (fromTile) {
      const words = wordsOf(fromTile.rowElements * width);
      if (!Number.isInteger(words)) {
        return { error: "rows of " + fromTile.rowElements + " " + width + "-byte elements are not a whole number of 4-byte words: the picture cannot draw them" };
      }
      return { words: words, why: "the tile's rows: " + fromTile.rowElements + " elements of " + width + " bytes", minRows: 32 };
    }
    let best = 0;
    if (active >= 2) {
      for (let R = kMaxRowWords * kWordBytes; R >= 32 * kWordBytes && !best; R -= kWordBytes) {
        const row0 = Math.floor(offsets[0] / R);
        let ok = true;
        for (let t = 0; t < active && ok; t++) {
          ok = Math.floor(offsets[t] / R) === row0 + t && (offsets[t] % R) + width <= R;
        }
        if (ok) best = R / kWordBytes;
      }
    }
    if (best) return { words: best, why: "lane t in row t of rows of " + best + " words, as the expression implies", minRows: 1 };
    if (active >= 2 && offsets[1] - offsets[0] > kMaxRowWords * kWordBytes) {
      return { error: "lanes " + (offsets[1] - offsets[0]) / kWordBytes + " words apart: rows that long (over " + kMaxRowWords + " words) are too wide to draw" };
    }
    return { words: 32, why: "rows of 32 words, one word per bank (the expression puts no lane in a row of its own)", minRows: 1 };
  }

  // "0-3, 5, 7-9" for a sorted list of lanes.
  function lanesText(lanes) {
    const parts = [];
    for (let i = 0; i < lanes.length; i++) {
      let j = i;
      while (j + 1 < lanes.length && lanes[j + 1] === lanes[j] + 1) j++;
      parts.push(i === j ? String(lanes[i]) : lanes[i] + "-" + lanes[j]);
      i = j;
    }
    return parts.join(", ");
  }

  // A picture in the page, and a link that opens it full size (on a phone it is a few px a word).
  const pictureUrls = {};
  function showPicture(id, svg) {
    if (pictureUrls[id]) URL.revokeObjectURL(pictureUrls[id]);
    pictureUrls[id] = svg ? URL.createObjectURL(new Blob([svg], { type: "image/svg+xml" })) : null;
    $(id).innerHTML = svg ? '<a class="figure-link" target="_blank" href="' + pictureUrls[id] +
      '" title="Open the picture full size">' + svg + "</a>" : "";
  }

  let lastTile = null;  // the tile the expression was last built from, if it still is
  BankModel().then((m) => {
    const buf = m._malloc(32 * 4);
    function update() {
      const out = $("ex-result"), err = $("ex-error");
      err.textContent = "";
      const width = +$("ex-width").value;
      const active = Math.max(0, Math.min(32, +$("ex-active").value | 0));
      let f;
      try { f = parse($("ex-expr").value); } catch (e) { err.textContent = "Expression: " + e.message; out.hidden = true; return; }
      const offsets = [];
      try {
        for (let t = 0; t < 32; t++) {
          const e = t < active ? f(t) : 0;
          if (t < active && (e < 0 || e * width > 0xffffffff)) throw new Error("lane " + t + " gets element " + e + ": outside the array");
          offsets.push(e * width);
          m.HEAPU32[(buf >> 2) + t] = e * width;
        }
      } catch (e) { err.textContent = "Expression: " + e.message; out.hidden = true; return; }
      const mask = active === 32 ? 0xffffffff : (1 << active) - 1;
      const shape = pictureRows(offsets, width, active, lastTile && lastTile.expr === $("ex-expr").value ? lastTile : null);
      // Rows down to the last word any lane touches, at most kMaxRows of them: the lanes below are
      // named in the note, not cut off in silence.
      let rows = 0, below = [];
      if (!shape.error) {
        for (let t = 0; t < active; t++) {
          const last = Math.floor((offsets[t] + width - 1) / kWordBytes / shape.words);
          if (last >= kMaxRows) below.push(t); else rows = Math.max(rows, last + 1);
        }
        rows = Math.min(kMaxRows, Math.max(rows, shape.minRows, below.length ? kMaxRows : 0));
      }
      const r = JSON.parse(m.UTF8ToString(m._explore($("ex-op").value === "store" ? 1 : 0, width, buf, mask >>> 0,
                                                      shape.error ? 0 : rows, shape.error ? 0 : shape.words)));
      if (r.error) { err.textContent = "The bank model says: " + r.error; out.hidden = true; return; }
      out.hidden = false;
      $("ex-wavefronts").textContent = r.wavefronts;
      $("ex-ideal").textContent = r.ideal;
      $("ex-phases").textContent = r.phases;
      $("ex-describe").textContent = r.describe;
      const cells = [];
      for (let t = 0; t < active; t++) {
        cells.push("<tr><td>" + t + "</td><td>" + offsets[t] / width + "</td><td>" + offsets[t] + "</td><td>" + r.banks[t] + "</td></tr>");
      }
      $("ex-lanes").innerHTML = cells.join("");
      $("ex-phase-list").textContent = r.phase_wavefronts.map((w, p) => "phase " + p + ": " + w).join(", ");
      showPicture("ex-svg", r.svg);
      showPicture("ex-tile", shape.error ? "" : (r.tile_svg || ""));
      $("ex-tile-note").textContent = shape.error ? "No tile picture: " + shape.error + "." :
        "The tile picture: " + rows + " row(s) of " + shape.words + " words (" + shape.why + ")" +
        (below.length ? "; lane(s) " + lanesText(below) + " touch rows below row " + (kMaxRows - 1) + ", outside the picture" : "") + ".";
    }
    for (const id of ["ex-expr", "ex-width", "ex-active", "ex-op"]) {
      $(id).addEventListener("input", update);
    }
    function applyTile() {
      try {
        lastTile = tileExpression();
      } catch (e) {
        lastTile = null;
        $("ex-error").textContent = "Tile: " + e.message;
        $("ex-result").hidden = true;
        return;
      }
      $("ex-expr").value = lastTile.expr;
      update();
    }
    // A tile from the lessons fills in the element width, the row length and the pad.
    $("ex-tile-preset").addEventListener("input", () => {
      const v = $("ex-tile-preset").value;
      if (!v) return;
      const [w, cols, pad] = v.split(",");
      $("ex-width").value = w;
      $("ex-cols").value = cols;
      $("ex-pad").value = pad;
      applyTile();
    });
    $("ex-apply").addEventListener("click", applyTile);
    for (const id of ["ex-cols", "ex-pad", "ex-k", "ex-read", "ex-swizzle"]) {
      $(id).addEventListener("input", () => {
        if (id === "ex-cols" || id === "ex-pad") $("ex-tile-preset").value = "";
        applyTile();
      });
    }
    // The element width changes the tile's bytes: rebuild it when the expression came from one.
    $("ex-width").addEventListener("input", () => {
      if (lastTile && lastTile.expr === $("ex-expr").value) {
        $("ex-tile-preset").value = "";
        applyTile();
      }
    });
    update();
    document.body.dataset.explorerReady = "1";
  });
})();
