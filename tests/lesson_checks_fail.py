#!/usr/bin/env python3
"""Shows that the lesson checks can fail: each known defect is put into a copy of the course and
the check that must catch it is run there (CTest: lesson_checks_catch_defects).

The defects are the ones seen in real lessons and hints: an exercise's answer quoted in a lesson
(as code, with numbers for named constants, or renamed one-letter variables), a hint that prints
the finished line, a lesson kernel carrying a solution's inner loop; Doxygen commands and broken
images on GitHub; a code block out of date with its kernel; a committed figure banksim no longer
draws.

    tests/lesson_checks_fail.py REPO_ROOT COURSE_REGISTRY BANKSIM
"""
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

root, registry, banksim = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
failures = []


def course_copy(tmp):
    dest = Path(tmp) / "course"
    for part in ["scripts", "lessons", "exercises", "solutions", "docs"]:
        shutil.copytree(root / part, dest / part)
    shutil.copy(root / "README.md", dest / "README.md")
    return dest


def run(args, cwd):
    r = subprocess.run(args, cwd=cwd, capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def expect(name, rc, out, want_rc, words):
    missing = [w for w in words if w not in out]
    if rc != want_rc or missing:
        failures.append(f"{name}: exit {rc} (want {want_rc}); missing {missing}\n{out}")
    else:
        print(f"caught: {name}")


def append(path, text):
    path.write_text(path.read_text() + text)


with tempfile.TemporaryDirectory() as tmp:
    c = course_copy(tmp)
    export = json.loads(subprocess.run([registry, "export", "--json"], check=True,
                                       capture_output=True, text=True).stdout)
    reg = Path(tmp) / "registry.json"
    reg.write_text(json.dumps(export))
    spoilers = ["python3", "scripts/check-spoilers.py", "--root", ".", "--registry-json", str(reg)]

    rc, out = run(spoilers, c)
    expect("the course as it is passes check-spoilers", rc, out, 0, ["no solution code"])

    # Exercise 02's answer as prose quotes it, with the constant's value.
    append(c / "lessons/02-column-read/README.md", "\nThe fix is `float tile[32][33]`.\n")
    rc, out = run(spoilers, c)
    expect("a lesson quoting tile[32][33]", rc, out, 1,
           ["lessons/02-column-read/README.md", "gives away ex02.1"])

    # Exercise 06's answer with the loop variables renamed to one letter.
    c = course_copy(tmp + "/b")
    append(c / "lessons/06-xor-swizzle/README.md",
           "\n```cuda\nout[r * n + q] = tile[a][b ^ (a % kCols)];\n```\n")
    rc, out = run(spoilers, c)
    expect("a lesson showing exercise 06's swizzled read", rc, out, 1, ["gives away ex06.2"])

    # A level-3 hint that prints the finished declaration (as `make hint LEVEL=3` once did).
    c = course_copy(tmp + "/c")
    bad = json.loads(reg.read_text())
    bad["exercises"][3]["hints"][2] = "Declare it as __shared__ float tile[kTile][kTile + 1];"
    reg_bad = Path(tmp) / "registry-bad.json"
    reg_bad.write_text(json.dumps(bad))
    rc, out = run(spoilers[:-1] + [str(reg_bad)], c)
    expect("a hint with the finished line", rc, out, 1, ["hint 04 level 3", "gives away ex0"])

    # A lesson kernel that carries exercise 03's staging loop.
    c = course_copy(tmp + "/d")
    sol = (c / "solutions/03-strides/complex_filter.cu").read_text()
    block = sol.split("BEGIN SOLUTION ex03.1")[1].split("\n", 1)[1].split("// END SOLUTION")[0]
    append(c / "lessons/03-strides/strides.cu", "\n// another kernel\n" + block)
    rc, out = run(spoilers, c)
    expect("a lesson kernel with a solution's loop", rc, out, 1,
           ["lessons/03-strides/strides.cu", "gives away ex03.1"])

    # GitHub: a Doxygen formula and snippet, a missing figure, an anchor to no heading.
    c = course_copy(tmp + "/e")
    append(c / "lessons/01-banks-and-words/README.md",
           "\nA word is \\f$a/4\\f$.\n\n\\snippet lessons/01-banks-and-words/patterns.cu x\n\n"
           "![gone](l01-gone.svg)\n\nSee [R9](../../docs/bank-rules.md#r9-nothing).\n\n"
           "$$\nW = \\{ w \\}\n$$\n")
    rc, out = run(["python3", "scripts/check-lessons-github.py"], c)
    expect("raw Doxygen, a missing image, a bad anchor, an escaped brace in math", rc, out, 1,
           ["`\\f$` shows raw", "`\\snippet` shows raw", "l01-gone.svg` leads nowhere",
            "#r9-nothing", "`\\{` in a formula"])

    # A command too wide for a phone (a text block as wide is output, and is not flagged).
    c = course_copy(tmp + "/e2")
    wide = "build/bin/banksim profile lessons/01-banks-and-words/patterns.cu " + "--arg 1 " * 10
    append(c / "lessons/01-banks-and-words/README.md",
           f"\n```sh\n{wide}\n```\n\n```text\n{wide}\n```\n")
    rc, out = run(["python3", "scripts/check-lessons-github.py"], c)
    lines = len((c / "lessons/01-banks-and-words/README.md").read_text().split("\n"))
    expect("a command wider than a phone", rc, out, 1,
           [f"lessons/01-banks-and-words/README.md:{lines - 6}: a command line of {len(wide)}"])
    if f"README.md:{lines - 2}:" in out:
        failures.append("a wide output line (a text block) was flagged as a command\n" + out)

    # A code block that no longer equals its kernel.
    c = course_copy(tmp + "/f")
    k = c / "lessons/01-banks-and-words/patterns.cu"
    k.write_text(k.read_text().replace("out[t] = s[index];", "out[t] = s[index] + 0.0f;"))
    rc, out = run(["python3", "scripts/lesson-snippets.py", "--check", "--root", "."], c)
    expect("a stale code block", rc, out, 1, ["lessons/01-banks-and-words/README.md",
                                              "differs from the file"])

    # A committed figure that banksim no longer draws that way (the lesson now asks for pattern 2).
    c = course_copy(tmp + "/g")
    md = c / "lessons/01-banks-and-words/README.md"
    md.write_text(md.read_text().replace("--arg 32 --arg 3 --diagram 25", "--arg 32 --arg 2 --diagram 25"))
    rc, out = run(["scripts/lesson-figures.sh", "--check", str(Path(banksim).resolve())], c)
    expect("a stale figure", rc, out, 1, ["l01-stride32.svg differs from what banksim draws"])

for f in failures:
    print("NOT CAUGHT: " + f)
sys.exit(1 if failures else 0)
