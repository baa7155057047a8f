#!/usr/bin/env python3
"""Converts ncu's CSV of the everyday corpus into the JSON of banksim_totals.py.

Usage:
  python3 tests/everyday/ncu_to_json.py CSV [--manifest everyday.json]

CSV is what build_and_profile.sh (written by gpu_driver.py) appends to $OUT/everyday-ncu.csv:
the output of `ncu --metrics ... --csv` for each driver, one after the other. Lines that are not
CSV rows (ncu's "==PROF==" messages, program output) and repeated header lines are skipped. Both
ncu layouts are read: the default one (one row per launch and metric: "Metric Name",
"Metric Value") and `--page raw` (one row per launch, one column per metric, a row of units under
the header). Values may have thousands separators ("1,024").

Launches are matched to manifest entries by kernel function name (the "Kernel Name" column holds
the demangled name with its parameters, e.g. "stencil1d(const float *, float *, int)") and, where
the CSV has them, by the "Grid Size" and "Block Size" columns; when several entries match, the
launches are given to them in manifest order. Prints on stdout

  {name: {"load": [requests, wavefronts], "store": [...], "atomic": [...]}, ...}

with requests = smsp__sass_inst_executed_op_shared_{ld,st,atom}.sum and wavefronts =
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st,atom}.sum; where the CSV has global-memory
metrics, also "global_load" and "global_store": [requests, sectors] with
l1tex__t_{requests,sectors}_pipe_lsu_mem_global_op_{ld,st}.sum. Entries with no launch in the CSV
and launches with no entry are reported on stderr.
"""

import argparse
import csv
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from banksim_totals import dump_totals  # noqa: E402  (one JSON layout for both sides)

HERE = os.path.dirname(os.path.abspath(__file__))
MANIFEST = os.path.join(HERE, "everyday.json")

# metric -> (op, index in [requests, wavefronts])
METRICS = {
    "smsp__sass_inst_executed_op_shared_ld.sum": ("load", 0),
    "smsp__sass_inst_executed_op_shared_st.sum": ("store", 0),
    "smsp__sass_inst_executed_op_shared_atom.sum": ("atomic", 0),
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": ("load", 1),
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": ("store", 1),
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum": ("atomic", 1),
    # global memory: [requests, sectors] (optional: older measurements have none)
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": ("global_load", 0),
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": ("global_load", 1),
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": ("global_store", 0),
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": ("global_store", 1),
}


def number(text):
    """ncu's value text as an int (or float), thousands separators removed; None if not one."""
    t = text.strip().replace(",", "").replace("\u202f", "").replace(" ", "")
    try:
        return int(t)
    except ValueError:
        try:
            v = float(t)
        except ValueError:
            return None
        return int(v) if v.is_integer() else v


def kernel_function(name):
    """'ns::stencil1d(const float *, float *, int)' -> 'stencil1d'."""
    head = name.split("(", 1)[0].strip()
    head = re.sub(r"^void\s+", "", head)
    base = head.split("<", 1)[0]
    return base.split("::")[-1].strip()


def dims(text):
    """'(8, 1, 1)' -> [8, 1, 1]; None when the text is not a size."""
    nums = [number(x) for x in re.findall(r"[\d,]+", text or "")]
    return nums if nums and all(isinstance(n, int) for n in nums) else None


def read_launches(path):
    """The CSV's kernel launches, in order: dicts with kernel, grid, block, metrics."""
    launches = {}  # key -> launch, insertion-ordered
    header = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if not line.startswith('"'):
                continue  # ncu messages, program output, blank lines
            row = next(csv.reader([line]))
            if row and row[0] == "ID":
                header = row
                continue
            if header is None or len(row) != len(header):
                continue
            rec = dict(zip(header, row))
            if number(rec.get("ID", "")) is None:
                continue  # the units row of --page raw
            key = (rec.get("Process ID"), rec.get("Host Name"), rec["ID"], rec.get("Kernel Name"))
            launch = launches.setdefault(key, {
                "kernel_name": rec.get("Kernel Name", ""),
                "kernel": kernel_function(rec.get("Kernel Name", "")),
                "grid": dims(rec.get("Grid Size")),
                "block": dims(rec.get("Block Size")),
                "metrics": {},
            })
            if "Metric Name" in rec:
                pairs = [(rec["Metric Name"], rec.get("Metric Value", ""))]
            else:
                pairs = [(m, rec[m]) for m in METRICS if m in rec]
            for metric, value in pairs:
                if metric in METRICS:
                    launch["metrics"][metric] = number(value)
    return list(launches.values())


def totals(launch, warn):
    out = {"load": [0, 0], "store": [0, 0], "atomic": [0, 0]}
    for metric, (op, i) in METRICS.items():
        v = launch["metrics"].get(metric)
        if v is None and op.startswith("global_"):
            continue  # not measured: no global entry
        out.setdefault(op, [0, 0])
        if v is None:
            warn(f"{launch['kernel_name']}: no value for {metric} (counted as 0)")
            v = 0
        out[op][i] = v
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("csv", help="ncu's CSV (everyday-ncu.csv)")
    parser.add_argument("--manifest", default=MANIFEST, help="default: %(default)s")
    args = parser.parse_args()
    with open(args.manifest, encoding="utf-8") as f:
        entries = json.load(f)

    def warn(msg):
        sys.stderr.write(f"ncu_to_json: {msg}\n")

    try:
        launches = read_launches(args.csv)
    except OSError as e:
        sys.exit(f"ncu_to_json: cannot read {args.csv}: {e.strerror}")
    if not launches:
        sys.exit(f"ncu_to_json: no kernel launch found in {args.csv}")
    result, taken = {}, set()
    for launch in launches:
        match = None
        for entry in entries:
            if entry["name"] in taken or kernel_function(entry["kernel"]) != launch["kernel"]:
                continue
            if launch["grid"] is not None and launch["grid"] != list(entry["grid"]):
                continue
            if launch["block"] is not None and launch["block"] != list(entry["block"]):
                continue
            match = entry
            break
        if match is None:
            warn(f"launch of {launch['kernel_name']} (grid {launch['grid']}, block "
                 f"{launch['block']}) matches no remaining manifest entry; ignored")
            continue
        taken.add(match["name"])
        result[match["name"]] = totals(launch, warn)
    for entry in entries:
        if entry["name"] not in taken:
            warn(f"{entry['name']}: no launch of {entry['kernel']} in {args.csv}")
    ordered = {e["name"]: result[e["name"]] for e in entries if e["name"] in result}
    sys.stdout.write(dump_totals(ordered))


if __name__ == "__main__":
    main()
