#!/usr/bin/env python3
"""Fails when a tracked text file names a repository path that does not exist.

Looks at every path-like token with a folder and a known extension (`lessons/02-column-read/README.md`,
`gpu/harness.cuh`, ...) in tracked .md/.cpp/.hpp/.cu/.cuh/.h/.sh/.py/.cmake/CMakeLists.txt files,
and checks it exists relative to the repository root or to the file's own folder. Paths under
build/ (generated), absolute paths, URLs and measurement logs are skipped.
  scripts/check-references.py        # exit 1 and one line per dangling reference
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXT = r"(?:md|cpp|hpp|cu|cuh|h|sh|py|cmake|json|csv|txt|svg)"
TOKEN = re.compile(r"(?<![\w./:-])((?:\.\./|\./)?[A-Za-z0-9_][\w.-]*(?:/[\w.<>-]+)+\." + EXT + r")\b")
SKIP_PREFIXES = ("build/", "tmp/", "usr/", "opt/", "proc/", "dev/", "x/", "DIR/", "OUT/", "out/",
                 "OUTDIR/", "work/")
# Named on purpose although they do not exist (each with its reason).
ALLOWED = {
    "tests/corpus/nope.cu",  # the CLI test of a missing file
    "measurements/fidelity/banksim-profile-totals.txt",  # where the script's output may be written
    "02-column-read/transpose_rows.cu",  # a path inside a test's scratch submission
    "04-padding-transpose/transpose.cu",  # a path inside a submission, as messages name it
    "catch2/catch_all.hpp",  # Catch2 v3's header: deps.sh looks for it, CI has v2's
}
INCLUDE_DIRS = [os.path.join(ROOT, d, "include") for d in
                ("bankmodel", "banksim", "grader", "registry", "gpu")]
# The CUDA headers banksim provides under their CUDA names (<cooperative_groups/reduce.h>...).
INCLUDE_DIRS.append(os.path.join(ROOT, "banksim", "include", "banksim", "cuda"))


def tracked():
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True)
    for f in out.stdout.splitlines():
        if f.startswith("measurements/") and not f.endswith("README.md"):
            continue  # raw logs quote the GPU machine's paths
        if f.startswith("tests/submissions/") or f.startswith("tests/corpus/"):
            continue
        if f == "scripts/dry-run-new-exercise.sh":
            continue  # it names the files it creates
        if not os.path.exists(os.path.join(ROOT, f)):
            continue
        if re.search(r"(\.md|\.cpp|\.hpp|\.cu|\.cuh|\.h|\.sh|\.py|\.cmake|CMakeLists\.txt)$", f):
            yield f


def main():
    bad = []
    for f in tracked():
        text = open(os.path.join(ROOT, f), encoding="utf-8", errors="replace").read()
        for n, line in enumerate(text.splitlines(), 1):
            if line.lstrip().startswith("#include"):
                continue  # the compiler checks includes
            for m in TOKEN.finditer(line):
                p = m.group(1)
                if "<" in p or "*" in p or "{" in p or p.startswith(SKIP_PREFIXES):
                    continue
                if "://" in line[max(0, m.start() - 12):m.start()] or line[:m.start()].endswith("$"):
                    continue  # a URL, or a path under a shell variable ($root/...)
                if any(re.match(r"^[A-Z]{2,}", part) for part in p.split("/")):
                    continue  # a placeholder: lessons/NN-slug/..., solutions/SLUG/FILE.cu
                if os.path.exists(os.path.join("/usr/include", p)):
                    continue  # a system header named in prose
                here = os.path.normpath(os.path.join(ROOT, os.path.dirname(f), p))
                at_root = os.path.normpath(os.path.join(ROOT, p))
                if p in ALLOWED or any(os.path.exists(os.path.join(d, p)) for d in INCLUDE_DIRS):
                    continue
                if not (os.path.exists(here) or os.path.exists(at_root)):
                    bad.append(f"{f}:{n}: {p} does not exist")
    for b in bad:
        print(b)
    print(f"check-references: {len(bad)} dangling reference(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
