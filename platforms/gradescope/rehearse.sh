#!/usr/bin/env bash
# make platform-gradescope: the autograder zip run exactly as Gradescope runs it, in a fresh root.
# The root is Ubuntu 22.04 (Gradescope's base image) made with mmdebstrap when this machine has
# Ubuntu's archive keyring and the archive answers, otherwise Debian 12 (the output says which
# and why). In it, as root: the zip unpacked into /autograder/source, setup.sh run there, then
# run_autograder copied to /autograder/run_autograder and the copy run from /autograder, for
#   1. solutions/ uploaded as loose files           full marks (every exercise's points)
#   2. the skeletons (generated from solutions/)     their build points only (0 under the
#                                                    default policy)
#   3. solutions/ with exercise 04's file broken     04 fails to build, the rest full
#   4. `make gradescope EXERCISES=04`'s zip (a fresh /autograder, setup.sh again), every
#      solution uploaded                              100 of 100, only exercise 04 named
# Root, network to the archive, 15-30 minutes on 2 cores; not part of `make test`.
#   platforms/gradescope/rehearse.sh BUILD_DIR [WORK_DIR]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
W=${2:-/tmp/platform-gradescope}
[ "$(id -u)" -eq 0 ] || { echo "platform-gradescope: run as root (it builds a root with mmdebstrap)"; exit 2; }
export DEBIAN_FRONTEND=noninteractive
for c in mmdebstrap bwrap unzip; do
  command -v $c >/dev/null || apt-get install -y -qq --no-install-recommends mmdebstrap bubblewrap unzip \
    >/tmp/platform-gradescope-install.log 2>&1
done
rm -rf "$W" && mkdir -p "$W"
R="$W/root"
start=$(date +%s)

# The distribution: Ubuntu 22.04 needs Ubuntu's archive key (the ubuntu-keyring package, which
# Debian 12's archive lacks) and the archive; Debian 12 otherwise.
ukey=/usr/share/keyrings/ubuntu-archive-keyring.gpg
uarchive=http://archive.ubuntu.com/ubuntu
if [ ! -f "$ukey" ]; then
  why="no Ubuntu archive keyring here ($ukey): the archive could not be verified"
elif ! python3 -c "import urllib.request,sys; urllib.request.urlopen(sys.argv[1], timeout=15)" \
  "$uarchive/dists/jammy/Release" 2>/dev/null; then
  why="Ubuntu's archive did not answer"
else
  why=""
fi
t0=$(date +%s)
if [ -z "$why" ]; then
  echo "root: Ubuntu 22.04 (Gradescope's base image) from Ubuntu's archive"
  mmdebstrap --variant=apt --components=main,universe --keyring="$ukey" \
    --include=ca-certificates,python3,unzip jammy "$R" "$uarchive" >"$W/mmdebstrap.log" 2>&1 ||
    { tail -20 "$W/mmdebstrap.log"; exit 1; }
else
  echo "root: Debian 12, not Ubuntu 22.04: $why"
  mmdebstrap --variant=apt --include=ca-certificates,python3,unzip bookworm "$R" \
    http://deb.debian.org/debian >"$W/mmdebstrap.log" 2>&1 || { tail -20 "$W/mmdebstrap.log"; exit 1; }
fi
echo "mmdebstrap: $(($(date +%s) - t0)) s; the root is $(. "$R/etc/os-release" && echo "$PRETTY_NAME")"
cp /etc/resolv.conf "$R/etc/resolv.conf"

# Into the root as Gradescope's container: root, the host's /proc (a fresh procfs would stop the
# grader's own bubblewrap from mounting one: "Can't mount proc"), its own /dev and /tmp.
inside() {
  bwrap --bind "$R" / --bind /proc /proc --dev /dev --perms 1777 --tmpfs /tmp --die-with-parent \
    --setenv PATH /usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin --setenv HOME /root \
    --chdir / -- "$@"
}

python3 "$ROOT/platforms/package.py" gradescope --build "$BUILD" --out "$W/dist" >/dev/null
python3 "$ROOT/platforms/package.py" gradescope --build "$BUILD" --out "$W/dist" --exercises 04 >/dev/null
"$BUILD/bin/grade" skeletons --out "$W/skeletons" >/dev/null

# Gradescope's image build: a fresh /autograder, the zip unpacked in source/, setup.sh run there,
# run_autograder copied to the root.
install_zip() {
  rm -rf "$R/autograder"
  mkdir -p "$R/autograder/source" "$R/autograder/submission" "$R/autograder/results"
  (cd "$R/autograder/source" && unzip -q "$1")
  local t0
  t0=$(date +%s)
  inside bash -c 'cd /autograder/source && bash ./setup.sh' >"$W/setup-$2.log" 2>&1 ||
    { tail -30 "$W/setup-$2.log"; echo "FAIL: setup.sh ($2)"; exit 1; }
  inside cp /autograder/source/run_autograder /autograder/run_autograder
  echo "setup.sh ($2): $(($(date +%s) - t0)) s"
}

# One submission: the upload in /autograder/submission, the copy run from /autograder, as root.
fail=0
grade_upload() { # NAME CHECK FILES...
  local name=$1 check=$2 t0
  shift 2
  rm -rf "$R/autograder/submission" "$R/autograder/results"
  mkdir -p "$R/autograder/submission"
  cp "$@" "$R/autograder/submission/"
  t0=$(date +%s)
  inside bash -c 'cd /autograder && /autograder/run_autograder' >"$W/run-$name.log" 2>&1 || true
  local secs=$(($(date +%s) - t0))
  python3 - "$R/autograder/results/results.json" "$name" "$secs" "$check" <<'PY' || fail=1
import json, sys
path, name, secs, check = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
try:
    r = json.load(open(path))
except (OSError, ValueError) as e:
    print(f"FAIL {name}: no valid results.json ({e})")
    sys.exit(1)
tests = r["tests"]
total = sum(t["max_score"] for t in tests)
ex = sorted({t["name"][:2] for t in tests})
print(f"{name}: {r['score']:g} of {total:g} in {secs} s; exercises {' '.join(ex)}; "
      f"isolation {r.get('extra_data', {}).get('isolation')}")
def per(e):
    return sum(t["score"] for t in tests if t["name"].startswith(e + " "))
ok = eval(check, {"score": r["score"], "total": total, "exercises": ex, "per": per, "tests": tests})
for t in tests:
    if t["score"] < t["max_score"] and name != "skeletons":
        print(f"  not full: {t['name']}: {t.get('output', '')[:160]!r}")
print(f"  {'ok' if ok else 'FAIL'}: {check}")
sys.exit(0 if ok else 1)
PY
}

shopt -s nullglob
sol=("$ROOT"/solutions/[0-9][0-9]-*/*.cu "$ROOT"/solutions/[0-9][0-9]-*/*.cpp)
skel=("$W"/skeletons/*/*.cu "$W"/skeletons/*/*.cpp)
shopt -u nullglob
broken=()
mkdir -p "$W/broken"
for f in "${sol[@]}"; do
  cp "$f" "$W/broken/"
  case "$f" in */04-*) echo "this line is not C++ (a compile error)" >>"$W/broken/$(basename "$f")" ;; esac
  broken+=("$W/broken/$(basename "$f")")
done
# The expected scores, from the registry: every exercise's points (solutions), the skeletons'
# build points, and exercise 04's points (the upload whose 04 does not compile).
read -r total total04 builds <<<"$("$BUILD/bin/course-registry" export --json | python3 -c '
import json, sys
ex = json.load(sys.stdin)["exercises"]
print(sum(e["points"]["total"] for e in ex), next(e["points"]["total"] for e in ex if e["id"] == "04"),
      sum(e["points"]["builds"] for e in ex))')"

install_zip "$W/dist/gradescope/autograder.zip" all
grade_upload solutions "score == total == $total" "${sol[@]}"
grade_upload skeletons "score == $builds" "${skel[@]}"
grade_upload compile-error \
  "per(\"04\") == 0 and score == $((total - total04)) and any(t[\"name\"].startswith(\"04\") and t[\"name\"].endswith(\"builds\") and t.get(\"status\") == \"failed\" for t in tests)" \
  "${broken[@]}"
install_zip "$W/dist/gradescope/autograder-04.zip" one-exercise
grade_upload one-exercise "score == total == $total04 and exercises == ['04']" "${sol[@]}"
echo "platform-gradescope: $(. "$R/etc/os-release" && echo "$PRETTY_NAME") root, $(($(date +%s) - start)) s in all:" \
  "$([ $fail -eq 0 ] && echo ok || echo FAILED)"
exit $fail
