#!/usr/bin/env python3
"""Checks that the lessons read on GitHub as they do on the site.

Each student-facing Markdown file (the lessons, the README, the bank rules) is rendered with
cmark-gfm, the reference implementation of GitHub Flavored Markdown, and checked:
- no Doxygen command is left for GitHub to show raw (\\f$, \\f[, \\snippet, \\ref, \\image,
  \\subpage, @ref, {#label}): the site's filter (scripts/doxygen-md-filter.py) adds what Doxygen
  needs;
- math is written as GitHub renders it: `$...$` inline and `$$` lines around a display formula,
  balanced, with no backslash before punctuation inside it (`\\,`, `\\{`, `\\&`...: Markdown
  takes such a backslash as an escape before the formula is drawn);
- every image and every relative link resolves to a file or folder of the repository, and every
  #anchor into a Markdown file names one of its headings (GitHub's heading ids);
- headings hold no code spans (the site's sidebar and titles would show their HTML);
- no line of a shell block is wider than a phone shows (SH_WIDTH characters): a student copies
  these commands, and a 200-character line scrolls sideways; split it with ` \`.

    scripts/check-lessons-github.py [FILE.md ...]   (default: lessons/*/README.md, README.md,
                                                     docs/bank-rules.md)
Exit 1 with FILE:LINE: what is wrong, for each problem.
"""
import html
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlparse

DOXYGEN = re.compile(r"\\f[$\[\]]|\\snippet\b|\\ref\b|\\image\b|\\subpage\b|@ref\b|\{#[\w-]+\}")
PUNCT_ESCAPE = re.compile(r"\\[!\"#%&'()*+,\-./:;<=>?@\[\]^_`{|}~]")
SH_WIDTH = 90


def github_slug(heading):
    """The id GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"<[^>]+>", "", heading).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


class Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links, self.images = [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "a" and a.get("href"):
            self.links.append(html.unescape(a["href"]))
        if tag == "img" and a.get("src"):
            self.images.append(html.unescape(a["src"]))


def prose_lines(text):
    """(line number, line) of the lines outside fenced code, with code spans blanked."""
    in_code = False
    for n, line in enumerate(text.split("\n"), 1):
        if line.strip().startswith("```"):
            in_code = not in_code
            continue
        if not in_code:
            yield n, re.sub(r"`+[^`]*`+", "``", line)


def headings(path):
    return {github_slug(line.lstrip("#")) for _, line in prose_lines(path.read_text())
            if re.match(r"#{1,6} ", line)}


def check(path, root):
    problems = []
    text = path.read_text()
    in_math = False
    math_open = 0
    for n, line in prose_lines(text):
        where = f"{path.relative_to(root)}:{n}"
        if line.startswith("<!--"):
            continue
        m = DOXYGEN.search(line)
        if m:
            problems.append(f"{where}: Doxygen's `{m.group(0)}` shows raw on GitHub: write Markdown "
                            "(scripts/doxygen-md-filter.py translates it for the site)")
        if re.match(r"#{1,6} ", line) and "``" in line:
            problems.append(f"{where}: a code span in a heading: the site shows its HTML; use "
                            "plain words")
        if line.strip() == "$$":
            in_math = not in_math
            math_open = n
            continue
        spans = [line] if in_math else re.findall(r"\$\$(.+?)\$\$|\$([^$]+)\$", line)
        for span in spans:
            body = span if isinstance(span, str) else (span[0] or span[1])
            e = PUNCT_ESCAPE.search(body)
            if e:
                problems.append(f"{where}: `{e.group(0)}` in a formula: GitHub's Markdown takes the "
                                "backslash as an escape (write \\thinspace, \\lbrace, \\mathrm{and}...)")
        if not in_math and line.replace("$$", "").count("$") % 2:
            problems.append(f"{where}: an odd number of `$` (inline math is `$...$` on one line)")
    if in_math:
        problems.append(f"{path.relative_to(root)}:{math_open}: a `$$` block is never closed")
    in_sh = False
    for n, line in enumerate(text.split("\n"), 1):
        if line.strip().startswith("```"):
            in_sh = not in_sh and line.strip() == "```sh"
            continue
        if in_sh and len(line) > SH_WIDTH:
            problems.append(f"{path.relative_to(root)}:{n}: a command line of {len(line)} "
                            f"characters scrolls sideways on a phone (at most {SH_WIDTH}): split "
                            "it with ` \\` at an option")

    rendered = subprocess.run(
        ["cmark-gfm", "--extension", "table", "--extension", "autolink", "--extension",
         "strikethrough", "--unsafe", str(path)], check=True, capture_output=True, text=True).stdout
    parser = Links()
    parser.feed(rendered)
    for kind, target in [("image", i) for i in parser.images] + [("link", a) for a in parser.links]:
        url = urlparse(target)
        if url.scheme or target.startswith("//"):
            continue
        dest = (path.parent / unquote(url.path)).resolve() if url.path else path.resolve()
        if not dest.exists():
            problems.append(f"{path.relative_to(root)}: the {kind} `{target}` leads nowhere on "
                            "GitHub (no such file or folder)")
        elif url.fragment and dest.suffix == ".md" and url.fragment not in headings(dest):
            problems.append(f"{path.relative_to(root)}: the link `{target}`: "
                            f"{dest.relative_to(root)} has no heading with the id #{url.fragment}")
    return problems


def main():
    root = Path(__file__).resolve().parent.parent
    if not shutil.which("cmark-gfm"):
        print("check-lessons-github: cmark-gfm is missing: apt-get install cmark-gfm")
        return 2
    files = [Path(f).resolve() for f in sys.argv[1:]] or (
        sorted(root.glob("lessons/*/README.md")) + [root / "README.md", root / "docs/bank-rules.md"])
    problems = [p for f in files for p in check(f, root)]
    for p in problems:
        print(p)
    if problems:
        print(f"check-lessons-github: {len(problems)} problem(s) in {len(files)} files")
        return 1
    print(f"check-lessons-github: {len(files)} files read on GitHub as written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
