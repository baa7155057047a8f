#!/usr/bin/env python3
"""Builds what an instructor uploads to a course platform (make gradescope, make prairielearn).

  platforms/package.py gradescope   [--out DIR]   -> DIR/gradescope/autograder.zip
  platforms/package.py prairielearn [--out DIR]   -> DIR/prairielearn/ (a course folder)
  platforms/package.py classroom    [--out DIR]   -> DIR/github-classroom/ (a template repository)

The course goes in without solutions/ (the graders never read them, and under uid isolation
student code could), tests/ and measurements/; DIR defaults to build/dist.
"""
import argparse
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import uuid
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# What grading needs: the build, the registry, banksim, the baselines (lessons/), the skeletons
# (exercises/: the upload mapping and PrairieLearn's editors), deps.sh, the platform scripts.
KEEP = ("CMakeLists.txt", "CMakePresets.json", "Makefile", "README.md", "bankmodel/", "banksim/",
        "cmake/", "exercises/", "gpu/", "grader/", "include/", "lessons/", "registry/",
        "scripts/deps.sh", "platforms/", "grading-policy.toml")


def course_files():
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
    return sorted({f for f in files if f.startswith(KEEP) and os.path.isfile(os.path.join(ROOT, f))})


def add(z, arc, path):
    info = zipfile.ZipInfo(arc, date_time=(2026, 1, 1, 0, 0, 0))
    mode = os.stat(path).st_mode
    info.external_attr = ((0o755 if mode & stat.S_IXUSR else 0o644) | stat.S_IFREG) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    with open(path, "rb") as f:
        z.writestr(info, f.read())


def gradescope(out):
    d = os.path.join(out, "gradescope")
    os.makedirs(d, exist_ok=True)
    zpath = os.path.join(d, "autograder.zip")
    with zipfile.ZipFile(zpath + ".tmp", "w") as z:
        # Gradescope runs setup.sh and run_autograder from the zip's top level.
        add(z, "setup.sh", os.path.join(ROOT, "platforms/gradescope/setup.sh"))
        add(z, "run_autograder", os.path.join(ROOT, "platforms/gradescope/run_autograder"))
        for f in course_files():
            add(z, f, os.path.join(ROOT, f))
    os.replace(zpath + ".tmp", zpath)
    print(f"wrote {zpath}: upload it as the assignment's autograder (Ubuntu 22.04 base image);"
          " students upload their .cu/.cpp files, a zip of NN-slug/ folders, or exercises/")
    return zpath


def prairielearn(out):
    """A PrairieLearn course: one externally graded question per exercise, and the grader image."""
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
    image_dir = os.path.join(d, "grader-image")
    os.makedirs(image_dir)
    shutil.copy(os.path.join(ROOT, "Dockerfile"), image_dir)
    shutil.copy(os.path.join(ROOT, "platforms/prairielearn/grade.sh"), image_dir)
    table = []
    for slug in sorted(os.listdir(os.path.join(ROOT, "exercises"))):
        m = re.match(r"^(\d+)-", slug)
        src = os.path.join(ROOT, "exercises", slug)
        if not m or not os.path.isdir(src):
            continue
        files = [x for x in sorted(os.listdir(src)) if x.endswith((".cu", ".cpp"))]
        if len(files) != 1:
            continue
        table.append((m.group(1), slug, files[0]))
    for ex_id, slug, file in table:
        q = os.path.join(d, "questions", "bankconflicts", slug)
        os.makedirs(os.path.join(q, "tests"))
        skeleton = open(os.path.join(ROOT, "exercises", slug, file), encoding="utf-8").read()
        title = slug[3:].replace("-", " ")
        with open(os.path.join(q, "info.json"), "w") as f:
            json.dump({"uuid": str(uuid.uuid5(ns, slug)), "title": f"Exercise {ex_id}: {title}",
                       "topic": "Bank conflicts", "type": "v3", "singleVariant": True,
                       "gradingMethod": "External",
                       "externalGradingOptions": {"enabled": True, "image": "banks-grader",
                                                  "entrypoint": "/grade/tests/run.sh",
                                                  "timeout": 600}}, f, indent=2)
        with open(os.path.join(q, "question.html"), "w") as f:
            f.write(f'<pl-question-panel>\n  <p>Exercise {ex_id} of the course: edit '
                    f'<code>{file}</code> (lesson and hints in the course site; '
                    f'<code>make hint EXERCISE={ex_id}</code>). The grader builds it, checks the '
                    f'output at several sizes, counts bank conflicts per line and compares its '
                    f'cost with the conflicting baseline.</p>\n</pl-question-panel>\n'
                    f'<pl-file-editor file-name="{file}" ace-mode="ace/mode/c_cpp">\n'
                    + skeleton.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
                    + "</pl-file-editor>\n<pl-submission-panel>\n  <pl-external-grader-results>"
                    "</pl-external-grader-results>\n  <pl-file-preview></pl-file-preview>\n"
                    "</pl-submission-panel>\n")
        with open(os.path.join(q, "tests", "run.sh"), "w") as f:
            f.write("#!/usr/bin/env bash\n# PrairieLearn's external grader entry point: the "
                    "student's file is in /grade/student,\n# the result goes to "
                    "/grade/results/results.json.\n"
                    f"exec /course/platforms/prairielearn/grade.sh {ex_id}\n")
        os.chmod(os.path.join(q, "tests", "run.sh"), 0o755)
    print(f"wrote {d}: copy questions/ into your PrairieLearn course; build the grader image from "
          f"{image_dir} (docker build -t banks-grader -f Dockerfile <course checkout>)")
    return d


def classroom(out):
    """A template repository for GitHub Classroom: the course without solutions, and a workflow
    that grades each exercise as its own test (all of its points when it has full marks)."""
    d = os.path.join(out, "github-classroom")
    shutil.rmtree(d, ignore_errors=True)
    for f in course_files():
        if f.startswith("platforms/"):
            continue
        os.makedirs(os.path.join(d, os.path.dirname(f)), exist_ok=True)
        shutil.copy2(os.path.join(ROOT, f), os.path.join(d, f))
    table = []
    for slug in sorted(os.listdir(os.path.join(ROOT, "exercises"))):
        m = re.match(r"^(\d+)-", slug)
        if m and os.path.isdir(os.path.join(ROOT, "exercises", slug)):
            table.append((m.group(1), slug))
    steps, env, runners = [], [], []
    for ex_id, slug in table:
        sid = f"ex{ex_id}"
        runners.append(sid)
        # sudo: as root the grader isolates student code with bubblewrap, or with its own uid
        # where the runner forbids user namespaces (Ubuntu 24.04's AppArmor rule).
        steps.append(f"""      - name: {ex_id} {slug[3:]}
        id: {sid}
        uses: classroom-resources/autograding-command-grader@v1
        with:
          test-name: {ex_id} {slug[3:]}
          setup-command: ""
          command: sudo build/bin/grade --submission exercises --exercise {ex_id} --mode cpu --isolation auto --require-full --out /tmp/grade-{ex_id}
          timeout: 15
          max-score: 100
""")
        env.append(f'          {sid.upper()}_RESULTS: "${{{{steps.{sid}.outputs.result}}}}"')
    wf = f"""# GitHub Classroom: each exercise is one test worth 100 points, given when `make grade` gives
# it full marks (CPU mode: hosted runners have no GPU). Generated by platforms/package.py.
name: Autograding Tests
on: [push, workflow_dispatch, repository_dispatch]
permissions:
  checks: write
  actions: read
  contents: read
jobs:
  run-autograding-tests:
    runs-on: ubuntu-24.04
    if: github.actor != 'github-classroom[bot]'
    steps:
      - name: Checkout code
        uses: actions/checkout@v4
      - name: Install and build the grader
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
    print(f"wrote {d}: push it as the assignment's template repository")
    return d


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("platform", choices=["gradescope", "prairielearn", "classroom"])
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "dist"))
    a = ap.parse_args()
    {"gradescope": gradescope, "prairielearn": prairielearn, "classroom": classroom}[a.platform](a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
