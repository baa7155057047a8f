#!/usr/bin/env python3
"""The registry reaches the scripts: `course-registry export --json` holds every fact they need,
and no script keeps a copy of one.

  tests/check_registry_export.py COURSE_REGISTRY [ROOT]

Checks (each failure names the file and line, or the exercise, and what to do):
  1. the export: every kernel exercise has its files, kernels, sizes with launch geometry,
     buffers and arguments, its GPU timing size, thresholds and points; the demos and the nvcc
     flag set are there, the flags for the default architecture;
  2. no tracked script or Python file outside measurements/ (records of what ran then) writes an
     nvcc architecture or -lineinfo flag: they read `course-registry nvcc-flags` or the export's
     "nvcc" (C++ takes course::nvcc_flags);
  3. no script under scripts/, platforms/ or gpu/ names an exercise's slug or kernel (a table of
     exercises): they read the export, so adding an exercise touches no script.
"""
import json
import os
import re
import subprocess
import sys

SCRIPT = re.compile(r"(\.py|\.sh)$|(^|/)(Makefile|run)$")
NVCC_FLAG = re.compile(r"-arch=sm_\d|-arch=sm_\"|-lineinfo|arch=compute_\d")
# A script may name an exercise where it is the data a check is about, each with its reason.
ALLOWED_NAMES = {
    # GPU-mode policy check: grades chosen corpus students in chosen exercises' folders.
    "scripts/gpu-policy-check.sh",
    # The SLURM rehearsal grades a class of two known exercises and compares with a local run.
    "platforms/slurm/single-node-test.sh",
    # The Gradescope rehearsal's expected scores for a one-exercise zip of exercise 04.
    "platforms/gradescope/rehearse.sh",
    # The lessons' code blocks name the kernel they show (the snippet markers' example).
    "scripts/lesson-snippets.py",
    # Its docstring's example of a path-like token.
    "scripts/check-references.py",
}


def fail(problems):
    for p in problems:
        print(p)
    print(f"check_registry_export: {len(problems)} problem(s)")
    return 1


def check_export(reg):
    problems = []
    default_arch = reg["nvcc"]["default_arch"]
    if f"-arch=sm_{default_arch}" not in reg["nvcc"]["flags"]:
        problems.append(f"export: nvcc.flags {reg['nvcc']['flags']} lack -arch=sm_{default_arch}")
    if not any("{arch}" in f for f in reg["nvcc"]["flags_template"]):
        problems.append("export: nvcc.flags_template has no {arch} placeholder")
    if not reg.get("demos"):
        problems.append("export: no demos")
    for key in ("default_points", "default_min_shared_fraction"):
        if key not in reg.get("policy", {}):
            problems.append(f"export: policy.{key} missing")
    for e in reg["exercises"]:
        where = f"export: exercise {e.get('id')}"
        for key in ("id", "slug", "file", "kernel", "skeleton", "solution", "lesson", "points",
                    "thresholds", "cpu_grading_seconds", "hints"):
            if key not in e:
                problems.append(f"{where}: '{key}' missing")
        if e.get("kind") != "kernel":
            continue
        runs = e["sizes"] + [e["gpu_timing_size"], e["bench_size"]]
        for s in runs:
            for key in ("grid", "block", "smem", "buffers", "args"):
                if key not in s:
                    problems.append(f"{where}: size {s.get('label')!r} has no '{key}'")
        for k in ("file", "kernel"):
            if not e["baseline"].get(k):
                problems.append(f"{where}: baseline.{k} empty")
        if not e["thresholds"].get("gpu"):
            problems.append(f"{where}: no GPU gate rows")
    return problems


def check_scripts(root, reg):
    problems = []
    files = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True,
                           check=True).stdout.splitlines()
    names = set()
    for e in reg["exercises"]:
        names.add(e["slug"])
        if e.get("kind") == "kernel":
            names.add(e["kernel"])
            names.add(e["baseline"]["kernel"])
    name_re = re.compile(r"(?<![\w-])(" + "|".join(re.escape(n) for n in sorted(names)) + r")(?![\w-])")
    me = os.path.relpath(os.path.abspath(__file__), root)
    for f in files:
        if not SCRIPT.search(f) or f.startswith("measurements/") or f == me:
            continue
        path = os.path.join(root, f)
        if not os.path.isfile(path):
            continue
        text = open(path, encoding="utf-8", errors="replace").read()
        tables = f.startswith(("scripts/", "platforms/", "gpu/")) and f not in ALLOWED_NAMES
        for n, line in enumerate(text.splitlines(), 1):
            m = NVCC_FLAG.search(line)
            if m:
                problems.append(f"{f}:{n}: an nvcc flag written here ({m.group(0)}): read "
                                "`course-registry nvcc-flags [ARCH]` or the export's \"nvcc\"")
            m = name_re.search(line) if tables else None
            if m:
                problems.append(f"{f}:{n}: names exercise fact '{m.group(1)}': read it from "
                                "`course-registry export --json` (or add the file to ALLOWED_NAMES "
                                "with the reason it must)")
    return problems


def main():
    registry = sys.argv[1]
    root = sys.argv[2] if len(sys.argv) > 2 else os.getcwd()
    reg = json.loads(subprocess.run([registry, "export", "--json"], capture_output=True,
                                    text=True, check=True).stdout)
    problems = check_export(reg) + check_scripts(root, reg)
    if problems:
        return fail(problems)
    print(f"check_registry_export: the export has what scripts need ({len(reg['exercises'])} "
          f"exercises, {len(reg['demos'])} demos); no script copies a registry fact or nvcc flag")
    return 0


if __name__ == "__main__":
    sys.exit(main())
