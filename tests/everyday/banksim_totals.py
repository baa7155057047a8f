#!/usr/bin/env python3
"""Runs banksim on every launch of the everyday corpus and prints its shared-memory totals.

Usage:
  python3 tests/everyday/banksim_totals.py BANKSIM_BINARY [--only NAME_REGEX] [--extra-arg ARG ...]
                                           [--manifest everyday.json]

For every entry of the manifest, tests/everyday/everyday.json (its files are relative to its
folder), or those whose name matches --only (re.search), runs

  BANKSIM profile FILE --kernel K --grid X,Y,Z --block X,Y,Z [--smem BYTES] --arg ... --json TMP

(a buffer argument is passed as its element count, a scalar as its value; an entry's "include"
folders, relative to the manifest, as -I DIR; --extra-arg values are appended, e.g. --extra-arg=--seed=3) and prints one JSON object on stdout:

  {name: {"load": [requests, wavefronts], "store": [...], "atomic": [...]}, ...}

summed over the report's shared-memory sites ("atomic-loop" sites, compare-and-swap loops, count
as "atomic"; any other op gets its own key). The shape is the one tests/everyday/ncu_to_json.py
gives for the GPU's measurements.

Exit status: 0 when every launch ran. banksim's exit status 1 means it found problems (races,
out-of-bounds accesses...): they are printed on stderr and the totals are kept. Any other status
(usage or compile error, timeout, crash) stops the script with exit status 1 and a message naming
the entry.
"""

import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MANIFEST = os.path.join(HERE, "everyday.json")
OPS = ("load", "store", "atomic")


def load_manifest(path=MANIFEST):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def dims(v):
    return ",".join(str(int(x)) for x in v)


def banksim_command(binary, entry, json_path, extra, corpus_dir=HERE):
    """The banksim command line of one manifest entry (its file relative to corpus_dir)."""
    cmd = [binary, "profile", os.path.join(corpus_dir, entry["file"]),
           "--kernel", entry["kernel"],
           "--grid", dims(entry["grid"]), "--block", dims(entry["block"])]
    if int(entry.get("smem", 0)) != 0:
        cmd += ["--smem", str(int(entry["smem"]))]
    for arg in entry["args"]:
        if arg["kind"] == "buffer":
            cmd += ["--arg", str(int(arg["count"]))]
        elif arg["kind"] == "int":
            cmd += ["--arg", str(int(arg["value"]))]
        elif arg["kind"] == "float":
            cmd += ["--arg", repr(float(arg["value"]))]
        else:
            raise ValueError(f"{entry['name']}: unknown argument kind {arg['kind']!r}")
    for inc in entry.get("include", []):  # folders of headers, relative to the manifest
        cmd += ["-I", os.path.join(corpus_dir, inc)]
    return cmd + ["--json", json_path] + list(extra)


def totals(report):
    """{op: [requests, wavefronts]} summed over a banksim JSON report's shared sites."""
    out = {op: [0, 0] for op in OPS}
    for site in report.get("sites", []):
        op = site["op"]
        if op.startswith("atomic"):
            op = "atomic"
        acc = out.setdefault(op, [0, 0])
        acc[0] += int(site["requests"])
        acc[1] += int(site["wavefronts"])
    # Global memory: [requests, sectors] of loads and of stores (atomics count as stores).
    for op in ("load", "store"):
        out["global_" + op] = [0, 0]
    for site in report.get("global_sites", []):
        acc = out["global_" + ("load" if site["op"] == "load" else "store")]
        acc[0] += int(site["requests"])
        acc[1] += int(site["sectors"])
    return out


def wait_for(binary, seconds=120):
    """The binary may be rebuilt under us: wait a while when it is briefly missing."""
    deadline = time.time() + seconds
    while not os.access(binary, os.X_OK):
        if time.time() > deadline:
            sys.exit(f"banksim_totals: {binary} not found or not executable")
        time.sleep(5)


def run_entry(binary, entry, extra, tmp, corpus_dir, keep_going=False):
    json_path = os.path.join(tmp, re.sub(r"[^A-Za-z0-9_.-]", "_", entry["name"]) + ".json")
    cmd = banksim_command(binary, entry, json_path, extra, corpus_dir)
    wait_for(binary)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        sys.stderr.write(proc.stdout + proc.stderr)
        sys.stderr.write(f"banksim_totals: {entry['name']}: banksim failed with exit status "
                         f"{proc.returncode}\n  command: {' '.join(cmd)}\n")
        if keep_going:
            return {"error": f"banksim exit status {proc.returncode}"}
        sys.exit(1)
    try:
        with open(json_path, encoding="utf-8") as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        sys.stderr.write(proc.stdout + proc.stderr)
        sys.exit(f"banksim_totals: {entry['name']}: no JSON report from banksim ({e})")
    if proc.returncode == 1:
        sys.stderr.write(f"banksim_totals: {entry['name']}: banksim found problems:\n")
        for issue in report.get("issues", []):
            sys.stderr.write(f"  {issue.get('kind')} ({issue.get('severity')}) line "
                             f"{issue.get('line')}: {issue.get('message')}\n")
        if not report.get("issues"):
            sys.stderr.write(proc.stdout + proc.stderr)
    out = totals(report)
    # Counted with clang's widths: whether banksim saw accesses nvcc could merge.
    out["mergeable"] = bool(report.get("mergeable", False))
    return out


def dump_totals(result):
    """{name: {op: [requests, wavefronts]}} as JSON text, one entry per line."""
    lines = [f"  {json.dumps(name)}: {json.dumps(ops)}" for name, ops in result.items()]
    return "{\n" + ",\n".join(lines) + "\n}\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("banksim", help="the banksim binary (e.g. build/bin/banksim)")
    parser.add_argument("--only", help="run only the entries whose name matches this regex")
    parser.add_argument("--extra-arg", action="append", default=[], metavar="ARG",
                        help="an argument appended to every banksim command (repeatable)")
    parser.add_argument("--manifest", default=MANIFEST,
                        help="the manifest; its files are relative to its folder "
                             "(default: %(default)s)")
    parser.add_argument("--jobs", type=int, default=1,
                        help="files run side by side (default: %(default)s)")
    parser.add_argument("--keep-going", action="store_true",
                        help="a launch banksim cannot run gets {\"error\": WHY} and the others "
                             "still run (exit status 0)")
    args = parser.parse_args()
    binary = os.path.abspath(args.banksim) if os.sep in args.banksim else args.banksim
    entries = load_manifest(args.manifest)
    corpus_dir = os.path.dirname(os.path.abspath(args.manifest))
    if args.only:
        entries = [e for e in entries if re.search(args.only, e["name"])]
        if not entries:
            sys.exit(f"banksim_totals: no entry matches --only {args.only!r}")
    result = {}
    with tempfile.TemporaryDirectory(prefix="banksim_totals.") as tmp:
        # Launches of one file in order, the files side by side (--jobs): a file's first launch
        # builds the module its other launches load.
        by_file = {}
        for entry in entries:
            by_file.setdefault(entry["file"], []).append(entry)

        def run_file(file_entries):
            return [(e["name"], run_entry(binary, e, args.extra_arg, tmp, corpus_dir,
                                          args.keep_going)) for e in file_entries]

        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            done = dict(kv for chunk in pool.map(run_file, by_file.values()) for kv in chunk)
        for entry in entries:
            result[entry["name"]] = done[entry["name"]]
    sys.stdout.write(dump_totals(result))


if __name__ == "__main__":
    main()
