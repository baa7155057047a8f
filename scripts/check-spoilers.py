#!/usr/bin/env python3
"""Fails when student-facing text gives an exercise's answer away.

Every `BEGIN SOLUTION` block of solutions/ is cut into C++ tokens and normalised: comments and
whitespace dropped, identifiers of one letter made one placeholder (renaming `t` to `i` hides
nothing), named integer constants of the file (`constexpr int kTile = 32;`) replaced by their
values and `[a + b]` folded, so `tile[kTile][kTile + 1]` reads `tile [ 32 ] [ 33 ]`. A *leak* is a
run of RUN (6) consecutive tokens of a solution block that no skeleton contains (code the student
is given is no answer) and that appears in a student-facing text:

- the lessons (README.md) and the kernels they show (lessons/*/*.cu), the README, the explorer
  page and the bank rules (docs/bank-rules.md, on the student site);
- the skeletons (exercises/): a solution line left in a skeleton;
- the hints of every level and the conflict hint (from `course-registry export --json`);
- with --site DIR, every page of the built student site (text of its HTML).

    scripts/check-spoilers.py --registry build/bin/course-registry [--site build/docs/html]

Prints each leak as FILE:LINE: the text, and which solution block it gives away; exit 1 if any.
"""
import argparse
import html
import json
import re
import subprocess
import sys
from pathlib import Path

RUN = 6  # tokens: `tile [ 32 ] [ 33 ]` is six

TOKEN = re.compile(
    r"""
    (?P<id>[A-Za-z_][A-Za-z_0-9]*)
  | (?P<num>0[xX][0-9a-fA-F]+[uUlL]*|\d+\.\d*(?:[eE][-+]?\d+)?[fF]?|\d+(?:[eE][-+]?\d+)?[uUlLfF]*)
  | (?P<op><<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||\+=|-=|\*=|/=|%=|&=|\|=|\^=|::|[][(){}<>;,.?:~!%^&*+=|/-])
    """,
    re.VERBOSE,
)
CONSTANT = re.compile(r"constexpr\s+(?:int|unsigned|long|long long|std::size_t|size_t)\s+"
                      r"(k[A-Za-z0-9_]*)\s*=\s*(\d+)\s*;")


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def tokens(text, constants=None, keep_lines=False, names=False):
    """Normalised tokens of `text` (with their 1-based line when keep_lines). With `names`, every
    identifier but the keywords and CUDA's built-ins is the placeholder too, so that renaming
    `tile` or `tile_row` hides nothing."""
    constants = constants or {}
    out = []
    for lineno, line in enumerate(text.split("\n"), 1):
        for m in TOKEN.finditer(line):
            t = m.group(0)
            if m.lastgroup == "id":
                # `kTile = 32` declares the name: only its uses are read as the value.
                if t in constants and not re.match(r"\s*=(?!=)", line[m.end():]):
                    t = constants[t]
                elif len(t) == 1 or (names and t not in GENERIC):
                    t = "_"
            elif m.lastgroup == "num":
                t = re.sub(r"[uUlLfF]+$", "", t) if not t.lower().startswith("0x") else t
            out.append((t, lineno))
    # Fold `[ a op b ]` of integer literals, as a reader does: tile[kTile][kTile + 1] -> [ 33 ].
    folded = []
    i = 0
    while i < len(out):
        w = [x[0] for x in out[i:i + 5]]
        if (len(w) == 5 and w[0] == "[" and w[4] == "]" and w[1].isdigit() and w[3].isdigit()
                and w[2] in "+-*"):
            a, b = int(w[1]), int(w[3])
            v = a + b if w[2] == "+" else a - b if w[2] == "-" else a * b
            folded += [out[i], (str(v), out[i][1]), out[i + 4]]
            i += 5
        else:
            folded.append(out[i])
            i += 1
    return folded if keep_lines else [t for t, _ in folded]


# Tokens that say nothing of an answer on their own: punctuation, keywords, everyday types, the
# one-letter placeholder and the literals 0 and 1. A run needs two others to count, so that
# `for ( int _ = 0 ;` or `#pragma unroll` shared by any two kernels is not a leak.
GENERIC = set(
    "_ 0 1 2 for if else while do return const constexpr int unsigned long float double char "
    "short bool void auto static inline struct pragma unroll __shared__ __global__ __device__ "
    "__syncthreads threadIdx blockIdx blockDim x y z".split())


def telling(run):
    """Two tokens that are neither generic nor punctuation; an XOR counts (swizzles are rare)."""
    return sum(1 for t in run if t == "^" or (t not in GENERIC and TOKEN.fullmatch(t) and
                                              not re.fullmatch(r"[^A-Za-z0-9_]+", t))) >= 2


def runs(toks):
    return {r for r in (tuple(toks[i:i + RUN]) for i in range(len(toks) - RUN + 1)) if telling(r)}


def forms(code, constants):
    """Token streams of `code`: as written (kTile), with the constants' values (32), and with
    every name a placeholder as well."""
    return [tokens(code, constants, keep_lines=True), tokens(code, keep_lines=True),
            tokens(code, constants, keep_lines=True, names=True)]


def all_runs(code, constants):
    return set().union(*(runs([t for t, _l in f]) for f in forms(code, constants)))


def solution_blocks(path):
    """(name, code) of each BEGIN SOLUTION block, SKELETON lines left out."""
    blocks, name, code = [], None, []
    for line in path.read_text().split("\n"):
        m = re.search(r"BEGIN SOLUTION (ex\d+\.\d+)", line)
        if m:
            name, code = m.group(1), []
        elif "END SOLUTION" in line and name:
            blocks.append((name, "\n".join(code)))
            name = None
        elif name and not line.strip().startswith("// SKELETON:"):
            code.append(line)
    return blocks


def html_text(page):
    text = re.sub(r"<(script|style)[^>]*>.*?</\1>", " ", page, flags=re.S | re.I)
    text = re.sub(r"<br\s*/?>|</(div|p|li|tr|pre|h\d)>", "\n", text, flags=re.I)
    text = re.sub(r"<[^>]+>", "", text)
    return html.unescape(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--registry", default="build/bin/course-registry")
    ap.add_argument("--registry-json", help="the registry's export, read from a file instead")
    ap.add_argument("--site", help="a built student site (HTML) to check too")
    ap.add_argument("--root", default=".")
    args = ap.parse_args()
    root = Path(args.root)
    if args.registry_json:
        reg = json.loads(Path(args.registry_json).read_text())
    else:
        reg = json.loads(subprocess.run([args.registry, "export", "--json"], check=True,
                                        capture_output=True, text=True).stdout)

    # What the student is given: every skeleton file's runs.
    all_constants = {}  # the solutions' named constants, to read texts that use the names
    for f in sorted((root / "solutions").glob("*/*")):
        for k, v in CONSTANT.findall(strip_comments(f.read_text())):
            all_constants.setdefault(k, v)
    given = set()
    for f in sorted((root / "exercises").glob("*/*")):
        if f.is_file():
            given |= all_runs(strip_comments(f.read_text()), all_constants)

    # The answers: runs of each solution block that no skeleton has.
    answers = {}  # run -> "ex04.1 (solutions/...)"
    for f in sorted((root / "solutions").glob("*/*")):
        if not f.is_file():
            continue
        text = f.read_text()
        constants = dict(CONSTANT.findall(strip_comments(text)))
        for name, code in solution_blocks(f):
            # Both as written (kTile) and with the constants' values (32): a lesson may use either.
            for r in all_runs(strip_comments(code), constants) - given:
                answers.setdefault(r, f"{name} ({f.relative_to(root)})")

    # Student-facing texts: (where, text). Code is compared with its comments, as the student
    # reads it; a comment that spells out the answer is a leak too.
    texts = []
    for pattern in ["lessons/*/README.md", "lessons/*/*.cu", "exercises/*/*", "README.md",
                    "docs/bank-rules.md", "docs/explorer/explorer.md"]:
        for f in sorted(root.glob(pattern)):
            texts.append((str(f.relative_to(root)), f.read_text()))
    for e in reg["exercises"]:
        for level, hint in enumerate(e["hints"], 1):
            texts.append((f"hint {e['id']} level {level} (registry)", hint))
        if e["conflict_hint"]:
            texts.append((f"conflict hint {e['id']} (registry)", e["conflict_hint"]))
    if args.site:
        for f in sorted(Path(args.site).glob("*.html")):
            texts.append((str(f), html_text(f.read_text(errors="replace"))))

    leaks = 0
    for where, text in texts:
        # As written, and with the solutions' constants read as their values.
        seen = set()
        for toks in forms(text, all_constants):
            for i in range(len(toks) - RUN + 1):
                r = tuple(t for t, _l in toks[i:i + RUN])
                if r in answers and (where, answers[r]) not in seen:
                    seen.add((where, answers[r]))
                    print(f"{where}:{toks[i][1]}: gives away {answers[r]}: `{' '.join(r)}`")
                    leaks += 1
    if leaks:
        print(f"check-spoilers: {leaks} leak(s): student-facing text contains solution code "
              "(teach the idea on another kernel, and keep hints to the shape of the fix)")
        return 1
    print(f"check-spoilers: no solution code in {len(texts)} student-facing texts "
          f"({len(answers)} answer runs of {RUN} tokens)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
