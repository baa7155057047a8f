#!/usr/bin/env bash
# Makes sure the Debian packages a make target needs are installed.
#   scripts/deps.sh test|grade|docs|bench|all
# As root it installs what is missing (apt-get, Debian's archive only) and is silent when all is
# present; otherwise it prints the exact `apt-get install` line and exits 1.
set -euo pipefail
target="${1:-test}"

base=(cmake ninja-build g++ clang clang-format llvm libclang-rt-14-dev catch2 libboost-context-dev bubblewrap
      nlohmann-json3-dev libcli11-dev libfmt-dev libbenchmark-dev git)
docs=(doxygen doxygen-awesome-css graphviz libjs-mathjax chromium)

case "$target" in
  test) pkgs=("${base[@]}" "${docs[@]}") ;;
  grade|bench|build) pkgs=("${base[@]}") ;;
  docs) pkgs=("${base[@]}" "${docs[@]}") ;;
  all) pkgs=("${base[@]}" "${docs[@]}") ;;
  *) echo "deps.sh: unknown target '$target' (test, grade, docs, bench, all)" >&2; exit 2 ;;
esac

missing=()
for p in "${pkgs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "Missing Debian packages for 'make $target'. Install them with:" >&2
  echo "  sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "deps.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y -qq --no-install-recommends "${missing[@]}" >/tmp/deps-install.log 2>&1; then
  apt-get update -qq >/dev/null 2>&1 || true
  if ! apt-get install -y -qq --no-install-recommends "${missing[@]}" >/tmp/deps-install.log 2>&1; then
    tail -20 /tmp/deps-install.log >&2
    echo "deps.sh: apt-get install failed (log above, full log /tmp/deps-install.log)" >&2
    exit 1
  fi
fi
