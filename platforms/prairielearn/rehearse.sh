#!/usr/bin/env bash
# make platform-prairielearn: the grader image built with the one command `make prairielearn`
# prints (podman from Debian's archive; no registry: the debian:12 base is made with mmdebstrap
# and imported, as make platform-container does), then one question graded through PrairieLearn's
# external grader contract, as its grading host runs a job: a container of the image with the job
# folder at /grade (tests/ from the question, student/ the submitted file, /grade/data/data.json,
# serverFilesCourse/), the question's entrypoint /grade/tests/run.sh, no network, and the result
# read from /grade/results/results.json. A solved file must get 1, the unsolved skeleton less.
# Root, network to the Debian archive, about 10 minutes on 2 cores; not part of `make test`.
#   platforms/prairielearn/rehearse.sh BUILD_DIR [WORK_DIR] [EXERCISE]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
W=${2:-/tmp/platform-prairielearn}
EX=${3:-04}
[ "$(id -u)" -eq 0 ] || { echo "platform-prairielearn: run as root (podman)"; exit 2; }
for c in podman runc mmdebstrap; do
  command -v $c >/dev/null || apt-get install -y -qq --no-install-recommends podman runc mmdebstrap \
    >/tmp/platform-prairielearn-install.log 2>&1
done
rm -rf "$W" && mkdir -p "$W"
start=$(date +%s)
# vfs storage and runc: they work where overlayfs or cgroup v2 delegation (crun) do not.
P=(podman --storage-driver vfs --runtime runc)
t0=$(date +%s)
if ! "${P[@]}" image exists localhost/debian:12; then
  mmdebstrap --variant=minbase --quiet bookworm "$W/debian12.tar" http://deb.debian.org/debian
  "${P[@]}" import --quiet "$W/debian12.tar" localhost/debian:12 >/dev/null
  rm -f "$W/debian12.tar"
fi
echo "base image debian:12: $(($(date +%s) - t0)) s"
python3 "$ROOT/platforms/package.py" prairielearn --build "$BUILD" --out "$W/dist" \
  --exercises "$EX" | tee "$W/package.log"
# The command package.py printed, with this machine's podman flags (vfs, runc, chroot builds).
cmd=$(grep -o 'podman build -t banks-grader .*' "$W/package.log")
image_dir=${cmd##* }
t0=$(date +%s)
"${P[@]}" build --quiet --pull=never --isolation chroot --network host -t banks-grader "$image_dir" \
  >"$W/build.log" 2>&1 || { tail -30 "$W/build.log"; echo "FAIL: $cmd"; exit 1; }
echo "$cmd: $(($(date +%s) - t0)) s"

q=$(ls -d "$W/dist/prairielearn/questions/bankconflicts/$EX"-*)
file=$(python3 -c 'import json,sys; e=[x for x in json.load(sys.stdin)["exercises"] if x["id"]==sys.argv[1]][0]; print(e["slug"] + "/" + e["file"])' \
  "$EX" < <("$BUILD/bin/course-registry" export --json))
entry=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["externalGradingOptions"]["entrypoint"])' "$q/info.json")
timeout=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["externalGradingOptions"]["timeout"])' "$q/info.json")
"$BUILD/bin/grade" skeletons --out "$W/skeletons" >/dev/null
# The container's limits must stay under the host's hard limits (runc refuses to raise them).
lim() { local h; h=$(ulimit -H "$1"); [ "$h" = unlimited ] || [ "$h" -gt 20000 ] && h=20000; echo "$h"; }
fail=0
job() { # NAME FILE WANT(python expression of score)
  local g="$W/job-$1" t0
  mkdir -p "$g/student" "$g/data" "$g/serverFilesCourse" "$g/results"
  cp -r "$q/tests" "$g/tests"
  cp "$2" "$g/student/$(basename "$file")"
  echo '{"params": {}, "correct_answers": {}, "submitted_answers": {}, "options": {}}' >"$g/data/data.json"
  # Created first (vfs storage copies the whole image here: minutes on this machine, not part
  # of grading), then started and timed against the question's timeout.
  local cid
  cid=$("${P[@]}" create --network none -v "$g:/grade" \
    --ulimit "nofile=$(lim -n):$(lim -n)" --ulimit "nproc=$(lim -u):$(lim -u)" banks-grader "$entry")
  t0=$(date +%s)
  timeout "$timeout" "${P[@]}" start -a "$cid" >"$W/run-$1.log" 2>&1 || true
  local secs=$(($(date +%s) - t0))
  "${P[@]}" rm -f "$cid" >/dev/null 2>&1 || true
  python3 - "$g/results/results.json" "$1" "$secs" "$3" "$timeout" <<'PY' || fail=1
import json, sys
path, name, secs, want = sys.argv[1:5]
try:
    r = json.load(open(path))
except (OSError, ValueError) as e:
    print(f"FAIL {name}: no /grade/results/results.json ({e})")
    sys.exit(1)
ok = isinstance(r.get("gradable"), bool) and 0 <= r.get("score", -1) <= 1
ok = ok and all({"name", "points", "max_points"} <= set(t) for t in r.get("tests", []))
good = eval(want, {"score": r.get("score")})
print(f"{name}: score {r.get('score')} in {secs} s of the question's {sys.argv[5]} s (gradable {r.get('gradable')}, "
      f"{len(r.get('tests', []))} tests): {'ok' if ok and good else 'FAIL'} ({want})")
sys.exit(0 if ok and good else 1)
PY
}
job solved "$ROOT/solutions/$file" 'score == 1'
job unsolved "$W/skeletons/$file" 'score < 1'
echo "platform-prairielearn: $(($(date +%s) - start)) s in all: $([ $fail -eq 0 ] && echo ok || echo FAILED)"
exit $fail
