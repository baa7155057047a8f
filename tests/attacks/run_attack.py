#!/usr/bin/env python3
"""Grades one hostile submission of tests/attacks/attacks.json in the sandbox and checks
(1) the verdict the attack must get and (2) that nothing outside the sandbox changed: a
classmate's folder, a canary file beside the submission, the repository's solutions/, and the
host's /tmp (no /tmp/pwned-NAME), and that no process of the attack is left.
  tests/attacks/run_attack.py BUILD_DIR NAME [--mode gpu]
  tests/attacks/run_attack.py BUILD_DIR all --mode gpu     (every attack; a summary table last)
  tests/attacks/run_attack.py BUILD_DIR all --isolation uid  (the same walls without namespaces)
In GPU mode an attack's "gpu_expect" (when present) replaces "expect".
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

ISOLATION = "bwrap"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SOLUTION = {"04": os.path.join("04-padding-transpose", "transpose.cu"),
            "01": os.path.join("01-banks-and-words", "bank_math.cpp")}


def digest(folder):
    h = hashlib.sha256()
    for dirpath, _, files in sorted(os.walk(folder)):
        for f in sorted(files):
            p = os.path.join(dirpath, f)
            h.update(p.encode())
            with open(p, "rb") as fh:
                h.update(fh.read())
    return h.hexdigest()


def build_submission(a, student):
    rel = SOLUTION[a["exercise"]]
    dst = os.path.join(student, rel)
    os.makedirs(os.path.dirname(dst))
    src = os.path.join(ROOT, "solutions", rel)
    if a.get("symlink_to_solution"):
        os.symlink(src, dst)
        return
    if a.get("symlink_loop"):
        os.symlink(dst, dst)
        return
    if a.get("directory"):
        os.makedirs(dst)
        return
    text = open(src, encoding="utf-8").read()
    if "replace_all" in a:
        text = a["replace_all"].replace("{ROOT}", ROOT)
    for old, new in a.get("replace", []):
        if old not in text:
            sys.exit(f"attack {a['name']}: '{old}' not found in the solution")
        text = text.replace(old, new, 1)
    text = a.get("prepend", "").replace("{ROOT}", ROOT) + text + a.get("append", "")
    data = text.encode()
    if "append_bytes_hex" in a:
        data += bytes.fromhex(a["append_bytes_hex"].replace(" ", ""))
    if "pad_bytes" in a:
        data += b"// " + b"x" * a["pad_bytes"] + b"\n"
    open(dst, "wb").write(data)


def main():
    build, name = sys.argv[1], sys.argv[2]
    mode = sys.argv[sys.argv.index("--mode") + 1] if "--mode" in sys.argv else "cpu"
    global ISOLATION
    if "--isolation" in sys.argv:
        ISOLATION = sys.argv[sys.argv.index("--isolation") + 1]
    attacks = {a["name"]: a for a in json.load(open(os.path.join(ROOT, "tests/attacks/attacks.json")))["attacks"]}
    sol = os.path.join(ROOT, "solutions")
    mode_bits = os.stat(sol).st_mode
    if ISOLATION == "uid":  # the grader refuses uid isolation while others may read solutions/
        os.chmod(sol, mode_bits & ~0o007)
    try:
        return run_selected(build, name, mode, attacks)
    finally:
        os.chmod(sol, mode_bits)


def run_selected(build, name, mode, attacks):
    if "," in name:
        failed = [n for n in name.split(",") if run_one(build, attacks[n], mode) != 0]
        return 1 if failed else 0
    if name == "all":
        failed = [n for n in attacks if run_one(build, attacks[n], mode) != 0]
        print(f"attacks in {mode} mode ({ISOLATION} isolation): {len(attacks) - len(failed)}/{len(attacks)} as expected"
              + (f"; unexpected: {', '.join(failed)}" if failed else ""))
        return 1 if failed else 0
    return run_one(build, attacks[name], mode)


def run_one(build, a, mode):
    name = a["name"]
    marker = f"/tmp/pwned-{name}"
    if os.path.exists(marker):
        os.remove(marker)
    work = tempfile.mkdtemp(prefix=f"attack-{name}-")
    os.chmod(work, 0o755)  # the sandbox runs as another uid: it must be able to traverse
    try:
        student = os.path.join(work, "student")
        classmate = os.path.join(work, "classmate")
        shutil.copytree(os.path.join(ROOT, "solutions"), classmate)
        open(os.path.join(work, "canary.txt"), "w").write("untouched\n")
        build_submission(a, student)
        before = (digest(classmate), open(os.path.join(work, "canary.txt")).read(),
                  digest(os.path.join(ROOT, "solutions")))
        out = os.path.join(work, "out")
        cmd = [os.path.join(build, "bin", "grade"), "--mode", mode, "--seed", "7", "--submission",
               student, "--exercise", a["exercise"], "--out", out, "--isolation", ISOLATION]
        r = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=300)
        problems = []
        if r.returncode != 0:
            problems.append(f"grade exited {r.returncode}: {r.stderr[-2000:]}")
        res = json.load(open(os.path.join(out, "results.json")))
        score = res["score"]
        tests = res["tests"]
        builds = next(t for t in tests if t["name"].endswith(": builds"))
        # Gradescope's per-test status: a gate worth 0 points (the default builds) still says
        # whether it passed.
        passed = builds["status"] == "passed"
        e = a.get("gpu_expect", a["expect"]) if mode == "gpu" else a["expect"]
        if passed != e["builds"]:
            problems.append(f"builds gate {'passed' if passed else 'failed'}: {builds['output']}")
        if "reason" in e:
            import re
            failing = " | ".join(t["output"] for t in tests if t["status"] != "passed")
            if not re.search(e["reason"], failing):
                problems.append(f"no failing gate says /{e['reason']}/; got: {failing[:600]}")
        if "max_score" in e and score > e["max_score"]:
            problems.append(f"score {score} > {e['max_score']}")
        if "min_score" in e and score < e["min_score"]:
            problems.append(f"score {score} < {e['min_score']}: {[t['output'] for t in tests if t['status'] != 'passed']}")
        after = (digest(classmate), open(os.path.join(work, "canary.txt")).read(),
                 digest(os.path.join(ROOT, "solutions")))
        if after != before:
            problems.append("something outside the sandbox changed (classmate, canary or solutions/)")
        if os.path.exists(marker):
            problems.append(f"{marker} exists on the host")
        left = subprocess.run(["pgrep", "-f", f"attack-{name}-"], capture_output=True, text=True).stdout.split()
        left = [p for p in left if int(p) != os.getpid()]
        if left:
            problems.append(f"processes left: {left}")
        print(f"attack {name} ({mode}): score {score}; builds: {builds['output'][:300]}")
        for p in problems:
            print("FAIL:", p)
        return 1 if problems else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
