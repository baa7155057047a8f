#!/usr/bin/env python3
"""Doxygen input filter for the course's Markdown (FILTER_PATTERNS in docs/Doxyfile.in).

The Markdown is written for GitHub (where students read it first) and this filter makes Doxygen
1.9 read it the same way. One line in, one line out, so Doxygen's warnings keep their line numbers.
Outside fenced code and inline code spans:
- math: `$$` lines become `\\f[` / `\\f]`, `$x$` becomes `\\f$x\\f$` (GitHub renders both forms);
- a figure on a line of its own, ![caption](file.svg), becomes `\\image html file.svg "caption"`,
  which Doxygen draws with a visible caption (the Markdown form gets only a tooltip);
- a page's first heading gets its label (`{#lesson-NN}` for lessons/NN-slug/README.md, the
  names in PAGE_LABELS for the docs), and the sections of the bank rules get labels named after
  GitHub's heading ids, so that a link to docs/bank-rules.md#r1-words-and-banks-doc works in both;
- a link to an exercise's folder, ](../../exercises/NN-slug/...), leads to that exercise on the
  site's exercises page; a link to a section of the bank rules to that section;
- commands and their output are labelled: `<!-- try -->` (and the blank line before any other
  ```sh block) becomes "run", `<!-- expect -->` "you should see", `<!-- expect shortened -->`
  "you should see (shortened)";
- a ```cuda fence becomes ```{.cu}, which Doxygen highlights as C++ (EXTENSION_MAPPING).

    scripts/doxygen-md-filter.py FILE.md
"""
import re
import sys

FIGURE = re.compile(r'^!\[([^\]]+)\]\(([^)"]+\.svg)\)\s*$')
INLINE_MATH = re.compile(r"(?<![\\$f])\$(?=\S)([^$\n]*?[^\s\\])\$(?!\$)")  # not \f$...\f$
EXERCISE_LINK = re.compile(r"\]\((?:\.\./)+exercises/(\d\d)-[a-z0-9-]+/?[^)]*\)")
LESSON_PATH = re.compile(r"(?:^|/)lessons/(\d\d)-[a-z0-9-]+/README\.md$")
RULES_LINK = re.compile(r"\]\((?:\.\./)*(?:docs/)?bank-rules\.md#([a-z0-9-]+)\)")
# The docs' page labels, which the site's navigation (scripts/build-docs.sh) names.
PAGE_LABELS = {"docs/bank-rules.md": "bank_rules", "docs/deploy.md": "deploy",
               "docs/grading-security.md": "grading_security"}


def github_slug(heading):
    """The id GitHub gives a heading (as scripts/check-lessons-github.py computes it)."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def label(text):
    return f'<div class="io-label">{text}</div>'


def outside_code_spans(line, fn):
    """Applies fn to the parts of a line that are not inside `code spans`."""
    parts = re.split(r"(`+[^`]*`+)", line)
    return "".join(p if p.startswith("`") else fn(p) for p in parts)


def prose(text):
    text = INLINE_MATH.sub(lambda m: "\\f$" + m.group(1) + "\\f$", text)
    text = RULES_LINK.sub(lambda m: f"](@ref bank-rules-{m.group(1)})", text)
    return EXERCISE_LINK.sub(lambda m: f"](@ref exercise-{m.group(1)})", text)


def main(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    posix = path.replace("\\", "/")
    lesson = LESSON_PATH.search(posix)
    page = f"lesson-{lesson.group(1)}" if lesson else next(
        (label for suffix, label in PAGE_LABELS.items() if posix.endswith(suffix)), None)
    rules = posix.endswith("docs/bank-rules.md")
    out = []
    in_code = in_math = False
    headed = False
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("```"):
            if not in_code:
                if stripped == "```cuda":
                    line = line.replace("```cuda", "```{.cu}")
                if stripped == "```sh" and out and not out[-1].strip():
                    out[-1] = label("run")
            in_code = not in_code
            out.append(line)
            continue
        if in_code:
            out.append(line)
            continue
        if stripped == "$$":
            out.append(line.replace("$$", "\\f]" if in_math else "\\f["))
            in_math = not in_math
            continue
        if in_math:
            out.append(line)
            continue
        m = FIGURE.match(line)
        if m:
            out.append(f'\\image html {m.group(2)} "{m.group(1)}"')
            continue
        if stripped == "<!-- try -->":
            out.append(label("run"))
            continue
        if stripped == "<!-- expect -->":
            out.append(label("you should see"))
            continue
        if stripped == "<!-- expect shortened -->":
            out.append(label("you should see (shortened)"))
            continue
        if page and not headed and line.startswith("# "):
            headed = True
            if "{#" not in line:
                line = f"{line} {{#{page}}}"
        elif rules and line.startswith("## ") and "{#" not in line:
            line = f"{line} {{#bank-rules-{github_slug(line[3:])}}}"
        if line.count("$$") == 2:  # $$ x $$ on one line: a display formula
            line = re.sub(r"\$\$(.*?)\$\$", lambda m: "\\f[" + m.group(1) + "\\f]", line)
        out.append(outside_code_spans(line, prose))
    sys.stdout.write("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1])
