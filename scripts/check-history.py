#!/usr/bin/env python3
"""Fails when a tracked file speaks of the project's history instead of the product.

The product describes itself only; how it came to be lives in `git log`. This check finds, in
every tracked text file:
  - a work session by number ("session 12", "sessions 1-9", "second session"),
  - an issue by number ("issue 15", "issues 28 and 29", "(#28)"),
  - a "sitting" (a stretch of work, as a lab notebook says).
The archive (measurements/archive/) is held to the same words. It also fails when a measurement page (a .md file under measurements/)
is missing from the index, measurements/README.md.
  scripts/check-history.py [ROOT]     exit 1 and one line per finding: FILE:LINE: what, the text
"""
import os
import re
import subprocess
import sys

# Built from parts so that this file does not match itself.
SESSION = "sess" + "ion"
PATTERNS = [
    ("a work " + SESSION + " by number",
     re.compile(r"\b" + SESSION + r"s?\b[\s-]*\d+|\b(?:first|second|third|fourth|fifth|sixth|"
                r"seventh|eighth|ninth|tenth|previous|last|next|this|that|one|each|a|the)\s+"
                + SESSION + r"\b", re.I), True),
    ("an issue by number",
     re.compile(r"\bissues?\s*#?\d+", re.I), True),
    ("an issue by number", re.compile(r"(?:^|[\s(\[])#\d{1,4}(?![\w.#-])"), "md"),
    ("a sitting (say when, or what was compared, instead)",
     re.compile(r"\bsit" + r"tings?\b", re.I), True),
]
ARCHIVE = "measurements/archive/"
# Files that carry the words as data, each with its reason.
ALLOWED = {
    "scripts/check-history.py",  # the patterns themselves
}
TEXT_EXT = re.compile(r"\.(md|txt|cpp|hpp|h|cu|cuh|py|sh|cmake|json|jsonl|toml|yml|yaml|html|js|"
                      r"css|in|xml|csv|tsv)$|(^|/)(CMakeLists\.txt|Makefile|Dockerfile|run|"
                      r"barrier|[A-Z]+)$")


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(
        os.path.dirname(os.path.abspath(__file__)))
    files = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True,
                           check=True).stdout.splitlines()
    bad = 0
    for f in files:
        if f in ALLOWED or not TEXT_EXT.search(f):
            continue
        path = os.path.join(root, f)
        if not os.path.isfile(path):
            continue
        try:
            text = open(path, encoding="utf-8").read()
        except UnicodeDecodeError:
            continue
        in_archive = f.startswith(ARCHIVE)
        # The whole text at once: a phrase may wrap ("session" at a line's end, "12" next).
        for what, pattern, scope in PATTERNS:
            if scope == "md":  # "#28": Markdown only (C, CSS and SVG use '#')
                if not f.endswith(".md"):
                    continue
            elif in_archive and not scope:
                continue
            for m in pattern.finditer(text):
                bad += 1
                n = text.count("\n", 0, m.start()) + 1
                line = text.splitlines()[n - 1] if text.splitlines() else ""
                found = " ".join(m.group(0).split())
                print(f"{f}:{n}: {what}: \"{found}\" in: {line.strip()[:160]}")
    index_path = os.path.join(root, "measurements", "README.md")
    index = open(index_path, encoding="utf-8").read() if os.path.exists(index_path) else ""
    for f in files:
        if f.startswith("measurements/") and f.endswith(".md") and f != "measurements/README.md":
            page = f[len("measurements/"):]
            link = page[:-len("/README.md")] if page.endswith("/README.md") else page
            if f"]({page})" not in index:
                bad += 1
                print(f"measurements/README.md: the page {f} is not in the index; add a row "
                      f"linking [{link}]({page}) under its topic (what, on what, date)")
    if bad:
        print(f"check-history: {bad} finding(s). The product speaks of itself only: say what is "
              "true now (or move a record to measurements/archive/, naming no session); history "
              "lives in git log.")
        return 1
    print("check-history: no session, issue number or sitting in tracked files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
