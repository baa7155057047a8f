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

# Its own cluster, beside nothing: where a SLURM or MUNGE daemon already runs (a cluster node),
# it refuses rather than share ports, keys or jobs with it.
for d in slurmctld slurmd munged; do
  if pids=$(pgrep -x "$d"); then
    echo "single-node-test.sh: refusing to start: $d already runs here (pid $(echo $pids | tr ' ' ','))." \
      "This rehearsal starts its own slurmctld, slurmd and munged; run it on a machine without SLURM."
    exit 2
  fi
done
W=$(mktemp -d /tmp/slurm-test.XXXXXX)
chmod 755 "$W"
host=$(hostname -s)
cpus=$(nproc)
# Everything of this cluster lives in $W: config, key, socket, state, logs, pid files. The
# clients (sinfo, the grader's sbatch, scancel) find it through SLURM_CONF.
export SLURM_CONF="$W/etc/slurm.conf"
M="$W/munge"
stop() {
  # Only this cluster's jobs (its own controller knows no others), then only its own daemons,
  # by the pids they recorded.
  if [ -s "$W/slurmctld.pid" ]; then
    squeue -h -o %i 2>/dev/null | xargs -r scancel 2>/dev/null || true
  fi
  local f pid
  for f in "$W/slurmd.pid" "$W/slurmctld.pid" "$M/munged.pid"; do
    pid=$(cat "$f" 2>/dev/null) || continue
    [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  done
  for f in "$W/slurmd.pid" "$W/slurmctld.pid" "$M/munged.pid"; do
    pid=$(cat "$f" 2>/dev/null) || continue
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  done
}
trap stop EXIT

# munge: its own key, socket, pid and log files in $M, run as the munge user.
mkdir -p "$M"
mungekey --create --keyfile="$M/munge.key"
chown -R munge:munge "$M"
chmod 0711 "$M" && chmod 0400 "$M/munge.key"  # munged: its socket folder must be searchable by all
runuser -u munge -- /usr/sbin/munged --socket="$M/munge.socket" --key-file="$M/munge.key" \
  --pid-file="$M/munged.pid" --log-file="$M/munged.log" --seed-file="$M/munged.seed"
for _ in $(seq 30); do [ -S "$M/munge.socket" ] && break; sleep 0.2; done
munge -n --socket="$M/munge.socket" | unmunge --socket="$M/munge.socket" >/dev/null

# slurm: controller and node on this host, no cgroups (containers), root as SlurmUser, ports
# away from SLURM's defaults.
mkdir -p "$W/etc" "$W/spool/ctld" "$W/spool/d"
cat >"$SLURM_CONF" <<EOF
ClusterName=course
SlurmctldHost=$host
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$M/munge.socket
CredType=cred/munge
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
slurmctld -i -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 30); do sinfo -h -o %T 2>/dev/null | grep -q idle && break; sleep 1; done
sinfo
echo "daemons (pids recorded, only these stopped at exit): slurmctld $(cat "$W/slurmctld.pid")," \
  "slurmd $(cat "$W/slurmd.pid"), munged $(cat "$M/munged.pid")"

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
stop
trap - EXIT
rm -rf "$W"
