#!/usr/bin/env bash
# make platform-fresh-root: a Debian 12 root built from the archive with mmdebstrap, where
# Gradescope's setup.sh then run_autograder grade solutions/ (uploaded as loose files) at full
# marks, as on a fresh autograder image. Then the same root runs the README's commands
# (make grade, make test) from a clone of the course. Root, network to the Debian archive,
# 15-30 minutes on 2 cores; not part of `make test`.
#   platforms/fresh-root/test.sh [WORK_DIR]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(id -u)" -eq 0 ] || { echo "platform-fresh-root: run as root"; exit 2; }
command -v mmdebstrap >/dev/null || apt-get install -y -qq --no-install-recommends mmdebstrap \
  >/tmp/mmdebstrap-install.log 2>&1
command -v bwrap >/dev/null || apt-get install -y -qq --no-install-recommends bubblewrap
W=${1:-/tmp/fresh-root}
rm -rf "$W" && mkdir -p "$W"
R="$W/root"
t0=$(date +%s)
mmdebstrap --variant=apt --include=ca-certificates,python3,unzip bookworm "$R" \
  http://deb.debian.org/debian >"$W/mmdebstrap.log" 2>&1 || { tail -20 "$W/mmdebstrap.log"; exit 1; }
echo "mmdebstrap: $(( $(date +%s) - t0 )) s"
cp /etc/resolv.conf "$R/etc/resolv.conf"
# The host's network settings, as an administrator's image has its site's: the certificate
# authorities it trusts (a proxy may sign PyPI's certificate) and pip's configuration.
cp /etc/ssl/certs/ca-certificates.crt "$R/etc/ssl/certs/ca-certificates.crt"
[ -f /etc/pip.conf ] && cp /etc/pip.conf "$R/etc/pip.conf"
python3 "$ROOT/platforms/package.py" gradescope --build "${BUILD_DIR:-$ROOT/build}" --out "$W/dist" >/dev/null
mkdir -p "$R/autograder/source" "$R/autograder/submission" "$R/autograder/results"
(cd "$R/autograder/source" && unzip -q "$W/dist/gradescope/autograder.zip")
for d in "$ROOT"/solutions/*/; do cp "$d"*.cu "$d"*.cpp "$R/autograder/submission/" 2>/dev/null || true; done
ls "$R/autograder/submission"
# Into the root as a fresh machine: root, the host's /proc (a fresh procfs here would stop the
# grader's own bubblewrap from mounting one: "Can't mount proc"), its own /dev, the network.
# EXTRA: more bwrap arguments (the README's step adds the CUDA toolkit).
EXTRA=()
PATH_IN=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
inside() {
  bwrap --bind "$R" / --bind /proc /proc --dev /dev --perms 1777 --tmpfs /tmp --die-with-parent \
    --setenv PATH "$PATH_IN" --setenv HOME /root "${EXTRA[@]}" -- "$@"
}
t0=$(date +%s)
inside bash /autograder/source/setup.sh >"$W/setup.log" 2>&1 || { tail -30 "$W/setup.log"; exit 1; }
echo "setup.sh: $(( $(date +%s) - t0 )) s"
t0=$(date +%s)
inside bash -c "cp /autograder/source/run_autograder /autograder/run_autograder && cd /autograder && ./run_autograder" >"$W/run_autograder.log" 2>&1 || true
echo "run_autograder: $(( $(date +%s) - t0 )) s"
# Full marks: every exercise's points, as the registry counts them (not what results.json says
# the maximum is: a bundle that lost an exercise would still get "full marks" of what it kept).
expected=$("${BUILD_DIR:-$ROOT/build}/bin/course-registry" export --json |
  python3 -c 'import json,sys; print(sum(e["points"]["total"] for e in json.load(sys.stdin)["exercises"]))')
python3 - "$R/autograder/results/results.json" "$expected" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
expected = int(sys.argv[2])
total = sum(t["max_score"] for t in r["tests"])
print(f"score {r['score']} of {total} (the registry's total: {expected}); "
      f"isolation: {r.get('extra_data', {}).get('isolation')}")
for t in r["tests"]:
    if t["score"] < t["max_score"]:
        print("  not full:", t["name"], t["output"][:200])
sys.exit(0 if r["score"] == total == expected else 1)
PY
# The README's two commands in the same root, on a clone of the course, after what the README
# says a minimal system lacks (make) and what its `make test` needs besides Debian's archive: the
# CUDA toolkit's nvcc (no GPU), as an administrator installs it. The host's toolkit is bound in
# read-only where it is; without one, the tests that compare with nvcc fail ("nvcc not found").
git clone -q "$ROOT" "$R/course"
if nvcc_path=$(command -v nvcc); then
  toolkit=$(dirname "$(dirname "$(readlink -f "$nvcc_path")")")
  mkdir -p "$R$toolkit"
  EXTRA=(--ro-bind "$toolkit" "$toolkit")
  PATH_IN="$toolkit/bin:$PATH_IN"
  echo "the CUDA toolkit for make test: $toolkit (the host's, read-only)"
else
  echo "no CUDA toolkit here: make test's nvcc tests will fail (nvcc not found)"
fi
t0=$(date +%s)
inside bash -c "apt-get install -y -qq --no-install-recommends make >/dev/null && cd /course &&
  make grade SUBMISSION=solutions MODE=cpu && make test" >"$W/readme.log" 2>&1 &&
  echo "README's commands (make grade, make test): ok in $(( $(date +%s) - t0 )) s" ||
  { tail -40 "$W/readme.log"; echo "FAIL: the README's commands"; exit 1; }
grep -E "^total|tests passed|tests failed" "$W/readme.log" || true
