#!/usr/bin/env python3
"""Keeps the code blocks of the lessons equal to the kernels they show.

A lesson shows a kernel as an ordinary fenced block (so it reads on GitHub) right after a marker
that names its source:

    <!-- snippet lessons/02-column-read/column_read.cu transpose_n_by_32_naive -->
    ```cuda
    ...the lines between `//! [transpose_n_by_32_naive]` markers of that file...
    ```

    scripts/lesson-snippets.py --check   fail (exit 1) when a block differs from its source
    scripts/lesson-snippets.py --fix     rewrite the blocks from their sources
"""
import argparse
import re
import sys
from pathlib import Path

MARKER = re.compile(r"^<!-- snippet (\S+) (\S+) -->\n```cuda\n(.*?)^```\n", re.M | re.S)


def source_snippet(root, file, name):
    text = (root / file).read_text()
    tag = f"//! [{name}]"
    parts = text.split(tag)
    if len(parts) != 3:
        raise SystemExit(f"lesson-snippets: {file} must hold `{tag}` exactly twice "
                         f"(found {len(parts) - 1})")
    body = parts[1]
    body = body[body.index("\n") + 1:] if "\n" in body else body  # after the opening marker
    return body[: body.rfind("\n") + 1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--fix", action="store_true")
    ap.add_argument("--root", default=".")
    args = ap.parse_args()
    root = Path(args.root)
    stale = blocks = 0
    for md in sorted(root.glob("lessons/*/README.md")):
        text = md.read_text()

        def replace(m):
            nonlocal stale, blocks
            blocks += 1
            want = source_snippet(root, m.group(1), m.group(2))
            if m.group(3) != want and args.check:
                stale += 1
                line = text[: m.start()].count("\n") + 1
                print(f"{md.relative_to(root)}:{line}: the block of {m.group(1)} "
                      f"[{m.group(2)}] differs from the file: run scripts/lesson-snippets.py --fix")
            return f"<!-- snippet {m.group(1)} {m.group(2)} -->\n```cuda\n{want}```\n"

        new = MARKER.sub(replace, text)
        if args.fix and new != text:
            md.write_text(new)
    if "\\snippet" in "".join(p.read_text() for p in root.glob("lessons/*/README.md")):
        print("lesson-snippets: a lesson still uses \\snippet (GitHub shows it raw): use a marker "
              "and a ```cuda block")
        return 1
    if args.check and stale:
        return 1
    print(f"lesson-snippets: {blocks} code blocks, {0 if args.fix else stale} stale")
    return 0


if __name__ == "__main__":
    sys.exit(main())
