#!/usr/bin/env python3
"""Builds what an instructor uploads to a course platform (make gradescope / prairielearn / classroom).

  platforms/package.py gradescope   [--out DIR] [--build BUILD] [--exercises 04,05]
      -> DIR/gradescope/autograder.zip (autograder-04-05.zip for a selection)
  platforms/package.py prairielearn [--out DIR] [--build BUILD] [--exercises ...]
      -> DIR/prairielearn/: questions/, infoCourse.json, grader-image/ (a build context:
         `podman build -t banks-grader DIR/prairielearn/grader-image`, or docker build)
  platforms/package.py classroom    [--out DIR] [--build BUILD] [--exercises ...]
      -> DIR/github-classroom/: the template repository (git, one commit)

The course goes in without solutions/ (the graders never read them, and under uid isolation
student code could), tests/ and measurements/. The students' files are the skeletons the
generator makes from solutions/ (`grade skeletons --out`, the bytes `make skeletons` writes),
never exercises/ as the instructor's working tree holds it: where exercises/ differs, this says
so and goes on with the generated ones. The exercise table (files, points) is the registry's
(`course-registry export --json`). BUILD (default build/) holds bin/grade and
bin/course-registry; DIR defaults to BUILD/dist.
"""
import argparse
import json
import math
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import uuid
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# What grading needs: the build, the registry, banksim, the baselines (lessons/), the skeletons
# (exercises/: generated, see above), deps.sh, the platform scripts, the instructor's policy.
KEEP = ("CMakeLists.txt", "CMakePresets.json", "Makefile", "README.md", "Dockerfile",
        "bankmodel/", "banksim/", "cmake/", "gpu/", "grader/", "include/", "lessons/",
        "registry/", "scripts/deps.sh", "platforms/", "grading-policy.toml")
# Classroom steps and PrairieLearn questions time out at 10 times the registry's
# cpu_grading_seconds of their exercise (grading the solution in CPU mode from a cold cache on 2
# shared cores, measurements/platforms/2026-12-03-rehearsals.md) and at least 2 minutes (a hosted
# runner can be several times slower; a timeout only has to stop a kernel that hangs, and the
# grader's own per-run limits stop most of those first).
ZIP_DATE = (2026, 1, 1, 0, 0, 0)


def fail(msg):
    print(f"package.py: {msg}", file=sys.stderr)
    sys.exit(2)


def tool(build, name):
    path = os.path.join(build, "bin", name)
    if not os.access(path, os.X_OK):
        fail(f"{path} is missing: build it first (`cmake --build {build} --target grade "
             "course-registry`; `make gradescope` does)")
    return path


def registry(build):
    """The registry's exercise table: [{id, slug, file, points: {total, ...}, ...}]."""
    out = subprocess.run([tool(build, "course-registry"), "export", "--json"], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)["exercises"]


def select(table, wanted):
    if not wanted:
        return table
    ids = [w.strip().zfill(2) for w in wanted.replace(" ", ",").split(",") if w.strip()]
    known = {e["id"] for e in table}
    bad = [i for i in ids if i not in known]
    if bad:
        fail(f"EXERCISES={wanted}: no exercise {', '.join(bad)} (the exercises are "
             f"{', '.join(sorted(known))})")
    return [e for e in table if e["id"] in ids]


def skeletons(build, tmp):
    """{"exercises/SLUG/FILE": bytes} from the generator; its notes on exercises/ relayed."""
    out = os.path.join(tmp, "skeletons")
    p = subprocess.run([tool(build, "grade"), "skeletons", "--out", out],
                       env=dict(os.environ, COURSE_ROOT=ROOT), capture_output=True, text=True)
    for line in p.stderr.splitlines():
        print(f"package.py: {line.removeprefix('grade skeletons: ')}", file=sys.stderr)
    if p.returncode != 0:
        fail("the skeletons could not be generated from solutions/ (above)")
    files = {}
    for dirpath, _, filenames in os.walk(out):
        for f in filenames:
            path = os.path.join(dirpath, f)
            with open(path, "rb") as fh:
                files["exercises/" + os.path.relpath(path, out)] = fh.read()
    return files


# A student's repository (Classroom) has the whole course but these: the solutions, the tests
# (their student corpus holds correct variants), the benchmarks, CI and the platform tooling.
STUDENT_DROP = ("solutions/", "tests/", "bench/", "platforms/", ".ci/", ".github/")


def course_files(generated, student_repo=False):
    """{relative path: bytes or None (read from ROOT)}: the tracked course files that grading
    needs (student_repo: all but STUDENT_DROP), exercises/ replaced by the generated skeletons."""
    try:
        out = subprocess.run(["git", "-C", ROOT, "ls-files", "-z"], capture_output=True,
                             check=True).stdout.decode()
        files = [f for f in out.split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for dirpath, dirnames, filenames in os.walk(ROOT):
            dirnames[:] = [d for d in dirnames if d not in (".git", "build")]
            files += [os.path.relpath(os.path.join(dirpath, f), ROOT) for f in filenames]
    # The instructor's grading policy goes with the course whether git tracks it or not: the
    # bundle must grade with the points and thresholds the instructor set.
    if os.path.isfile(os.path.join(ROOT, "grading-policy.toml")):
        files.append("grading-policy.toml")
    keep = {f: None for f in sorted(set(files))
            if (not f.startswith(STUDENT_DROP) if student_repo else f.startswith(KEEP))
            and not f.startswith("exercises/") and os.path.isfile(os.path.join(ROOT, f))}
    keep.update(generated)
    return dict(sorted(keep.items()))


def content(rel, data):
    if data is not None:
        return data
    with open(os.path.join(ROOT, rel), "rb") as f:
        return f.read()


def executable(rel, data):
    return data is None and os.stat(os.path.join(ROOT, rel)).st_mode & stat.S_IXUSR


def write_tree(files, dest):
    for rel, data in files.items():
        path = os.path.join(dest, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(content(rel, data))
        os.chmod(path, 0o755 if executable(rel, data) else 0o644)


def assignment(chosen, table):
    """The selection a bundle grades (platforms/common/grade_upload.py reads it)."""
    return json.dumps({"exercises": [e["id"] for e in chosen],
                       "points": sum(e["points"]["total"] for e in chosen),
                       "all": len(chosen) == len(table)}, indent=2).encode() + b"\n"


def suffix(chosen, table):
    return "" if len(chosen) == len(table) else "-" + "-".join(e["id"] for e in chosen)


def gradescope(out, chosen, table, files, generated):
    d = os.path.join(out, "gradescope")
    os.makedirs(d, exist_ok=True)
    zpath = os.path.join(d, f"autograder{suffix(chosen, table)}.zip")
    entries = dict(files)
    entries["assignment.json"] = assignment(chosen, table)
    with zipfile.ZipFile(zpath + ".tmp", "w") as z:
        # Gradescope runs setup.sh and run_autograder from the zip's top level.
        top = {"setup.sh": "platforms/gradescope/setup.sh",
               "run_autograder": "platforms/gradescope/run_autograder"}
        for arc, rel in top.items():
            entries[arc] = content(rel, None)
        for arc in sorted(entries):
            info = zipfile.ZipInfo(arc, date_time=ZIP_DATE)
            data = entries[arc]
            x = arc in top or executable(arc, data)
            info.external_attr = ((0o755 if x else 0o644) | stat.S_IFREG) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, content(arc, data))
    os.replace(zpath + ".tmp", zpath)
    points = sum(e["points"]["total"] for e in chosen)
    print(f"wrote {zpath}: exercises {', '.join(e['id'] for e in chosen)}, {points} points "
          f"(set the assignment's total to {points}). Upload it as the autograder, base image "
          "Ubuntu 22.04; students upload their .cu/.cpp files, a zip of NN-slug/ folders, or "
          "exercises/")
    return zpath


def html(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def prairielearn(out, chosen, table, files, generated):
    """A PrairieLearn course: one externally graded question per exercise chosen, and the grader
    image's build context (the course, the Dockerfile at its top)."""
    d = os.path.join(out, "prairielearn")
    shutil.rmtree(d, ignore_errors=True)
    ns = uuid.UUID("6d1c8a52-3d0b-4c8e-9b7e-5a1f2b3c4d5e")
    os.makedirs(d)
    with open(os.path.join(d, "infoCourse.json"), "w") as f:
        json.dump({"uuid": str(uuid.uuid5(ns, "course")), "name": "BANKS",
                   "title": "Shared-memory bank conflicts in CUDA", "timezone": "UTC",
                   "topics": [{"name": "Bank conflicts", "color": "blue1",
                               "description": "Shared-memory banks, conflicts and their fixes"}],
                   "tags": []}, f, indent=2)
    image = os.path.join(d, "grader-image")
    write_tree(files, image)
    for e in chosen:
        q = os.path.join(d, "questions", "bankconflicts", e["slug"])
        os.makedirs(os.path.join(q, "tests"))
        skeleton = files[f"exercises/{e['slug']}/{e['file']}"].decode("utf-8")
        seconds = max(120, 10 * e["cpu_grading_seconds"])
        with open(os.path.join(q, "info.json"), "w") as f:
            json.dump({"uuid": str(uuid.uuid5(ns, e["slug"])),
                       "title": f"Exercise {e['id']}: {e['title']}",
                       "topic": "Bank conflicts", "type": "v3", "singleVariant": True,
                       "gradingMethod": "External",
                       "externalGradingOptions": {"enabled": True, "image": "banks-grader",
                                                  "entrypoint": "/grade/tests/run.sh",
                                                  "timeout": seconds}}, f, indent=2)
        with open(os.path.join(q, "question.html"), "w") as f:
            f.write(f'<pl-question-panel>\n  <p>Exercise {e["id"]} of the course '
                    f'(lesson <code>{e["lesson"]}</code>): edit <code>{e["file"]}</code>. The '
                    f'grader builds it, checks the output at several sizes, counts bank '
                    f'conflicts per line and compares its cost with the conflicting baseline '
                    f'({e["points"]["total"]} points).</p>\n</pl-question-panel>\n'
                    f'<pl-file-editor file-name="{e["file"]}" ace-mode="ace/mode/c_cpp">\n'
                    + html(skeleton)
                    + "</pl-file-editor>\n<pl-submission-panel>\n  <pl-external-grader-results>"
                    "</pl-external-grader-results>\n  <pl-file-preview></pl-file-preview>\n"
                    "</pl-submission-panel>\n")
        with open(os.path.join(q, "tests", "run.sh"), "w") as f:
            f.write("#!/usr/bin/env bash\n# PrairieLearn's external grader entry point: the "
                    "student's file is in /grade/student,\n# the result goes to "
                    "/grade/results/results.json.\n"
                    f"exec /course/platforms/prairielearn/grade.sh {e['id']}\n")
        os.chmod(os.path.join(q, "tests", "run.sh"), 0o755)
    print(f"wrote {d}: questions for exercises {', '.join(e['id'] for e in chosen)}.\n"
          f"  Build the grader image (one command, podman or docker):\n"
          f"    podman build -t banks-grader {image}\n"
          f"  then push it where your PrairieLearn server pulls images from, and copy "
          f"{os.path.join(d, 'questions')}/ into your course's questions/.")
    return d


GITIGNORE = """# What building and grading write: never commit it (make grade's build/ is hundreds of MB).
/build/
/build-*/
.cache/
__pycache__/
*.pyc
*.o
*.swp
.vscode/
.idea/
"""


def student_readme(course_readme, chosen):
    """The course README with a first section for students of this assignment."""
    rows = "\n".join(f"| {e['id']} | [{e['title']}]({e['lesson']}) | `{e['skeleton']}` | "
                     f"{e['points']['total']} |" for e in chosen)
    first = chosen[0]["id"]
    section = f"""
## Your assignment: start here

Edit the files below (each has `TODO` blocks with a hint and a line budget), then grade them
on your machine; every push grades them again on GitHub (the *Actions* tab shows each
exercise's result and points).

| exercise | lesson (read it first) | your file | points |
|---|---|---|---|
{rows}

```sh
make grade EXERCISE={first}      # build, check, count bank conflicts: a table and the reasons
make hint EXERCISE={first}       # a nudge; LEVEL=2 and LEVEL=3 give more
make grade                  # every exercise
git add exercises && git commit -m "exercise {first}" && git push
```

The first `make grade` installs what is missing (or prints the `apt-get install` line) and
builds the grader: a few minutes; after that a grade takes seconds. No NVIDIA GPU is needed.
The lessons are in `lessons/NN-slug/README.md` (GitHub shows them with their figures); `make
docs` builds the course site in `build/docs/html/index.html`. Commit only your `exercises/`
files: `build/` is ignored.
"""
    lines = course_readme.split("\n")
    # After the title line, so the course's own README follows unchanged.
    return "\n".join(lines[:1] + [section.rstrip("\n")] + lines[1:])


def classroom(out, chosen, table, files, generated):
    """A template repository for GitHub Classroom: the course without solutions, a .gitignore,
    a README section for students, and a workflow with one test per exercise chosen (its points
    when it has full marks), committed once."""
    d = os.path.join(out, "github-classroom")
    shutil.rmtree(d, ignore_errors=True)
    repo_files = course_files(generated, student_repo=True)
    repo_files["README.md"] = student_readme(content("README.md", None).decode("utf-8"),
                                             chosen).encode()
    repo_files[".gitignore"] = GITIGNORE.encode()
    write_tree(repo_files, d)
    steps, env, runners = [], [], []
    for e in chosen:
        sid = f"ex{e['id']}"
        runners.append(sid)
        minutes = max(2, math.ceil(10 * e["cpu_grading_seconds"] / 60))
        name = f"{e['id']} {e['slug'][3:]}"
        # sudo: as root the grader isolates student code with bubblewrap, or with its own uid
        # where the runner forbids user namespaces (Ubuntu 24.04's AppArmor rule).
        steps.append(f"""      - name: {name}
        id: {sid}
        uses: classroom-resources/autograding-command-grader@v1
        with:
          test-name: {name}
          setup-command: ""
          command: sudo build/bin/grade --submission exercises --exercise {e['id']} --mode cpu --isolation auto --require-full --out /tmp/grade-{e['id']}
          timeout: {minutes}
          max-score: {e['points']['total']}
""")
        env.append(f'          {sid.upper()}_RESULTS: "${{{{steps.{sid}.outputs.result}}}}"')
    wf = f"""# GitHub Classroom: each exercise is one test worth its points, given when `make grade` gives
# it full marks (CPU mode: hosted runners have no GPU). Generated by platforms/package.py.
# Timeouts: a step's is 10 times the measured grading time of its exercise (at least 2 minutes),
# the job's covers the install and build (setup.sh's, the same work, took 2 to 3 minutes in a
# fresh root: measurements/platforms/*.md) with room to spare.
name: Autograding Tests
on: [push, workflow_dispatch, repository_dispatch]
permissions:
  checks: write
  actions: read
  contents: read
jobs:
  run-autograding-tests:
    runs-on: ubuntu-24.04
    timeout-minutes: 30
    if: github.actor != 'github-classroom[bot]'
    steps:
      - name: Checkout code
        uses: actions/checkout@v4
      - name: Install and build the grader
        timeout-minutes: 15
        run: |
          sudo apt-get update -qq
          sudo scripts/deps.sh grade
          cmake -S . -B build -G Ninja -DCOURSE_BUILD_TESTS=OFF -DCOURSE_BUILD_BENCH=OFF -DCOURSE_ENABLE_CUDA=OFF
          cmake --build build --target grade grade_worker
          chmod -R o+rX . && chmod o+x "$HOME" "$(dirname "$PWD")"
{''.join(steps)}      - name: Autograding Reporter
        uses: classroom-resources/autograding-grading-reporter@v1
        env:
{chr(10).join(env)}
        with:
          runners: {','.join(runners)}
"""
    os.makedirs(os.path.join(d, ".github", "workflows"))
    with open(os.path.join(d, ".github", "workflows", "classroom.yml"), "w") as f:
        f.write(wf)
    # A repository with one commit, as GitHub Classroom expects a template to be.
    git = ["git", "-C", d, "-c", "user.name=Course template", "-c",
           "user.email=course-template@localhost", "-c", "commit.gpgsign=false"]
    env_git = dict(os.environ, GIT_AUTHOR_DATE="2026-01-01T00:00:00Z",
                   GIT_COMMITTER_DATE="2026-01-01T00:00:00Z")
    for cmd in (["init", "-q", "-b", "main"], ["add", "-A"],
                ["commit", "-q", "-m", "The course's template for students"]):
        subprocess.run(git + cmd, check=True, env=env_git)
    points = sum(e["points"]["total"] for e in chosen)
    print(f"wrote {d}: a git repository (one commit) for exercises "
          f"{', '.join(e['id'] for e in chosen)}, {points} points. Push it to GitHub as the "
          "assignment's template repository:\n"
          f"  git -C {d} remote add origin git@github.com:ORG/REPO.git && "
          f"git -C {d} push -u origin main")
    return d


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("platform", choices=["gradescope", "prairielearn", "classroom"])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--out", default=None, help="default BUILD/dist")
    ap.add_argument("--exercises", default="", help="e.g. 04 or 02,04 (default: all)")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    table = registry(build)
    chosen = select(table, a.exercises)
    with tempfile.TemporaryDirectory(prefix="package-") as tmp:
        generated = skeletons(build, tmp)
        files = course_files(generated)
        {"gradescope": gradescope, "prairielearn": prairielearn,
         "classroom": classroom}[a.platform](os.path.abspath(a.out or os.path.join(build, "dist")),
                                             chosen, table, files, generated)
    return 0


if __name__ == "__main__":
    sys.exit(main())
