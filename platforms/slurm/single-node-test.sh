#!/usr/bin/env bash
# make platform-slurm: a single-node SLURM cluster from Debian's slurm-wlm and munge, on this
# machine (root), grades a class of 20 through the job array (SCHEDULER=slurm) and checks that
# the gradebook is the one a local JOBS=2 run writes. Minutes; not part of `make test`.
#   platforms/slurm/single-node-test.sh BUILD_DIR [STUDENTS]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
N=${2:-20}
[ "$(id -u)" -eq 0 ] || { echo "single-node-test.sh: run as root (it starts slurmctld, slurmd, munged)"; exit 2; }
export DEBIAN_FRONTEND=noninteractive
command -v slurmctld >/dev/null && command -v munged >/dev/null ||
  apt-get install -y -qq --no-install-recommends slurm-wlm munge >/tmp/slurm-install.log 2>&1 ||
  { tail -20 /tmp/slurm-install.log; exit 1; }

W=$(mktemp -d /tmp/slurm-test.XXXXXX)
chmod 755 "$W"
host=$(hostname -s)
cpus=$(nproc)
stop() {
  scancel --user=root >/dev/null 2>&1 || true
  pkill -x slurmd 2>/dev/null || true
  pkill -x slurmctld 2>/dev/null || true
  pkill -x munged 2>/dev/null || true
}
trap stop EXIT

# munge: a fresh key, the daemon on its own socket folder.
mkdir -p /etc/munge /run/munge /var/lib/munge /var/log/munge
[ -s /etc/munge/munge.key ] || mungekey --create --keyfile=/etc/munge/munge.key
chown -R munge:munge /etc/munge /run/munge /var/lib/munge /var/log/munge
chmod 0700 /etc/munge && chmod 0400 /etc/munge/munge.key
pgrep -x munged >/dev/null || runuser -u munge -- /usr/sbin/munged
sleep 1
munge -n | unmunge >/dev/null

# slurm: controller and node on this host, no cgroups (containers), root as SlurmUser.
mkdir -p /etc/slurm "$W/spool/ctld" "$W/spool/d"
cat >/etc/slurm/slurm.conf <<EOF
ClusterName=course
SlurmctldHost=$host
SlurmUser=root
AuthType=auth/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmctldPidFile=$W/slurmctld.pid
SlurmdPidFile=$W/slurmd.pid
StateSaveLocation=$W/spool/ctld
SlurmdSpoolDir=$W/spool/d
SlurmctldLogFile=$W/slurmctld.log
SlurmdLogFile=$W/slurmd.log
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=course Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -i
slurmd
for _ in $(seq 30); do sinfo -h -o %T 2>/dev/null | grep -q idle && break; sleep 1; done
sinfo

# A class of N: solutions and skeletons of exercises 02 and 04, alternating.
C="$W/class"
for i in $(seq -w 1 "$N"); do
  for ex in 02-column-read 04-padding-transpose; do
    mkdir -p "$C/student$i/$ex"
    src=$([ $((10#$i % 2)) -eq 0 ] && echo solutions || echo exercises)
    cp "$ROOT/$src/$ex/"*.cu "$C/student$i/$ex/"
  done
done
chmod -R o+rX "$W"
GRADE="$BUILD/bin/grade"
start=$(date +%s)
"$GRADE" --submissions "$C" --exercise 02 --exercise 04 --seed 11 --jobs 2 --out "$W/local" \
  >"$W/local.log" 2>&1
echo "local JOBS=2: $(( $(date +%s) - start )) s"
start=$(date +%s)
"$GRADE" --submissions "$C" --exercise 02 --exercise 04 --seed 11 --out "$W/slurm" \
  --scheduler slurm --slurm-wait
echo "SLURM array: $(( $(date +%s) - start )) s"
sacct -n -X -o JobID,JobName,State 2>/dev/null | tail -5 || true
if cmp "$W/local/gradebook.csv" "$W/slurm/gradebook.csv"; then
  echo "gradebooks identical ($N students):"
  head -4 "$W/slurm/gradebook.csv"
else
  diff "$W/local/gradebook.csv" "$W/slurm/gradebook.csv" | head -20
  echo "FAIL: the SLURM gradebook differs from the local one"
  exit 1
fi
# Every student's results.json is the local one's (scores and outputs; times differ).
python3 - "$W/local" "$W/slurm" <<'PY'
import json, os, sys
a, b = sys.argv[1:]
bad = 0
for s in sorted(os.listdir(a)):
    pa, pb = os.path.join(a, s, "results.json"), os.path.join(b, s, "results.json")
    if not os.path.exists(pa):
        continue
    ta = [(t["name"], t["score"], t["output"]) for t in json.load(open(pa))["tests"]]
    tb = [(t["name"], t["score"], t["output"]) for t in json.load(open(pb))["tests"]]
    bad += ta != tb
print(f"per-student results: {'all identical' if not bad else str(bad) + ' differ'}")
sys.exit(1 if bad else 0)
PY
rm -rf "$W"
