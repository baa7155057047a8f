import csv, sys, collections
rows = collections.OrderedDict()
with open(sys.argv[1]) as f:
    lines = [l for l in f if l.startswith('"')]
for r in csv.DictReader(lines):
    k = (r["ID"], r["Kernel Name"])
    rows.setdefault(k, {})[r["Metric Name"]] = r["Metric Value"]
short = {"smsp__sass_inst_executed_op_shared_ld.sum": "ld_inst", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": "ld_wf",
 "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": "ld_conf", "smsp__sass_inst_executed_op_shared_st.sum": "st_inst",
 "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": "st_wf", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": "st_conf"}
print("%-44s %s" % ("kernel", " ".join("%8s" % v for v in short.values())))
for (i, n), m in rows.items():
    print("%-44s %s" % (n.replace("void ", "")[:44], " ".join("%8s" % m.get(k, "-") for k in short)))
