#!/usr/bin/env python3
"""The platform artefacts against their platforms' contracts, in fake roots (CTest platforms_*).

  tests/platforms/check_platforms.py BUILD_DIR gradescope|prairielearn|classroom

Gradescope: autograder.zip has setup.sh and run_autograder at its top and no solutions; the
unpacked run_autograder grades uploads (loose files, a zip of a repository copy, hostile zips
and links, nothing gradable, a missing grader) and always writes a results.json that follows
Gradescope's specification. PrairieLearn: each question's entry point grades /grade/student and
writes /grade/results/results.json in PrairieLearn's format. The grader is BUILD_DIR's (the
fresh-root test, make platform-fresh-root, runs setup.sh itself).
"""
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FAILS = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILS.append(what)


def solution(slug_prefix):
    d = next(x for x in os.listdir(os.path.join(ROOT, "solutions")) if x.startswith(slug_prefix))
    f = next(x for x in os.listdir(os.path.join(ROOT, "solutions", d)) if x.endswith((".cu", ".cpp")))
    return d, f, os.path.join(ROOT, "solutions", d, f)


def skeleton(slug_prefix):
    d, f, _ = solution(slug_prefix)
    return os.path.join(ROOT, "exercises", d, f)


def gradescope_schema(r):
    """Gradescope's results.json specification: the keys and types it reads."""
    ok = isinstance(r.get("score"), (int, float)) and isinstance(r.get("tests"), list)
    ok = ok and r.get("output_format") in ("text", "html", "simple_format", "md", "ansi")
    for t in r["tests"] if ok else []:
        ok = ok and isinstance(t.get("name"), str) and isinstance(t.get("score"), (int, float))
        ok = ok and isinstance(t.get("max_score"), (int, float))
        ok = ok and t.get("visibility") in ("hidden", "after_due_date", "after_published",
                                            "visible")
        ok = ok and t.get("status", "passed") in ("passed", "failed")
        ok = ok and isinstance(t.get("output", ""), str)
    for b in r.get("leaderboard", []):
        ok = ok and isinstance(b.get("name"), str) and isinstance(b.get("value"), (int, float, str))
    return ok


def by_exercise(r, ex_id):
    return sum(t["score"] for t in r["tests"] if t["name"].startswith(ex_id + " "))


def run_gradescope(src, fake, env):
    sub = os.path.join(fake, "submission")
    res = os.path.join(fake, "results", "results.json")
    if os.path.exists(res):
        os.remove(res)
    p = subprocess.run([os.path.join(src, "run_autograder")], env=env, capture_output=True,
                       text=True, timeout=900)
    if p.returncode != 0:
        print(p.stdout[-2000:], p.stderr[-2000:])
    try:
        return json.load(open(res, encoding="utf-8"))
    except (OSError, ValueError) as e:
        return {"error": str(e)}


def fresh_upload(fake):
    sub = os.path.join(fake, "submission")
    shutil.rmtree(sub, ignore_errors=True)
    os.makedirs(sub)
    return sub


def gradescope(build, tmp):
    dist = os.path.join(tmp, "dist")
    subprocess.run([sys.executable, os.path.join(ROOT, "platforms", "package.py"), "gradescope",
                    "--out", dist], check=True, capture_output=True)
    zpath = os.path.join(dist, "gradescope", "autograder.zip")
    with zipfile.ZipFile(zpath) as z:
        names = z.namelist()
        modes = {i.filename: (i.external_attr >> 16) & 0o777 for i in z.infolist()}
    check("setup.sh" in names and "run_autograder" in names, "zip: setup.sh and run_autograder at the top")
    check(modes.get("run_autograder", 0) & 0o100 and modes.get("setup.sh", 0) & 0o100,
          "zip: both executable")
    check(not any(n.startswith(("solutions/", "tests/")) for n in names), "zip: no solutions/ or tests/")
    fake = os.path.join(tmp, "autograder")
    src = os.path.join(fake, "source")
    os.makedirs(src)
    with zipfile.ZipFile(zpath) as z:
        for info in z.infolist():
            z.extract(info, src)
            os.chmod(os.path.join(src, info.filename), (info.external_attr >> 16) & 0o777 or 0o644)
    for d in (tmp, fake):
        os.chmod(d, 0o755)
    env = dict(os.environ, AUTOGRADER_ROOT=fake, COURSE_GRADE=os.path.join(build, "bin", "grade"))

    # 1. Loose files: two honest solutions get their full marks, the rest is "not in the upload".
    sub = fresh_upload(fake)
    for prefix in ("02", "04"):
        shutil.copy(solution(prefix)[2], sub)
    r = run_gradescope(src, fake, env)
    check(gradescope_schema(r), "loose files: results.json follows Gradescope's specification")
    check(by_exercise(r, "02") == 100 and by_exercise(r, "04") == 100,
          f"loose files: 02 and 04 at full marks (got {by_exercise(r, '02')}, {by_exercise(r, '04')})")
    check(r.get("score") == 200, f"loose files: 200 in all (got {r.get('score')})")
    check("not in the upload" in r.get("output", ""), "loose files: the missing ones are named")
    secret = [t for t in r.get("tests", []) if t["name"].endswith("secret sizes")]
    check(secret and all(t["visibility"] == "after_due_date" for t in secret),
          "secret sizes shown after the due date only")
    check(isinstance(r.get("execution_time"), (int, float)), "execution_time present")

    # 2. A zip of a repository copy: myrepo/exercises/NN-slug/file; a skeleton fails correctness.
    sub = fresh_upload(fake)
    with zipfile.ZipFile(os.path.join(sub, "submission.zip"), "w") as z:
        d2, f2, _ = solution("02")
        z.write(skeleton("02"), f"myrepo/exercises/{d2}/{f2}")
        d4, f4, p4 = solution("04")
        z.write(p4, f"myrepo/exercises/{d4}/{f4}")
        z.writestr("myrepo/README.md", "notes")
    r = run_gradescope(src, fake, env)
    check(gradescope_schema(r), "zip upload: results.json follows the specification")
    check(by_exercise(r, "04") == 100, f"zip upload: 04 at full marks (got {by_exercise(r, '04')})")
    builds02 = [t for t in r.get("tests", []) if t["name"].startswith("02 ") and
                t["name"].endswith(": builds")]
    check(by_exercise(r, "02") == 0 and builds02 and builds02[0].get("status") == "passed",
          f"zip upload: 02's skeleton builds (status passed) and scores 0 (got {by_exercise(r, '02')})")

    # 3. Hostile: paths out of the zip, a link member, a link in the upload to the solutions, a
    #    file too large; nothing outside, no solution graded, a valid result.
    sub = fresh_upload(fake)
    canary = os.path.join(tmp, "escape.cu")
    d4, f4, p4 = solution("04")
    with zipfile.ZipFile(os.path.join(sub, "evil.zip"), "w") as z:
        z.writestr("../../escape.cu", "int x;")
        z.writestr("/tmp/abs-escape.cu", "int x;")
        link = zipfile.ZipInfo(f"{d4}/{f4}")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        z.writestr(link, p4)
        z.writestr("big/" + f4, "//" + "x" * (2 << 20))
    os.symlink(p4, os.path.join(sub, f4))
    r = run_gradescope(src, fake, env)
    check(gradescope_schema(r), "hostile upload: results.json follows the specification")
    check(not os.path.exists(canary) and not os.path.exists("/tmp/abs-escape.cu"),
          "hostile upload: nothing written outside")
    check(r.get("score") == 0, f"hostile upload: no solution graded through links (score {r.get('score')})")
    out = r.get("output", "")
    check("a path outside the zip" in out and "not a regular file" in out,
          "hostile upload: each ignored entry is named")

    # 4. Nothing gradable, and a grader that is not there: still a result, score 0, a reason.
    sub = fresh_upload(fake)
    open(os.path.join(sub, "notes.txt"), "w").write("hello")
    r = run_gradescope(src, fake, env)
    check(gradescope_schema(r) and r.get("score") == 0 and "No exercise file" in r.get("output", ""),
          "empty upload: score 0 and what to upload")
    shutil.copy(solution("04")[2], sub)
    r = run_gradescope(src, fake, dict(env, COURSE_GRADE="/nonexistent/grade"))
    check(gradescope_schema(r) and r.get("score") == 0, "no grader: a result all the same")


def prairielearn(build, tmp):
    dist = os.path.join(tmp, "dist")
    subprocess.run([sys.executable, os.path.join(ROOT, "platforms", "package.py"), "prairielearn",
                    "--out", dist], check=True, capture_output=True)
    pl = os.path.join(dist, "prairielearn")
    course = json.load(open(os.path.join(pl, "infoCourse.json")))
    check(all(k in course for k in ("uuid", "name", "title", "topics")), "infoCourse.json keys")
    d4, f4, p4 = solution("04")
    q = os.path.join(pl, "questions", "bankconflicts", d4)
    info = json.load(open(os.path.join(q, "info.json")))
    check(info.get("gradingMethod") == "External" and info["externalGradingOptions"]["enabled"],
          "info.json: external grading")
    html = open(os.path.join(q, "question.html")).read()
    check(f'file-name="{f4}"' in html and "TODO(ex04" in html, "question.html: editor with the skeleton")
    entry = open(os.path.join(q, "tests", "run.sh")).read()
    check("platforms/prairielearn/grade.sh 04" in entry, "the question's run.sh calls the course's grader")
    for label, src, want_full in (("solution", p4, True), ("skeleton", skeleton("04"), False)):
        g = os.path.join(tmp, "grade-" + label)
        os.makedirs(os.path.join(g, "student"))
        os.chmod(tmp, 0o755)
        os.chmod(g, 0o755)
        shutil.copy(src, os.path.join(g, "student", f4))
        env = dict(os.environ, PL_GRADE_ROOT=g, COURSE_GRADE=os.path.join(build, "bin", "grade"))
        subprocess.run([os.path.join(ROOT, "platforms", "prairielearn", "grade.sh"), "04"],
                       env=env, capture_output=True, timeout=600)
        try:
            r = json.load(open(os.path.join(g, "results", "results.json")))
        except (OSError, ValueError) as e:
            r = {"error": str(e)}
        ok = isinstance(r.get("gradable"), bool) and isinstance(r.get("score"), (int, float))
        ok = ok and 0 <= r["score"] <= 1 and isinstance(r.get("tests"), list)
        ok = ok and all(isinstance(t.get("name"), str) and isinstance(t.get("points"), (int, float))
                        and isinstance(t.get("max_points"), (int, float)) for t in r["tests"])
        check(ok, f"PrairieLearn {label}: results.json in PrairieLearn's format")
        check((r.get("score") == 1.0) == want_full,
              f"PrairieLearn {label}: score {r.get('score')} ({'full' if want_full else 'not full'})")


def classroom(build, tmp):
    dist = os.path.join(tmp, "dist")
    subprocess.run([sys.executable, os.path.join(ROOT, "platforms", "package.py"), "classroom",
                    "--out", dist], check=True, capture_output=True)
    repo = os.path.join(dist, "github-classroom")
    check(not os.path.exists(os.path.join(repo, "solutions")), "template: no solutions/")
    wf_text = open(os.path.join(repo, ".github", "workflows", "classroom.yml")).read()
    try:
        import yaml  # PyYAML where present; the checks below hold without it
        wf = yaml.safe_load(wf_text)
        steps = wf["jobs"]["run-autograding-tests"]["steps"]
    except ImportError:
        steps = None
    commands = [l.split("command: ", 1)[1] for l in wf_text.splitlines()
                if l.strip().startswith("command: ")]
    ids = sorted(x[:2] for x in os.listdir(os.path.join(ROOT, "exercises")) if x[:2].isdigit())
    check(len(commands) == len(ids), f"workflow: one graded step per exercise ({len(commands)})")
    if steps is not None:
        graders = [st for st in steps if "autograding-command-grader" in st.get("uses", "")]
        check(len(graders) == len(ids) and all(g["with"]["max-score"] == 100 for g in graders),
              "workflow (YAML): command-grader steps worth 100 each")
        reporter = steps[-1]
        check(reporter["with"]["runners"].split(",") == [g["id"] for g in graders],
              "workflow (YAML): the reporter lists every step")
    # Each step's command, run as the runner would (root here: sudo dropped), in the template:
    # the skeleton fails (exit 1), a solution copied in passes (exit 0).
    grade = os.path.join(build, "bin", "grade")
    os.chmod(tmp, 0o755)
    for dirpath, dirnames, filenames in os.walk(dist):
        os.chmod(dirpath, 0o755)
    for ex in ("02", "04"):
        cmd = next(c for c in commands if f"--exercise {ex} " in c).split()
        assert cmd[0] == "sudo" and cmd[1] == "build/bin/grade"
        argv = [grade] + cmd[2:]
        argv[argv.index("--out") + 1] = os.path.join(tmp, "out-" + ex)
        rc_skel = subprocess.run(argv, cwd=repo, capture_output=True).returncode
        d, f, p = solution(ex)
        shutil.copy(p, os.path.join(repo, "exercises", d, f))
        rc_sol = subprocess.run(argv, cwd=repo, capture_output=True).returncode
        check(rc_skel == 1 and rc_sol == 0,
              f"workflow step {ex}: skeleton exit {rc_skel} (want 1), solution exit {rc_sol} (want 0)")


def main():
    build, which = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp(prefix=f"platform-{which}-")
    os.chmod(tmp, 0o755)
    try:
        {"gradescope": gradescope, "prairielearn": prairielearn,
         "classroom": classroom}[which](os.path.abspath(build), tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{which}: {'all checks passed' if not FAILS else str(len(FAILS)) + ' failed'}")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
