#!/usr/bin/env python3
"""Finishes the course site after Doxygen (scripts/build-docs.sh runs it on build/docs*/html):

- the phone menu (Doxygen's menudata.js, the menu a phone shows behind its menu button) gets the
  course's tree, copied from the sidebar (navtree*.js): the front page, the lessons, the exercises,
  the explorer, grading, reference and instructors' pages, then the API reference where there is one;
- CUDA's own keywords in code blocks (__global__, __shared__, __syncthreads, ...), which Doxygen's
  C++ highlighter leaves as plain text, are marked as keywords, outside comments and strings;
- every figure is wrapped in a link to the SVG itself, so a reader can open it full size;
- the pages Pagefind indexes are marked (data-pagefind-body on the text; the page title as its
  title): the course's pages and the API's, not the source listings and member indexes.

  scripts/docs-postprocess.py HTML_DIR
"""
import json
import pathlib
import re
import sys

CUDA_QUALIFIERS = ["__global__", "__device__", "__host__", "__shared__", "__constant__",
                   "__managed__", "__restrict__", "__forceinline__", "__noinline__",
                   "__launch_bounds__", "__align__"]
CUDA_INTRINSICS = ["__syncthreads", "__syncwarp", "__syncthreads_or", "__syncthreads_and",
                   "__syncthreads_count", "__shfl_sync", "__shfl_xor_sync", "__shfl_up_sync",
                   "__shfl_down_sync", "__ballot_sync", "__any_sync", "__all_sync", "__ldg",
                   "__threadfence", "__threadfence_block"]
CUDA_BUILTINS = ["threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize"]
KEYWORD_CLASS = {**{k: "keyword" for k in CUDA_QUALIFIERS},
                 **{k: "keywordflow" for k in CUDA_INTRINSICS},
                 **{k: "keywordtype" for k in CUDA_BUILTINS}}
KEYWORD_RE = re.compile(r"(?<![A-Za-z0-9_])(" + "|".join(sorted(KEYWORD_CLASS, key=len, reverse=True)) +
                        r")(?![A-Za-z0-9_])")
# Spans whose text is not code to mark: comments, strings, characters, preprocessor lines.
QUIET_SPANS = ("comment", "stringliteral", "charliteral", "preprocessor")

# Generated listings that are not worth a search hit: source copies and member indexes.
NOT_INDEXED = re.compile(r"(_source\.html|^(functions|globals|namespacemembers)(_.*)?\.html|"
                         r"^(annotated|classes|hierarchy|namespaces|files|pages|search)\.html)$")


def highlight_line(line):
    """Marks CUDA keywords in the text of one code line (HTML), outside comments and strings."""
    out, quiet = [], []
    for part in re.split(r"(<[^>]*>)", line):
        if part.startswith("<"):
            if part.startswith("<span"):
                cls = re.search(r'class="([^"]*)"', part)
                quiet.append(bool(cls) and cls.group(1) in QUIET_SPANS)
            elif part.startswith("</span") and quiet:
                quiet.pop()
            out.append(part)
        elif any(quiet):
            out.append(part)
        else:
            out.append(KEYWORD_RE.sub(lambda m: '<span class="%s">%s</span>' % (KEYWORD_CLASS[m.group(1)], m.group(1)), part))
    return "".join(out)


def highlight_cuda(text):
    return re.sub(r'(<div class="line">)(.*?)(</div>)', lambda m: m.group(1) + highlight_line(m.group(2)) + m.group(3), text)


def link_figures(text):
    """Each figure (an SVG object or an image in a div.image) opens full size when clicked."""
    text = re.sub(r'(<div class="image">\s*)(<object type="image/svg\+xml" data="([^"]+)"[^>]*></object>)',
                  r'\1<a class="figure-link" href="\3" title="Open the figure full size">\2</a>', text)
    return re.sub(r'(<div class="image">\s*)(<img src="([^"]+)"[^>]*/?>)',
                  r'\1<a class="figure-link" href="\3" title="Open the figure full size">\2</a>', text)


def mark_for_search(name, text):
    if NOT_INDEXED.search(name):
        return text
    text = text.replace('<div class="contents">', '<div class="contents" data-pagefind-body>', 1)
    return text.replace('<div class="title">', '<div class="title" data-pagefind-meta="title">', 1)


def load_tree(html_dir, node):
    """A navtree node's children: a list, or the name of the script that holds them."""
    kids = node[2] if len(node) > 2 else None
    if isinstance(kids, str):
        js = (html_dir / (kids + ".js")).read_text(encoding="utf-8")
        kids = json.loads(js[js.index("["):js.rindex("]") + 1])
    return kids or []


def menu_entries(html_dir, api_urls):
    """The course part of the sidebar, two levels deep, as menudata.js entries."""
    nav = (html_dir / "navtreedata.js").read_text(encoding="utf-8")
    start = nav.index("var NAVTREE =") + len("var NAVTREE =")
    tree = json.loads(nav[start:nav.index("];", start) + 1])
    entries = ['{text:"Home",url:"index.html"}']
    for node in load_tree(html_dir, tree[0])[1:]:  # [0] is the front page again, with its sections
        title, url = node[0], node[1]
        if url in api_urls:
            continue
        kids = []
        for kid in load_tree(html_dir, node):
            # Sub-pages, and sections the course names itself (exercise-NN), not autotoc_mdN ones.
            if kid[1] and "#autotoc" not in kid[1]:
                kids.append("{text:%s,url:%s}" % (json.dumps(kid[0]), json.dumps(kid[1])))
        entry = "{text:%s,url:%s" % (json.dumps(title), json.dumps(url))
        entries.append(entry + (",children:[\n" + ",\n".join(kids) + "]}" if kids else "}"))
    return entries


def rewrite_menu(html_dir):
    path = html_dir / "menudata.js"
    menu = path.read_text(encoding="utf-8")
    # Doxygen's own top-level tabs: the front page, "Related Pages", then the API reference's.
    head = "var menudata={children:[\n"
    start = menu.index(head) + len(head)
    body = menu[start:]
    api_urls = set(re.findall(r'url:"([^"]+)"', body))
    for tab in (r'\{text:"Main Page",url:"index\.html"\},?\n?', r'\{text:"Related Pages",url:"pages\.html"\},?\n?'):
        body = re.sub(tab, "", body, count=1)
    course = ",\n".join(menu_entries(html_dir, api_urls - {"index.html", "pages.html"}))
    body = course + ("\n" if body.startswith("]}") else ",\n") + body
    path.write_text(menu[:start] + body, encoding="utf-8")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: docs-postprocess.py HTML_DIR")
    html_dir = pathlib.Path(sys.argv[1])
    for page in sorted(html_dir.glob("*.html")):
        text = page.read_text(encoding="utf-8")
        new = mark_for_search(page.name, link_figures(highlight_cuda(text)))
        if new != text:
            page.write_text(new, encoding="utf-8")
    rewrite_menu(html_dir)


if __name__ == "__main__":
    main()
