#!/usr/bin/env python3
"""The platform artefacts against their platforms' contracts, in fake roots (CTest platforms_*).

  tests/platforms/check_platforms.py BUILD_DIR gradescope|prairielearn|classroom|working-tree

Gradescope: autograder.zip has setup.sh and run_autograder at its top and no solutions; as
Gradescope runs it (unzipped into source/, run_autograder *copied* to the root and the copy run
from elsewhere) it grades uploads (loose files, a zip of a repository copy, hostile zips and
links, nothing gradable, a missing grader, a missing course) and always writes a results.json
that follows Gradescope's specification; a one-exercise zip (EXERCISES=04) scores out of that
exercise's points and names only it. PrairieLearn: each question's entry point grades
/grade/student and writes /grade/results/results.json in PrairieLearn's format; a selection
gives only its questions. Classroom: a git repository with one commit, build/ ignored, one
step per exercise worth its points. working-tree: an exercise solved in a copy's exercises/
reaches no bundle and neither site edition, and the packaging names the difference. The grader
is BUILD_DIR's (make platform-gradescope runs setup.sh itself, in a fresh root).
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
    """As Gradescope does: the copy of run_autograder at the root, run from another folder."""
    res = os.path.join(fake, "results", "results.json")
    if os.path.exists(res):
        os.remove(res)
    copy = os.path.join(fake, "run_autograder")
    shutil.copy(os.path.join(src, "run_autograder"), copy)
    p = subprocess.run([copy], env=env, capture_output=True, text=True, timeout=900, cwd="/")
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


def package(build, platform, dist, *extra, root=ROOT):
    return subprocess.run([sys.executable, os.path.join(root, "platforms", "package.py"), platform,
                           "--build", build, "--out", dist, *extra], check=True,
                          capture_output=True, text=True)


def unpack(zpath, fake):
    src = os.path.join(fake, "source")
    os.makedirs(src)
    with zipfile.ZipFile(zpath) as z:
        for info in z.infolist():
            z.extract(info, src)
            os.chmod(os.path.join(src, info.filename), (info.external_attr >> 16) & 0o777 or 0o644)
    os.chmod(fake, 0o755)
    return src


def gradescope(build, tmp):
    dist = os.path.join(tmp, "dist")
    package(build, "gradescope", dist)
    zpath = os.path.join(dist, "gradescope", "autograder.zip")
    with zipfile.ZipFile(zpath) as z:
        names = z.namelist()
        modes = {i.filename: (i.external_attr >> 16) & 0o777 for i in z.infolist()}
    check("setup.sh" in names and "run_autograder" in names, "zip: setup.sh and run_autograder at the top")
    check(modes.get("run_autograder", 0) & 0o100 and modes.get("setup.sh", 0) & 0o100,
          "zip: both executable")
    check(not any(n.startswith(("solutions/", "tests/")) for n in names), "zip: no solutions/ or tests/")
    fake = os.path.join(tmp, "autograder")
    os.chmod(tmp, 0o755)
    src = unpack(zpath, fake)
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

    # 5. The course is not where Gradescope unpacks it (a zip unpacked elsewhere): the copy still
    #    writes a result, score 0, saying where it looked.
    empty = os.path.join(tmp, "empty-root")
    os.makedirs(os.path.join(empty, "submission"))
    shutil.copy(solution("04")[2], os.path.join(empty, "submission"))
    r = run_gradescope(src, empty, dict(env, AUTOGRADER_ROOT=empty))
    check(gradescope_schema(r) and r.get("score") == 0 and "no platforms/common/grade_upload.py"
          in r.get("output", ""), "no course in source/: a 0-score result that says where it looked")

    # 6. A one-exercise assignment: make gradescope EXERCISES=04. Every solution uploaded; only
    #    04 is graded, the score is out of its 100 points.
    package(build, "gradescope", dist, "--exercises", "04")
    fake4 = os.path.join(tmp, "autograder-04")
    src4 = unpack(os.path.join(dist, "gradescope", "autograder-04.zip"), fake4)
    os.makedirs(os.path.join(fake4, "submission"))
    for d in sorted(os.listdir(os.path.join(ROOT, "solutions"))):
        shutil.copy(solution(d[:2])[2], os.path.join(fake4, "submission"))
    r = run_gradescope(src4, fake4, dict(env, AUTOGRADER_ROOT=fake4))
    names = {t["name"][:2] for t in r.get("tests", [])}
    total = sum(t["max_score"] for t in r.get("tests", []))
    check(gradescope_schema(r) and r.get("score") == 100 and total == 100 and names == {"04"},
          f"one-exercise zip: 100 of {total}, tests of {sorted(names)} only")

    # 7. An instructor's grading policy in the course the zip carries (grading-policy.toml at its
    #    root, where package.py puts it): speed worth 50 instead of 20. On Gradescope the grader
    #    built by setup.sh has /autograder/source as its course root; COURSE_ROOT stands for that
    #    here, where the grader is the checkout's build (whose sandbox binds its own sources, so
    #    only the points table is checked: the scores are steps 1-6's).
    with open(os.path.join(src4, "grading-policy.toml"), "w", encoding="utf-8") as f:
        f.write("[exercises.04.weights]\nspeed = 50\n")
    r = run_gradescope(src4, fake4, dict(env, AUTOGRADER_ROOT=fake4, COURSE_ROOT=src4))
    total = sum(t["max_score"] for t in r.get("tests", []))
    speed = [t["max_score"] for t in r.get("tests", []) if t["name"].endswith(": speed")]
    source = r.get("extra_data", {}).get("policy", {}).get("source", "")
    check(gradescope_schema(r) and total == 130 and speed == [50]
          and source.endswith("source/grading-policy.toml"),
          f"the bundle's grading-policy.toml sets the points: out of {total}, speed {speed}, "
          f"from {source or 'no policy file'}")


def prairielearn(build, tmp):
    dist = os.path.join(tmp, "dist")
    out = package(build, "prairielearn", dist).stdout
    pl = os.path.join(dist, "prairielearn")
    image = os.path.join(pl, "grader-image")
    check(os.path.isfile(os.path.join(image, "Dockerfile")) and
          os.path.isfile(os.path.join(image, "platforms", "prairielearn", "grade.sh")) and
          not os.path.exists(os.path.join(image, "solutions")),
          "grader-image/: a build context (Dockerfile, the course, no solutions/)")
    check(f"podman build -t banks-grader {image}" in out, "one command builds the image")
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
    sel = os.path.join(tmp, "dist-sel")
    package(build, "prairielearn", sel, "--exercises", "02,04")
    qs = sorted(os.listdir(os.path.join(sel, "prairielearn", "questions", "bankconflicts")))
    check([q[:2] for q in qs] == ["02", "04"], f"EXERCISES=02,04: questions {qs}")


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True).stdout


def classroom(build, tmp):
    dist = os.path.join(tmp, "dist")
    package(build, "classroom", dist)
    repo = os.path.join(dist, "github-classroom")
    check(not os.path.exists(os.path.join(repo, "solutions")), "template: no solutions/")
    check(git(repo, "rev-list", "--count", "HEAD").strip() == "1" and
          git(repo, "status", "--porcelain") == "", "template: a git repository, one commit, clean")
    check("build/" in git(repo, "check-ignore", "-v", "build/grade/results.json"),
          "template: .gitignore ignores build/")
    readme = open(os.path.join(repo, "README.md")).read()
    check("make grade EXERCISE=" in readme and "lessons/01-" in readme,
          "template README: the first commands and where the lessons are")
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
              "workflow (YAML): command-grader steps worth each exercise's points (100)")
        check(all(2 <= g["with"]["timeout"] <= 10 for g in graders),
              "workflow (YAML): step timeouts of 2 to 10 minutes")
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
    # The template configures as `make grade` does (no tests/ or bench/ in it), and what grading
    # writes (build/, its results) leaves the repository clean: a student's edit to an exercise
    # is all git shows.
    p = subprocess.run(["cmake", "-S", repo, "-B", os.path.join(repo, "build"), "-G", "Ninja"],
                       capture_output=True, text=True)
    check(p.returncode == 0, f"template: CMake configures it ({p.stderr.strip()[-300:]})")
    subprocess.run([grade, "--submission", "exercises", "--exercise", "02", "--mode", "cpu",
                    "--out", os.path.join(repo, "build", "grade")], cwd=repo, capture_output=True)
    changed = git(repo, "status", "--porcelain").split()
    check(changed and all(c.startswith("exercises/") or c == "M" for c in changed),
          f"template: after grading only the edited exercises show in git status ({changed})")
    sel = os.path.join(tmp, "dist-sel")
    package(build, "classroom", sel, "--exercises", "04")
    wf = open(os.path.join(sel, "github-classroom", ".github", "workflows", "classroom.yml")).read()
    check(wf.count("autograding-command-grader") == 1 and "--exercise 04 " in wf,
          "EXERCISES=04: one graded step, exercise 04's")


CANARY = "working-tree-canary-7f3e"


def working_tree(build, tmp):
    """Solves exercise 04 in a copy's exercises/ (with a canary line): no bundle and neither site
    edition may carry it; the packaging names the difference."""
    copy = os.path.join(tmp, "course")
    files = subprocess.run(["git", "-C", ROOT, "ls-files", "-z"], capture_output=True,
                           check=True).stdout.decode().split("\0")
    for f in filter(None, files):
        if os.path.isfile(os.path.join(ROOT, f)):
            os.makedirs(os.path.dirname(os.path.join(copy, f)), exist_ok=True)
            shutil.copy2(os.path.join(ROOT, f), os.path.join(copy, f))
    d4, f4, p4 = solution("04")
    solved = open(p4).read() + f"// {CANARY}\n"
    open(os.path.join(copy, "exercises", d4, f4), "w").write(solved)
    env_root = dict(os.environ, COURSE_ROOT=copy)

    def leaks(path):
        found = []
        for dirpath, _, filenames in os.walk(path):
            for f in filenames:
                p = os.path.join(dirpath, f)
                data = open(p, "rb").read()
                if f.endswith(".zip"):
                    with zipfile.ZipFile(p) as z:
                        found += [f"{p}:{n}" for n in z.namelist() if CANARY.encode() in z.read(n)]
                elif CANARY.encode() in data:
                    found.append(p)
        return found

    for platform in ("gradescope", "prairielearn", "classroom"):
        dist = os.path.join(tmp, "dist-" + platform)
        p = subprocess.run([sys.executable, os.path.join(copy, "platforms", "package.py"),
                            platform, "--build", build, "--out", dist], capture_output=True,
                           text=True, env=env_root)
        check(p.returncode == 0 and f"exercises/{d4}/{f4} differs" in p.stderr,
              f"{platform}: the solved exercises/ file is named ({p.stderr.strip()[:160]})")
        check(not leaks(dist), f"{platform}: the solved file is in no bundle {leaks(dist)[:3]}")
    # The site, both editions, from the copy (build-docs.sh runs BUILD's grader on COURSE_ROOT).
    site_build = os.path.join(tmp, "site-build")
    os.makedirs(site_build)
    os.symlink(os.path.join(build, "bin"), os.path.join(site_build, "bin"))
    for edition in ("student", "instructor"):
        p = subprocess.run([os.path.join(copy, "scripts", "build-docs.sh"), edition, site_build],
                           capture_output=True, text=True, env=env_root)
        out = os.path.join(site_build, "docs" if edition == "student" else "docs-instructor")
        check(p.returncode == 0 and os.path.isfile(os.path.join(out, "html", "exercises.html")),
              f"site ({edition}): built ({p.stderr.strip()[-300:]})")
        check(f"exercises/{d4}/{f4} differs" in p.stderr, f"site ({edition}): the difference is named")
        html = open(os.path.join(out, "html", "exercises.html"), errors="replace").read()
        check("TODO(ex04.1)" in html, f"site ({edition}): exercise 04's skeleton is shown")
        check(not leaks(out), f"site ({edition}): the solved file is nowhere in it {leaks(out)[:3]}")


def main():
    build, which = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp(prefix=f"platform-{which}-")
    os.chmod(tmp, 0o755)
    try:
        {"gradescope": gradescope, "prairielearn": prairielearn, "classroom": classroom,
         "working-tree": working_tree}[which](os.path.abspath(build), tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{which}: {'all checks passed' if not FAILS else str(len(FAILS)) + ' failed'}")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
