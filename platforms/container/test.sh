#!/usr/bin/env bash
# make platform-container: builds the course's Dockerfile with podman (Debian's podman and runc;
# no registry: the debian:12 base image is made here with mmdebstrap and imported), then runs
# what a student on macOS or Windows would in the container: `make grade` on the skeletons (their
# build points only), on solutions/ mounted read-only (every exercise's points: the totals come
# from the image's course-registry), and `make docs`, each with --network none. Root, network
# to the Debian archive, about 8 minutes on 2 cores; not part of `make test`.
#   platforms/container/test.sh [WORK_DIR]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(id -u)" -eq 0 ] || { echo "platform-container: run as root"; exit 2; }
for c in podman runc mmdebstrap; do
  command -v $c >/dev/null || apt-get install -y -qq --no-install-recommends podman runc mmdebstrap \
    >/tmp/platform-container-install.log 2>&1
done
W=${1:-/tmp/platform-container}
rm -rf "$W" && mkdir -p "$W/ctx"
# vfs storage and runc: they work where overlayfs or cgroup v2 delegation (crun) do not.
P=(podman --storage-driver vfs --runtime runc)
t0=$(date +%s)
# The base carries this site's network settings, as an administrator's base image has its site's:
# the local certificate authorities (a proxy may sign PyPI's certificate: the image's build
# installs the site's search indexer with pip; ca-certificates adds them when installed) and
# pip's configuration. A label records which, so a change of them makes a new base.
site=(/usr/local/share/ca-certificates/*.crt /etc/pip.conf)
site_files=()
for f in "${site[@]}"; do [ -f "$f" ] && site_files+=("$f"); done
site_id=$(cat "${site_files[@]}" /dev/null | sha256sum | cut -c1-16)
if [ "$("${P[@]}" image inspect --format '{{index .Labels "site"}}' localhost/debian:12 2>/dev/null)" != "$site_id" ]; then
  hooks=(--customize-hook='mkdir -p "$1/usr/local/share/ca-certificates"')
  for f in "${site_files[@]}"; do
    case "$f" in
      *.crt) hooks+=(--customize-hook="copy-in $f /usr/local/share/ca-certificates") ;;
      *) hooks+=(--customize-hook="copy-in $f $(dirname "$f")") ;;
    esac
  done
  mmdebstrap --variant=minbase --quiet "${hooks[@]}" bookworm "$W/debian12.tar" \
    http://deb.debian.org/debian
  "${P[@]}" rmi --force localhost/debian:12 >/dev/null 2>&1 || true
  "${P[@]}" import --quiet --change "LABEL site=$site_id" "$W/debian12.tar" localhost/debian:12 >/dev/null
  rm -f "$W/debian12.tar"
fi
echo "base image: $(( $(date +%s) - t0 )) s"
# The build context is the committed tree (what a clone has), not this checkout's build/.
git -C "$ROOT" archive HEAD | tar -x -C "$W/ctx"
t0=$(date +%s)
"${P[@]}" build --quiet --pull=never --isolation chroot --network host -t banks-course-test "$W/ctx" \
  >"$W/build.log" 2>&1 || { tail -30 "$W/build.log"; exit 1; }
echo "docker build: $(( $(date +%s) - t0 )) s"
# The container's limits must stay under the host's hard limits (runc refuses to raise them,
# and failed here at the host's own hard process limit): 20000 or less.
lim() { local h; h=$(ulimit -H "$1"); [ "$h" = unlimited ] || [ "$h" -gt 20000 ] && h=20000; echo "$h"; }
RUN=("${P[@]}" run --rm --network none --ulimit "nofile=$(lim -n):$(lim -n)"
     --ulimit "nproc=$(lim -u):$(lim -u)")
score() { python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["score"], r.get("extra_data",{}).get("isolation",""))'; }
# A `make grade` that writes no results.json shows its log's end (stderr) instead.
grade='make grade >/tmp/g.log 2>&1; cat build/grade/results.json 2>/dev/null || { tail -30 /tmp/g.log >&2; echo "{\"score\": \"none\"}"; }'
read -r total builds <<<"$("${RUN[@]}" banks-course-test build/bin/course-registry export --json | python3 -c '
import json, sys
ex = json.load(sys.stdin)["exercises"]
print(sum(e["points"]["total"] for e in ex), sum(e["points"]["builds"] for e in ex))')"
echo "the registry in the image: $total points in all, $builds of them for building"
fail=0
out=$("${RUN[@]}" banks-course-test bash -c "$grade")
read -r s iso <<<"$(score <<<"$out")"
echo "make grade (the skeletons): $s points, isolation: $iso"
[ "$s" = "$builds" ] || { echo "FAIL: the skeletons got $s, not their $builds build points"; fail=1; }
out=$("${RUN[@]}" -v "$ROOT/solutions:/course/solutions-mounted:ro" banks-course-test \
  bash -c "${grade/make grade/make grade SUBMISSION=solutions-mounted}")
read -r s iso <<<"$(score <<<"$out")"
echo "make grade SUBMISSION=solutions (mounted read-only): $s points, isolation: $iso"
[ "$s" = "$total" ] || { echo "FAIL: solutions got $s, not $total"; fail=1; }
n=$("${RUN[@]}" banks-course-test bash -c 'make docs >/tmp/d.log 2>&1 || tail -20 /tmp/d.log; ls build/docs/html/*.html | wc -l')
echo "make docs: $n HTML pages"
[ "${n##*$'\n'}" -gt 20 ] 2>/dev/null || { echo "FAIL: make docs: $n"; fail=1; }
[ $fail -eq 0 ] && echo "platform-container: ok"
exit $fail
