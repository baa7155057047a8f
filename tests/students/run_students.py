#!/usr/bin/env python3
"""Grades the corpus of realistic student submissions (tests/students/students.json) in ONE class
run and compares each student's gates with the verdict a fair grader gives it.

  tests/students/run_students.py BUILD_DIR [--mode cpu|gpu] [--only NAME_REGEX] [--jobs N]
                                 [--keep] [--json OUT.json]

Each selected submission (tests/students/NN/NAME.cu) becomes its own student folder
CLASS/<name>/<slug>/<file> in a temporary class folder, laid out like exercises/; the exercise's
slug and file name come from the repository (BUILD_DIR/bin/course-registry list, else the
folders of exercises/ and the one .cu/.cpp file in each). Then one run of
  BUILD_DIR/bin/grade --submissions CLASS --out OUT --seed 1 --jobs N --mode MODE --exercise IDS
grades the class into OUT/<student>/results.json (Gradescope format, one test per gate named
"NN slug-without-number: gate").

A manifest entry's "expect" (or "gpu_expect" in GPU mode, "cpu_expect" in CPU mode, when
present: a known, explained difference between that mode and the hardware, in "known_gap"):
  correct     whether the `correct` gate must pass
  fails       the exact set of gates that must fail; a skipped gate (its output says why it did
              not run: "needs a correct kernel first", "needs the file", ...) counts as not failed
  min_score, max_score   the exercise's points must lie in this range
  reason      optional regex that must appear in the output of one failing gate
Each exercise's reference solution (solutions/<slug>/<file>) is graded too, as NN_REFERENCE,
expected at full marks: when it fails, that exercise's gates are miscalibrated and its other
rows say little (--no-reference leaves these rows out). So is each skeleton
(exercises/<slug>/<file>), as NN_SKELETON: it must score 0; and the skeleton with its
course_todo() lines deleted and nothing else, as NN_BASELINE: at most 10 points.
Prints one row per student (expected, got, OK/MISMATCH) and exits 1 on any mismatch.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
GATES = ["builds", "correct", "no_problems", "uses_shared", "conflicts", "speed"]
# How the grader words a gate that did not run because an earlier one failed (Gradescope has no
# "skipped" status, so such a gate is written as "failed" with one of these reasons).
SKIP_RE = re.compile(r"^needs (a|the) ")


def exercise_table(build):
    """id -> (slug, file), from the registry the grader was built with, else from exercises/."""
    table = {}
    reg = os.path.join(build, "bin", "course-registry")
    if os.access(reg, os.X_OK):
        try:
            out = subprocess.run([reg, "list"], capture_output=True, text=True, timeout=60).stdout
        except (OSError, subprocess.SubprocessError):
            out = ""
        for line in out.splitlines():
            m = re.match(r"^exercise\s+(\d+)\s+(\S+)\s+([^:\s]+):", line)
            if m:
                table[m.group(1)] = (m.group(2), m.group(3))
    if table:
        return table
    ex = os.path.join(ROOT, "exercises")
    for slug in sorted(os.listdir(ex)):
        m = re.match(r"^(\d+)-", slug)
        d = os.path.join(ex, slug)
        if not m or not os.path.isdir(d):
            continue
        files = [f for f in os.listdir(d) if f.endswith((".cu", ".cpp"))]
        if len(files) == 1:
            table[m.group(1)] = (slug, files[0])
    return table


def wait_for(path):
    """The grader must be built."""
    if not os.access(path, os.X_OK):
        print(f"{path} is missing: build the grader first (make, or cmake --build BUILD_DIR)")
    return os.access(path, os.X_OK)


def gate_results(results, ex_id, slug):
    """gate -> (state, score, output) for one exercise of a student's results.json."""
    prefix = f"{ex_id} {slug[3:]}: "
    gates = {}
    for t in results.get("tests", []):
        name = t.get("name", "")
        if not name.startswith(prefix):
            continue
        output = t.get("output", "") or ""
        status = t.get("status", "")
        if status == "passed":
            state = "passed"
        elif status == "skipped" or SKIP_RE.match(output):
            state = "skipped"
        else:
            state = "failed"
        gates[name[len(prefix):]] = (state, t.get("score", 0) or 0, output,
                                     t.get("max_score", 0) or 0)
    return gates


def describe(correct, fails, lo, hi):
    order = {g: i for i, g in enumerate(GATES)}
    f = ",".join(sorted(fails, key=lambda g: (order.get(g, len(GATES)), g))) or "-"
    score = f"{lo}" if lo == hi else f"{lo}-{hi}"
    verdict = "correct?" if correct is None else "correct" if correct else "WRONG"
    return f"{verdict}; fails {f}; {score}"


def max_points(gate):
    return gate[3]


def compare(expect, gates):
    """The list of differences between a student's expectation and its graded gates."""
    problems = []
    if not gates:
        return ["no result for this exercise"]
    failed = {g for g, v in gates.items() if v[0] == "failed"}
    score = sum(v[1] for v in gates.values())
    correct_passed = gates.get("correct", ("missing",))[0] == "passed"
    if expect["correct"] is not None and correct_passed != bool(expect["correct"]):
        problems.append(f"correct {'passed' if correct_passed else 'did not pass'}")
    want = set(expect.get("fails") or [])
    if expect.get("fails") is not None and failed != want:
        extra, missing = sorted(failed - want), sorted(want - failed)
        if extra:
            problems.append("also failed: " + ",".join(extra))
        if missing:
            problems.append("passed or skipped: " + ",".join(missing))
    lo, hi = expect.get("min_score", 0), expect.get("max_score", 10**9)
    if expect.get("full_marks"):
        lo = hi = sum(max_points(g) for g in gates.values())
    if not lo <= score <= hi:
        problems.append(f"score {score} outside {lo}-{hi}")
    reason = expect.get("reason")
    if reason:
        outs = [v[2] for v in gates.values() if v[0] == "failed"]
        if not any(re.search(reason, o) for o in outs):
            problems.append(f"no failing gate's output matches /{reason}/")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("build")
    ap.add_argument("--mode", choices=["cpu", "gpu"], default="cpu")
    ap.add_argument("--only", default=None, help="regex over the students' names")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--keep", action="store_true", help="keep the class and output folders")
    ap.add_argument("--json", default=None, help="also write the comparison as JSON here")
    ap.add_argument("--deadline", type=float, default=None,
                    help="seconds: stop the grader then and compare the students it graded "
                         "(the others are listed as not graded)")
    ap.add_argument("--no-reference", action="store_true",
                    help="leave out the reference rows (each exercise's solutions/ file, expected "
                         "at full marks: when one fails, that exercise's gates are miscalibrated)")
    args = ap.parse_args()

    build = os.path.abspath(args.build)
    manifest = json.load(open(os.path.join(HERE, "students.json"), encoding="utf-8"))
    students = list(manifest["students"])
    table = exercise_table(build)
    if not args.no_reference:
        for ex_id in sorted({s["exercise"] for s in students}):
            if ex_id not in table:
                continue
            slug, file = table[ex_id]
            src = os.path.join(ROOT, "solutions", slug, file)
            if os.path.exists(src):
                students.append({"name": f"{ex_id}_REFERENCE", "exercise": ex_id,
                                 "kind": "reference", "path": src,
                                 "expect": {"correct": True, "fails": [], "min_score": 0,
                                            "max_score": 10**9, "full_marks": True}})
            skel = os.path.join(ROOT, "exercises", slug, file)
            if os.path.exists(skel):
                # A skeleton builds and gets nothing: its TODOs stop it (course_todo).
                students.append({"name": f"{ex_id}_SKELETON", "exercise": ex_id,
                                 "kind": "skeleton", "path": skel,
                                 "expect": {"correct": False, "fails": None, "min_score": 0,
                                            "max_score": 0}})
                # The skeleton with its course_todo() lines deleted and nothing else: the
                # conflicting baseline it hands over (or code that does not work yet) earns at
                # most the 10 points of staying on the shared path.
                with open(skel, encoding="utf-8") as f:
                    text = "".join(l for l in f if "course_todo(" not in l)
                students.append({"name": f"{ex_id}_BASELINE", "exercise": ex_id,
                                 "kind": "baseline", "text": text,
                                 "expect": {"correct": None, "fails": None, "min_score": 0,
                                            "max_score": 10}})
    if args.only:
        students = [s for s in students if re.search(args.only, s["name"])]
    if not students:
        print("no student selected")
        return 2
    for s in students:
        if s["exercise"] not in table:
            print(f"{s['name']}: exercise {s['exercise']} is not in the registry ({sorted(table)})")
            return 2
    names = [s["name"] for s in students]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        print("duplicate names in students.json: " + ", ".join(sorted(dup)))
        return 2

    base = tempfile.mkdtemp(prefix="students-")
    os.chmod(base, 0o755)
    klass, out = os.path.join(base, "class"), os.path.join(base, "out")
    rows, mismatches, report, not_graded = [], 0, [], []
    try:
        for s in students:
            slug, file = table[s["exercise"]]
            d = os.path.join(klass, s["name"], slug)
            os.makedirs(d)
            if "text" in s:
                with open(os.path.join(d, file), "w", encoding="utf-8") as f:
                    f.write(s["text"])
            else:
                shutil.copyfile(s.get("path") or os.path.join(HERE, s["file"]),
                                os.path.join(d, file))
        for dirpath, _, _ in os.walk(base):
            os.chmod(dirpath, 0o755)
        grade = os.path.join(build, "bin", "grade")
        if not wait_for(grade):
            print(f"{grade} not found")
            return 2
        ids = sorted({s["exercise"] for s in students})
        cmd = [grade, "--submissions", klass, "--out", out, "--seed", "1", "--jobs",
               str(args.jobs), "--mode", args.mode, "--exercise", *ids]
        # CPU mode counts nvcc's access widths where they can differ from clang's (the grader's
        # default, "auto"; the verdicts of 05_pad_by_2 and 05_padded_wrong_tile depend on it).
        print("$ " + " ".join(cmd), flush=True)
        t0 = time.time()
        # The grader's progress (one line per student in a log) goes straight through, so that a
        # run cut short still shows how far it got.
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=None)
        cut = False
        try:
            p.wait(timeout=args.deadline)
        except subprocess.TimeoutExpired:
            cut = True
            p.terminate()
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        if cut:
            print(f"the grader was stopped at the deadline ({args.deadline:g} s) with "
                  f"{len(students)} students to grade", flush=True)
        else:
            print(f"graded {len(students)} students in {time.time() - t0:.0f} s "
                  f"(exit {p.returncode})", flush=True)

        for s in students:
            slug, _ = table[s["exercise"]]
            expect = s["expect"]
            if args.mode == "gpu" and "gpu_expect" in s:
                expect = s["gpu_expect"]
            if args.mode == "cpu" and "cpu_expect" in s:
                expect = s["cpu_expect"]
            rj = os.path.join(out, s["name"], "results.json")
            if cut and not os.path.exists(rj):
                not_graded.append(s["name"])
                continue
            err = "empty"
            try:
                results = json.load(open(rj, encoding="utf-8"))
            except (OSError, ValueError) as e:
                results, err = {}, str(e)
            gates = gate_results(results, s["exercise"], slug)
            problems = compare(expect, gates) if results else [f"no results.json: {err}"]
            failed = [g for g in GATES if gates.get(g, ("",))[0] == "failed"]
            score = sum(v[1] for v in gates.values())
            got_correct = gates.get("correct", ("",))[0] == "passed"
            if expect.get("full_marks"):
                want = "correct; fails -; full marks"
            else:
                want = describe(expect["correct"],
                                ["..."] if expect.get("fails") is None else expect["fails"],
                                expect.get("min_score", 0), expect.get("max_score", 0))
            got = describe(got_correct, failed, score, score) if gates else "-"
            ok = not problems
            mismatches += 0 if ok else 1
            rows.append((s["name"], want, got, "OK" if ok else "MISMATCH"))
            report.append({"name": s["name"], "exercise": s["exercise"], "kind": s.get("kind"),
                           "expected": want, "got": got, "ok": ok, "problems": problems,
                           "gates": {g: {"state": v[0], "score": v[1], "output": v[2][:400]}
                                     for g, v in gates.items()}})
    finally:
        if args.keep:
            print(f"class and results kept in {base}")
        else:
            subprocess.run(["chmod", "-R", "u+w", base])
            shutil.rmtree(base, ignore_errors=True)

    w = [max(len(r[i]) for r in rows + [("name", "expected", "got", "")]) for i in range(3)]
    print(f"\n{'name':<{w[0]}}  {'expected':<{w[1]}}  {'got':<{w[2]}}  verdict")
    for r, rep in zip(rows, report):
        print(f"{r[0]:<{w[0]}}  {r[1]:<{w[1]}}  {r[2]:<{w[2]}}  {r[3]}")
        for pr in rep["problems"]:
            print(f"{'':<{w[0]}}    - {pr}")
    gaps = [s["name"] for s in students if ("cpu_expect" if args.mode == "cpu" else "gpu_expect") in s]
    if gaps:
        print(f"known gaps of {args.mode} mode (see their known_gap): {', '.join(gaps)}")
    if not_graded:
        print(f"not graded before the deadline ({len(not_graded)}): {', '.join(not_graded)}")
    print(f"\n{len(rows) - mismatches}/{len(rows)} as a fair grader expects ({args.mode} mode)"
          + (f"; {mismatches} MISMATCH" if mismatches else "")
          + (f"; {len(not_graded)} not graded (deadline)" if not_graded else ""))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"mode": args.mode, "students": report, "not_graded": not_graded}, f,
                      indent=1)
    return 1 if mismatches or not_graded else 0


if __name__ == "__main__":
    sys.exit(main())
