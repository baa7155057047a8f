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

  // The expression a tile preset stands for: element [r][c] of rows of cols + pad elements.
  function presetExpression() {
    const cols = +$("ex-cols").value, pad = +$("ex-pad").value, k = +$("ex-k").value;
    const swz = $("ex-swizzle").checked;
    const row = cols + pad;
    if ($("ex-read").value === "column") return "t * " + row + " + " + (swz ? "(" + k + " ^ t)" : k);
    return k + " * " + row + " + " + (swz ? "(t ^ " + k + ")" : "t");
  }

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
      const rowWords = (+$("ex-cols").value + +$("ex-pad").value) * width / 4;
      const tileCols = Number.isInteger(rowWords) && rowWords >= 1 && rowWords <= 256 ? rowWords : 32;
      const r = JSON.parse(m.UTF8ToString(m._explore($("ex-op").value === "store" ? 1 : 0, width, buf, mask >>> 0, 32, tileCols)));
      if (r.error) { err.textContent = "The bank model says: " + r.error; out.hidden = true; return; }
      out.hidden = false;
      $("ex-wavefronts").textContent = r.wavefronts;
      $("ex-ideal").textContent = r.ideal;
      $("ex-phases").textContent = r.phases;
      $("ex-describe").textContent = r.describe;
      const rows = [];
      for (let t = 0; t < active; t++) {
        rows.push("<tr><td>" + t + "</td><td>" + offsets[t] / width + "</td><td>" + offsets[t] + "</td><td>" + r.banks[t] + "</td></tr>");
      }
      $("ex-lanes").innerHTML = rows.join("");
      $("ex-phase-list").textContent = r.phase_wavefronts.map((w, p) => "phase " + p + ": " + w).join(", ");
      $("ex-svg").innerHTML = r.svg;
      $("ex-tile").innerHTML = r.tile_svg || "";
    }
    for (const id of ["ex-expr", "ex-width", "ex-active", "ex-op"]) {
      $(id).addEventListener("input", update);
    }
    $("ex-apply").addEventListener("click", () => { $("ex-expr").value = presetExpression(); update(); });
    for (const id of ["ex-cols", "ex-pad", "ex-k", "ex-read", "ex-swizzle"]) {
      $(id).addEventListener("input", () => { $("ex-expr").value = presetExpression(); update(); });
    }
    update();
    document.body.dataset.explorerReady = "1";
  });
})();
