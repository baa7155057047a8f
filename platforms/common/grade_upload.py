#!/usr/bin/env python3
"""Grades what a student uploaded to a course platform, and always writes the platform's result.

  grade_upload.py --platform gradescope|prairielearn --upload DIR --results FILE
                  [--course DIR] [--grade PATH] [--mode cpu|gpu] [--timeout SECONDS]

The upload may be loose files (each exercise's file by its name), zips of NN-slug/ folders, a whole
copy of exercises/ or of the repository, or any mix: each exercise's file is taken from the
upload by its name, preferring one inside its NN-slug/ folder. Zips are read member by member
(regular files only, no absolute or .. paths, size caps); symbolic links in the upload are
ignored. The mapping is reported at the top of the feedback, so a student sees what was graded.

The exercises are the registry's (`course-registry export --json`, beside the grader), only
those of COURSE/assignment.json when the bundle was made for a selection (`make gradescope
EXERCISES=04`): the score is then out of their points, and the results name only them.

The grader runs in CPU mode (the platforms have no GPU) with --isolation auto: bubblewrap when
the container allows user namespaces, uid isolation otherwise (the grader is root there). Its
results are rewritten only by this script, as root, after the student code has finished; if
the grader fails or times out, a result with score 0 and the reason is written all the same.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile

MAX_FILE = 1 << 20  # the grader refuses larger source files too
MAX_TOTAL = 16 << 20
MAX_MEMBERS = 500
MAX_WALK = 2000


def exercise_table(course, grade):
    """[(id, slug, file)] from the registry (`course-registry export --json`, built beside the
    grader), restricted to the bundle's selection (COURSE/assignment.json, written by
    platforms/package.py for `make gradescope EXERCISES=...`) when there is one."""
    registry = os.path.join(os.path.dirname(grade), "course-registry")
    out = subprocess.run([registry, "export", "--json"], capture_output=True, text=True,
                         check=True, timeout=60).stdout
    table = [(e["id"], e["slug"], e["file"]) for e in json.loads(out)["exercises"]]
    selection = os.path.join(course, "assignment.json")
    if os.path.isfile(selection):
        with open(selection, encoding="utf-8") as f:
            chosen = set(json.load(f)["exercises"])
        table = [t for t in table if t[0] in chosen]
    return table


def collect(upload, notes):
    """{relative path: bytes} of the upload's regular files and of its zips' members."""
    found, total, seen = {}, 0, 0
    for dirpath, dirnames, filenames in os.walk(upload, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not os.path.islink(os.path.join(dirpath, d)))
        for name in sorted(filenames):
            seen += 1
            if seen > MAX_WALK:
                notes.append(f"more than {MAX_WALK} files uploaded: the rest was not looked at")
                return found
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, upload)
            if os.path.islink(path) or not os.path.isfile(path):
                notes.append(f"ignored `{rel}`: not a regular file")
                continue
            size = os.path.getsize(path)
            if name.lower().endswith(".zip"):
                total += read_zip(path, rel, found, notes, MAX_TOTAL - total)
                continue
            if size > MAX_FILE or total + size > MAX_TOTAL:
                notes.append(f"ignored `{rel}`: {size} bytes (at most {MAX_FILE} per file)")
                continue
            with open(path, "rb") as f:
                found[rel] = f.read(MAX_FILE + 1)
            total += size
    return found


def read_zip(path, rel, found, notes, budget):
    used = 0
    try:
        with zipfile.ZipFile(path) as z:
            members = z.infolist()
            if len(members) > MAX_MEMBERS:
                notes.append(f"`{rel}` has {len(members)} entries: only the first {MAX_MEMBERS} read")
            for info in members[:MAX_MEMBERS]:
                name = info.filename
                parts = [p for p in name.replace("\\", "/").split("/") if p not in ("", ".")]
                if info.is_dir() or not parts:
                    continue
                if name.startswith(("/", "\\")) or ".." in parts or ":" in parts[0]:
                    notes.append(f"ignored `{name}` in `{rel}`: a path outside the zip")
                    continue
                mode = (info.external_attr >> 16) & 0o170000
                if mode not in (0, 0o100000):
                    notes.append(f"ignored `{name}` in `{rel}`: not a regular file")
                    continue
                if info.file_size > MAX_FILE or used + info.file_size > budget:
                    notes.append(f"ignored `{name}` in `{rel}`: {info.file_size} bytes")
                    continue
                with z.open(info) as f:
                    data = f.read(MAX_FILE + 1)  # the header's size is not trusted
                if len(data) > MAX_FILE:
                    notes.append(f"ignored `{name}` in `{rel}`: larger than {MAX_FILE} bytes")
                    continue
                used += len(data)
                found[rel + "/" + "/".join(parts)] = data
    except (zipfile.BadZipFile, OSError, RuntimeError, NotImplementedError, EOFError) as e:
        notes.append(f"`{rel}` is not a zip this grader can read ({e})")
    return used


def place(found, table, dest, notes):
    """Writes each exercise's file under dest/NN-slug/; returns the mapping lines."""
    lines = []
    for ex_id, slug, file in table:
        cands = [p for p in found if os.path.basename(p) == file]
        in_slug = [p for p in cands if slug in p.split("/")[:-1]]
        pick = None
        if in_slug:
            pick = min(in_slug, key=lambda p: (p.count("/"), p))
            if len(in_slug) > 1:
                notes.append(f"{ex_id}: several `{slug}/{file}`; graded `{pick}`")
        elif len(cands) == 1:
            pick = cands[0]
        elif len(cands) > 1:
            notes.append(f"{ex_id}: {len(cands)} files named `{file}` and none in a `{slug}/` "
                         f"folder: put each exercise's file in its own folder")
        if pick is None:
            lines.append(f"- {ex_id} `{slug}/{file}`: not in the upload")
            continue
        d = os.path.join(dest, slug)
        os.makedirs(d, exist_ok=True)
        os.chmod(d, 0o755)
        target = os.path.join(d, file)
        with open(target, "wb") as f:
            f.write(found[pick])
        os.chmod(target, 0o644)
        lines.append(f"- {ex_id} `{slug}/{file}` from `{pick}`")
    return lines


def fallback(platform, message, seconds):
    if platform == "gradescope":
        return {"score": 0, "execution_time": seconds, "output": message, "output_format": "md",
                "tests": [{"name": "grading", "score": 0, "max_score": 0, "status": "failed",
                           "output": message, "visibility": "visible"}]}
    return {"gradable": False, "score": 0.0, "message": message, "output": message, "tests": []}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--platform", choices=["gradescope", "prairielearn"], required=True)
    ap.add_argument("--upload", required=True)
    ap.add_argument("--results", required=True)
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--course", default=here)
    ap.add_argument("--grade", default=None, help="the grader (default COURSE/build/bin/grade)")
    ap.add_argument("--mode", default="cpu")
    ap.add_argument("--exercise", action="append", default=[],
                    help="grade only these exercises (PrairieLearn: one per question)")
    ap.add_argument("--timeout", type=float, default=1500)
    args = ap.parse_args()
    start = time.time()
    os.makedirs(os.path.dirname(os.path.abspath(args.results)), exist_ok=True)

    def write(result):
        tmp = args.results + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(result, f, indent=2, ensure_ascii=False)
        os.replace(tmp, args.results)

    try:
        grade = args.grade or os.path.join(args.course, "build", "bin", "grade")
        table = [t for t in exercise_table(args.course, grade)
                 if not args.exercise or t[0] in args.exercise]
        notes = []
        found = collect(args.upload, notes) if os.path.isdir(args.upload) else {}
        work = tempfile.mkdtemp(prefix="upload-")
        os.chmod(work, 0o755)  # the sandboxes run as other uids
        sub, out = os.path.join(work, "submission"), os.path.join(work, "out")
        os.makedirs(sub)
        os.chmod(sub, 0o755)
        mapping = place(found, table, sub, notes)
        header = "**What was graded** (from your upload):\n\n" + "\n".join(mapping) + "\n"
        if notes:
            header += "\n" + "\n".join("- " + n for n in notes) + "\n"
        if not any("from `" in m for m in mapping):
            names = ", ".join(f"`{s}/{f}`" for _, s, f in table)
            write(fallback(args.platform, header + "\nNo exercise file was found in the upload: "
                           f"upload {names} (loose, in their folders, or zipped).",
                           time.time() - start))
            return 0
        cmd = [grade, "--submission", sub, "--mode", args.mode, "--isolation", "auto",
               "--format", args.platform, "--out", out, "--jobs", str(os.cpu_count() or 1),
               "--hide-secret-sizes"]
        for ex_id, _, _ in table:
            cmd += ["--exercise", ex_id]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                               timeout=args.timeout)
            log = p.stdout[-4000:] + p.stderr[-4000:]
        except subprocess.TimeoutExpired:
            write(fallback(args.platform, header + f"\nGrading took longer than {args.timeout:.0f}"
                           " s and was stopped: ask your instructor.", time.time() - start))
            return 0
        name = "results.json" if args.platform == "gradescope" else "prairielearn.json"
        try:
            with open(os.path.join(out, name), encoding="utf-8") as f:
                result = json.load(f)
        except (OSError, ValueError) as e:
            write(fallback(args.platform, header + f"\nThe grader stopped without a result ({e}):"
                           f"\n\n```\n{log}\n```", time.time() - start))
            return 0
        if args.platform == "gradescope":
            result["output"] = header + "\n" + result.get("output", "")
            result["execution_time"] = round(time.time() - start, 1)
        else:
            result["output"] = header.replace("**", "") + "\n" + result.get("output", "")
        write(result)
        shutil.rmtree(work, ignore_errors=True)
        return 0
    except Exception as e:  # the result is always written
        write(fallback(args.platform, f"The autograder failed: {type(e).__name__}: {e}",
                       time.time() - start))
        return 0


if __name__ == "__main__":
    sys.exit(main())
