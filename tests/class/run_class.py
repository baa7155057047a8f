#!/usr/bin/env python3
"""A class no student can stop: grades a class of honest, broken and hostile folders (odd names,
a link loop, deep nesting, a huge file, a folder that is a link, a classmate-writer, attacks)
with JOBS=2, then kills the grader with SIGKILL mid-run and resumes. Checks: rc 0, a gradebook
row for every folder, honest students at full marks, the gradebook parses as RFC 4180 CSV with
the odd names intact, no process left, and resume after kill -9 gives the same gradebook.
  tests/class/run_class.py BUILD_DIR [EXERCISE]      (EXERCISE default 04; 'all' for every one)
"""
import csv
import io
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def make_class(base, n_honest):
    k = os.path.join(base, "class")
    os.makedirs(k)
    sol = os.path.join(ROOT, "solutions")
    names = [f"honest{i:02d}" for i in range(n_honest)]
    odd = ["evil,800,800", "o'brien; touch pwned", "=HYPERLINK(\"x\")", "quote\"name", "tab\tname"]
    for name in names + odd:
        shutil.copytree(sol, os.path.join(k, name))
    bad = os.fsencode(k) + b"/bytes-\xff\xfe"
    shutil.copytree(sol, bad.decode("utf-8", "surrogateescape"))
    shutil.copytree(os.path.join(ROOT, "exercises"), os.path.join(k, "skeleton"))
    loop = os.path.join(k, "link-loop")
    shutil.copytree(sol, loop)
    os.symlink("..", os.path.join(loop, "up"))
    os.symlink("self", os.path.join(loop, "self"))
    deep = os.path.join(k, "deep")
    shutil.copytree(sol, deep)
    p = deep
    for _ in range(120):
        p = os.path.join(p, "d")
    os.makedirs(p)
    huge = os.path.join(k, "huge")
    shutil.copytree(sol, huge)
    with open(os.path.join(huge, "blob.bin"), "wb") as f:
        f.truncate(3 << 30)  # sparse 3 GiB
    os.symlink(sol, os.path.join(k, "link-to-solutions"))
    writer = os.path.join(k, "writer")
    shutil.copytree(sol, writer)
    t = os.path.join(writer, "04-padding-transpose", "transpose.cu")
    src = open(t).read().replace("__syncthreads();", "__syncthreads();\n  if (threadIdx.x == 0) { std::FILE* f = std::fopen(\"../../honest00/04-padding-transpose/transpose.cu\", \"w\"); if (f) std::fclose(f); }", 1)
    open(t, "w").write("#include <cstdio>\n" + src)
    for d, _, files in os.walk(k):
        os.chmod(d, 0o755)
    return k


def grade(build, klass, out, exercise, jobs=2, kill_after=None):
    cmd = [os.path.join(build, "bin", "grade"), "--mode", "cpu", "--submissions", klass, "--out", out,
           "--jobs", str(jobs)]
    if exercise != "all":
        cmd += ["--exercise", exercise]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    if kill_after is not None:
        time.sleep(kill_after)
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        return -9, ""
    out_text, err = p.communicate(timeout=1800)
    return p.returncode, err.decode(errors="replace")


def rows(out):
    with open(os.path.join(out, "gradebook.csv"), newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def main():
    build = sys.argv[1]
    exercise = sys.argv[2] if len(sys.argv) > 2 else "04"
    n_honest = int(os.environ.get("HONEST", "3"))
    base = tempfile.mkdtemp(prefix="class-test-")
    os.chmod(base, 0o755)
    problems = []
    try:
        klass = make_class(base, n_honest)
        folders = sorted(os.listdir(klass))
        out = os.path.join(base, "out")
        t0 = time.time()
        rc, err = grade(build, klass, out, exercise)
        elapsed = time.time() - t0
        if rc != 0:
            problems.append(f"grade exited {rc}: {err[-1500:]}")
        book = rows(out)
        names = [r[0] for r in book[1:]]
        if len(names) != len(folders):
            problems.append(f"{len(names)} gradebook rows for {len(folders)} folders: {names}")
        honest = ("honest", "evil,800,800", "o'brien", "'=HYPERLINK", "quote", "tab", "bytes-",
                  "deep", "huge", "link-loop")
        for r in book[1:]:
            if r[0].startswith(honest) and r[1] != r[2]:
                problems.append(f"honest student {r[0]} got {r[1]}/{r[2]}")
            if r[0] in ("skeleton", "writer", "link-to-solutions") and r[1] == r[2]:
                problems.append(f"{r[0]} got full marks")
        for odd in ["evil,800,800", "o'brien; touch pwned", "'=HYPERLINK(\"x\")", "quote\"name"]:
            if odd not in names:
                problems.append(f"name {odd!r} not intact in the gradebook")
        if os.path.exists(os.path.join(os.getcwd(), "pwned")) or os.path.exists(os.path.join(klass, "pwned")):
            problems.append("a name ran as a command")
        honest0 = open(os.path.join(klass, "honest00", "04-padding-transpose", "transpose.cu")).read()
        if "transpose_tiled" not in honest0:
            problems.append("a classmate's file was overwritten")
        left = subprocess.run(["pgrep", "-f", base], capture_output=True, text=True).stdout.split()
        if left:
            problems.append(f"processes left: {left}")
        # kill -9 in the middle of a fresh run, then resume: the same gradebook.
        out2 = os.path.join(base, "out2")
        grade(build, klass, out2, exercise, kill_after=max(2.0, elapsed / 2))
        # The sandboxes die with the grader (parent-death signals down the chain): give a loaded
        # machine up to 10 s.
        for _ in range(20):
            time.sleep(0.5)
            worker = os.path.join(build, "bin", "grade_worker")
            running = subprocess.run(["pgrep", "-f", "^" + worker + " " + out2],
                                     capture_output=True, text=True).stdout.split()
            if not running:
                break
        if running:
            problems.append(f"workers still running after kill -9: {running}")
        rc2, err2 = grade(build, klass, out2, exercise)
        left = subprocess.run(["pgrep", "-f", out2], capture_output=True, text=True).stdout.split()
        if left:
            problems.append(f"processes left after resuming: {left}")
        if rc2 != 0:
            problems.append(f"resume exited {rc2}: {err2[-800:]}")
        if rows(out2) != book:
            problems.append("the gradebook after kill -9 and resume differs from a clean run")
        # A hand-edited results.json is not kept on resume.
        rj = os.path.join(out2, "honest00", "results.json")
        text = open(rj).read().replace('"score": 10', '"score": 11', 1)
        open(rj, "w").write(text)
        grade(build, klass, out2, exercise)
        if rows(out2) != book:
            problems.append("a hand-edited results.json was kept on resume")
        print(f"class of {len(folders)} folders graded in {elapsed:.1f} s (JOBS=2); gradebook:")
        for r in book:
            print("  " + " | ".join(r))
    finally:
        subprocess.run(["chmod", "-R", "u+w", base])
        shutil.rmtree(base, ignore_errors=True)
    for p in problems:
        print("FAIL:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
