#!/usr/bin/env python3
"""Checks that the first `make grade` builds every program the lessons' and the README's "Try it"
commands run: each `build/bin/NAME` in a `<!-- try -->` block must be a target that the Makefile's
grade recipe builds (read from `make -n grade`, the recipe as make runs it, not from a copy of
the list), so that a student can run the lessons' commands right after grading.
  tests/check_grade_targets.py [REPO]     (default: this file's repository)
Exit 0 when all are built; 1 with the missing programs and the commands that run them.
"""
import glob
import os
import re
import subprocess
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TRY = re.compile(r"<!-- try -->\s*```sh\n([\s\S]*?)```")


def grade_targets():
    """The --target list of `cmake --build` in `make -n grade` (with a build folder that does not
    exist: the configure step is printed, not run)."""
    env = dict(os.environ, MAKEFLAGS="")
    out = subprocess.run(["make", "-n", "-C", ROOT, "grade", "BUILD_DIR=/nonexistent-grade-targets"],
                         capture_output=True, text=True, env=env)
    if out.returncode != 0:
        sys.exit(f"make -n grade failed ({out.returncode}): {out.stderr[-2000:]}")
    builds = re.findall(r"cmake --build \S+ .*?--target ((?:[\w-]+ ?)+)", out.stdout)
    if not builds:
        sys.exit("make -n grade runs no `cmake --build ... --target ...`:\n" + out.stdout)
    return {t for b in builds for t in b.split()}


def tried_programs():
    pages = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "lessons", "*", "README.md")))
    found = {}
    for page in pages:
        text = open(page, encoding="utf-8").read()
        for m in TRY.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            for name in re.findall(r"build/bin/([\w-]+)", m.group(1)):
                where = f"{os.path.relpath(page, ROOT)}:{line}"
                if where not in found.setdefault(name, []):
                    found[name].append(where)
    return found


def main():
    targets = grade_targets()
    programs = tried_programs()
    if not programs:
        sys.exit("no `build/bin/...` command in any <!-- try --> block: the check would pass on nothing")
    missing = {p: where for p, where in programs.items() if p not in targets}
    print(f"make grade builds: {' '.join(sorted(targets))}")
    print(f"Try it commands run: {' '.join(sorted(programs))}")
    for p, where in sorted(missing.items()):
        print(f"FAIL: build/bin/{p} is run by the Try it command at {', '.join(where[:3])}"
              f"{' and more' if len(where) > 3 else ''}, but `make grade` does not build it: add "
              f"{p} to GRADE_TARGETS in the Makefile")
    for needed in ("grade", "grade_worker"):
        if needed not in targets:
            print(f"FAIL: `make grade` does not build {needed}")
            missing[needed] = []
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
