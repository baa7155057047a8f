#!/usr/bin/env python3
"""ncu-table.py NCU_CSV - one line per profiled kernel launch of `measure profile` (ncu --csv
--metrics ...): shared load, store and atomic instructions and wavefronts. The launches are named
by the "profile EX NAME" lines measure.cu prints before each (the three reductions come first, unnamed)."""
import collections
import csv
import re
import sys

text = open(sys.argv[1], encoding="utf-8", errors="replace").read().splitlines()
names = [m.group(1) for line in text for m in [re.match(r"^profile (.+)$", line)] if m]
rows = [r for r in csv.reader(l for l in text if l.startswith('"'))]
if not rows:
    print(sys.argv[1] + ": no ncu rows")
    sys.exit(0)
h = rows[0]
K, MN, MV, ID = (h.index(x) for x in ("Kernel Name", "Metric Name", "Metric Value", "ID"))
launches = collections.OrderedDict()
for r in rows[1:]:
    try:
        value = float(r[MV].replace(",", ""))
    except ValueError:
        value = float("nan")
    launches.setdefault(r[ID], {"kernel": r[K]})[r[MN]] = value
reductions = [n for n in launches.values() if n["kernel"].startswith("reduce")]
labels = [n["kernel"] for n in reductions] + names
for label, m in zip(labels, launches.values()):
    g = lambda key: sum(v for k, v in m.items() if key in k)  # nan: the launch failed
    print("%-30s ld %7.0f inst %8.0f wf | st %7.0f inst %8.0f wf | atom %7.0f inst %8.0f wf" % (
        label[:30], g("inst_executed_op_shared_ld"), g("wavefronts_mem_shared_op_ld"),
        g("inst_executed_op_shared_st"), g("wavefronts_mem_shared_op_st"),
        g("inst_executed_op_shared_atom"), g("wavefronts_mem_shared_op_atom")))
