#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image: the zip is unpacked
# in /autograder/source. Installs what CPU-mode grading needs from the image's own archive
# (Ubuntu 22.04/24.04 or Debian 12: scripts/deps.sh knows the names) and builds the grader.
set -euo pipefail
SRC=$(cd "$(dirname "$0")" && pwd)
export DEBIAN_FRONTEND=noninteractive
if ! command -v python3 >/dev/null; then
  apt-get update -qq && apt-get install -y -qq --no-install-recommends python3
fi
apt-get update -qq || true
"$SRC/scripts/deps.sh" grade
# The course needs CMake 3.24; Ubuntu 22.04 (Gradescope's default image) has 3.22: then PyPI's
# cmake wheel (Kitware's own build) in /usr/local/bin.
need=3.24
have=$(cmake --version | sed -n '1s/.* \([0-9][0-9.]*\).*/\1/p')
if [ "$(printf '%s\n%s\n' "$need" "$have" | sort -V | head -1)" != "$need" ]; then
  echo "setup.sh: cmake $have is older than $need: installing PyPI's cmake"
  command -v pip3 >/dev/null || apt-get install -y -qq --no-install-recommends python3-pip
  pip3 install -q "cmake>=$need"
  hash -r
fi
cmake -S "$SRC" -B "$SRC/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCOURSE_BUILD_TESTS=OFF \
  -DCOURSE_BUILD_BENCH=OFF -DCOURSE_ENABLE_CUDA=OFF
cmake --build "$SRC/build" --target grade grade_worker course-registry
# Student code runs as other uids (sandbox or uid isolation): they must enter the course.
chmod -R o+rX "$SRC"
d="$SRC"
while [ "$d" != / ]; do chmod o+x "$d"; d=$(dirname "$d"); done
"$SRC/build/bin/grade" list
echo "setup.sh: the grader is ready"
