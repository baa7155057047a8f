#!/usr/bin/env bash
# Makes sure what a make target needs is there: looks for each tool and header itself (so a
# machine that has them some other way, e.g. a GPU box with libraries unpacked under /opt and
# CPATH set, needs nothing installed, even offline), and only for what is missing names the
# package of this distribution (Debian 12, Ubuntu 22.04, Ubuntu 24.04).
#   scripts/deps.sh test|grade|grade-gpu|docs|bench|all [--dry-run]
# grade-gpu is what `make grade MODE=gpu` needs: the CUDA toolkit's nvcc, ncu and
# compute-sanitizer, and clang (banksim checks every submission on the CPU first: hybrid mode).
# As root it installs what is missing with apt-get; otherwise (or with --dry-run) it prints the
# exact `apt-get install` line and exits 1. Silent when everything is present.
#   DEPS_OS_RELEASE=FILE  read the distribution from FILE instead of /etc/os-release
#   DEPS_INCLUDE_DIRS="A B"  where headers are looked for (default: CPATH, /usr/local/include,
#                         /usr/include)
#   DEPS_LIB_DIRS="A B"   where libraries are looked for (default: LIBRARY_PATH, /usr/local/lib,
#                         /usr/lib/MULTIARCH, /usr/lib, /usr/lib64)
#   DEPS_PYTHON=PATH      the Python that builds the site's search index (default: python3)
set -euo pipefail
target="${1:-test}"
dry_run=0
[ "${2:-}" = "--dry-run" ] && dry_run=1

# The distribution: debian-12, ubuntu-22.04, ubuntu-24.04 (others: Debian 12's names).
os_file="${DEPS_OS_RELEASE:-/etc/os-release}"
os_id=$(. "$os_file" 2>/dev/null && echo "${ID:-debian}-${VERSION_ID:-12}") || os_id=debian-12
case "$os_id" in debian-12 | ubuntu-22.04 | ubuntu-24.04) ;; *) os_id=debian-12 ;; esac

cpath="${CPATH:-}"
include_dirs=${DEPS_INCLUDE_DIRS:-"${cpath//:/ } /usr/local/include /usr/include"}
have_header() {
  local d
  for d in $include_dirs; do [ -n "$d" ] && [ -e "$d/$1" ] && return 0; done
  return 1
}
# Libraries: a header can be there without its library (Ubuntu's libboost-dev ships Boost.Context's
# headers, libboost-context-dev its libboost_context.so), so both are looked for.
multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
lpath="${LIBRARY_PATH:-}"
lib_dirs=${DEPS_LIB_DIRS:-"${lpath//:/ } /usr/local/lib /usr/lib/$multiarch /usr/lib /usr/lib64"}
have_lib() {
  local d
  for d in $lib_dirs; do [ -n "$d" ] && compgen -G "$d/$1*" >/dev/null && return 0; done
  return 1
}
have_cmd() { command -v "$1" >/dev/null 2>&1; }
have_file() { [ -e "$1" ]; }
# The site's search index is built by Pagefind, which PyPI ships as pagefind_bin (its static
# binary in a wheel; no distribution packages it): pip installs it, so pip is what apt must bring.
python=${DEPS_PYTHON:-python3}
have_pagefind() { "$python" -c 'import pagefind_bin' >/dev/null 2>&1; }
have_pip() { "$python" -m pip --version >/dev/null 2>&1; }

# One requirement per line: how to check it, then its package on debian-12 ubuntu-22.04
# ubuntu-24.04 ("-" where that distribution has none: the message says so).
build_reqs=(
  "cmd cmake|cmake cmake cmake"
  "cmd ninja|ninja-build ninja-build ninja-build"
  "cmd g++|g++ g++ g++"
  "cmd clang++|clang clang clang"
  "header nlohmann/json.hpp|nlohmann-json3-dev nlohmann-json3-dev nlohmann-json3-dev"
  "header CLI/CLI.hpp|libcli11-dev libcli11-dev libcli11-dev"
  "header fmt/format.h|libfmt-dev libfmt-dev libfmt-dev"
  "header toml.hpp|libtoml11-dev libtoml11-dev libtoml11-dev"
  "header boost/context/fiber.hpp|libboost-context-dev libboost-context-dev libboost-context-dev"
  "lib libboost_context.so|libboost-context-dev libboost-context-dev libboost-context-dev"
  "asan clang's sanitizer headers|libclang-rt-14-dev libclang-common-14-dev libclang-rt-18-dev"
  "symbolizer llvm-symbolizer (source lines in banksim's reports)|llvm llvm llvm"
  "llvmdev LLVM's development files for clang's version (banksim's region pass)|llvm-14-dev llvm-14-dev llvm-18-dev"
  "cmd bwrap|bubblewrap bubblewrap bubblewrap"
)
# GPU mode: no clang (student code is built by nvcc with g++ as its host compiler), the toolkit's
# tools instead. NVIDIA's toolkit is not in the distributions' main archives: named, not installed.
gpu_reqs=(
  "cmd cmake|cmake cmake cmake"
  "cmd ninja|ninja-build ninja-build ninja-build"
  "cmd g++|g++ g++ g++"
  "cmd clang++|clang clang clang"
  "symbolizer llvm-symbolizer (source lines and nvcc's widths in banksim's step)|llvm llvm llvm"
  "header nlohmann/json.hpp|nlohmann-json3-dev nlohmann-json3-dev nlohmann-json3-dev"
  "header CLI/CLI.hpp|libcli11-dev libcli11-dev libcli11-dev"
  "header fmt/format.h|libfmt-dev libfmt-dev libfmt-dev"
  "header toml.hpp|libtoml11-dev libtoml11-dev libtoml11-dev"
  "header boost/context/fiber.hpp|libboost-context-dev libboost-context-dev libboost-context-dev"
  "lib libboost_context.so|libboost-context-dev libboost-context-dev libboost-context-dev"
  "cmd nvcc|- - -"
  "cmd ncu|- - -"
  "cmd compute-sanitizer|- - -"
)
test_reqs=(
  "cmd clang-format|clang-format clang-format clang-format"
  "header benchmark/benchmark.h|libbenchmark-dev libbenchmark-dev libbenchmark-dev"
  "catch2 Catch2 v2 or v3|catch2 catch2 catch2"
  "cmd git|git git git"
  "cmd cmark-gfm|cmark-gfm cmark-gfm cmark-gfm"
)
docs_reqs=(
  "cmd doxygen|doxygen doxygen doxygen"
  "file /usr/share/doxygen-awesome-css/doxygen-awesome.css|doxygen-awesome-css - doxygen-awesome-css"
  "cmd dot|graphviz graphviz graphviz"
  "file /usr/share/javascript/mathjax|libjs-mathjax libjs-mathjax libjs-mathjax"
  "cmd python3|python3 python3 python3"
  "pagefind pip, to install PyPI's pagefind_bin (the site's search)|python3-pip python3-pip python3-pip"
)
# The site's browser check (part of make test), not needed to build the site.
browser_reqs=(
  "cmd chromium|chromium chromium-browser chromium-browser"
)
case "$target" in
  grade | build) reqs=("${build_reqs[@]}") ;;
  grade-gpu) reqs=("${gpu_reqs[@]}") ;;
  bench) reqs=("${build_reqs[@]}" "${test_reqs[@]}") ;;
  docs) reqs=("${build_reqs[@]}" "${docs_reqs[@]}") ;;
  test | all) reqs=("${build_reqs[@]}" "${test_reqs[@]}" "${docs_reqs[@]}" "${browser_reqs[@]}") ;;
  *) echo "deps.sh: unknown target '$target' (test, grade, grade-gpu, docs, bench, all)" >&2; exit 2 ;;
esac
col=1
case "$os_id" in ubuntu-22.04) col=2 ;; ubuntu-24.04) col=3 ;; esac

missing=()
unavailable=()
for r in "${reqs[@]}"; do
  check=${r%%|*}
  kind=${check%% *}
  what=${check#* }
  case "$kind" in
    cmd) have_cmd "$what" && continue ;;
    header) have_header "$what" && continue ;;
    file) have_file "$what" && continue ;;
    lib) have_lib "$what" && continue ;;
    catch2) { have_header catch2/catch.hpp || have_header catch2/catch_all.hpp; } && continue ;;
    pagefind) { have_pagefind || have_pip; } && continue ;;
    symbolizer)  # banksim's names (banksim/tools.hpp), where its sandboxed steps look
      for n in llvm-symbolizer llvm-symbolizer-{14..20}; do
        for d in /usr/local/bin /usr/bin /bin; do [ -x "$d/$n" ] && continue 3; done
      done ;;
    llvmdev)
      major=$(clang++ --version 2>/dev/null | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -n 1) || true  # no clang yet: pipefail
      [ -n "$major" ] && [ -e "/usr/lib/llvm-$major/lib/cmake/llvm/LLVMConfig.cmake" ] && continue ;;
    asan)
      dir=$(clang++ -print-resource-dir 2>/dev/null || true)
      [ -n "$dir" ] && [ -e "$dir/include/sanitizer/asan_interface.h" ] && continue ;;
  esac
  read -r -a pkgs <<<"${r#*|}"
  pkg=${pkgs[$((col - 1))]}
  if [ "$pkg" = "-" ]; then
    unavailable+=("$what")
  elif [[ " ${missing[*]} " != *" $pkg "* ]]; then
    missing+=("$pkg")
  fi
done
if [ ${#unavailable[@]} -gt 0 ]; then
  echo "deps.sh: $os_id has no package for: ${unavailable[*]}" >&2
  case " ${unavailable[*]} " in
    *nvcc* | *ncu* | *compute-sanitizer*) echo "  GPU mode needs NVIDIA's CUDA toolkit (12.x or 13.x: nvcc, ncu, compute-sanitizer) on the PATH, e.g. export PATH=/usr/local/cuda/bin:\$PATH; without a GPU, grade with MODE=cpu" >&2 ;;
  esac
fi
# nvdisasm lets banksim count the access widths nvcc emits (it reads nvcc's SASS): optional (banksim
# falls back to clang's widths and says so), part of the CUDA toolkit, but some nvcc installs lack
# it. As root, NVIDIA's own wheel from PyPI (nvidia-cuda-nvdisasm, nvcc's major version) puts it
# in /usr/local/bin; otherwise the command to do so is printed.
nvdisasm_step() {
  have_cmd nvcc || return 0
  have_cmd nvdisasm && return 0
  local top major dir
  top=$(dirname "$(readlink -f "$(command -v nvcc)")")
  [ -x "$top/nvdisasm" ] && return 0
  major=$(nvcc --version | grep -o 'release [0-9]*' | grep -o '[0-9]*$' || true)
  [ -n "$major" ] || return 0
  if [ "$(id -u)" -ne 0 ] || [ "$dry_run" -eq 1 ]; then
    echo "deps.sh: optional: nvdisasm (banksim then counts nvcc's access widths, not clang's):" >&2
    echo "  python3 -m pip download --no-deps --only-binary=:all: -d /tmp/nvd 'nvidia-cuda-nvdisasm==$major.*' && sudo unzip -j -o /tmp/nvd/*.whl '*/bin/nvdisasm' -d /usr/local/bin" >&2
    return 0
  fi
  dir=$(mktemp -d)
  if python3 -m pip download -q --timeout 5 --retries 0 --no-deps --only-binary=:all: -d "$dir" "nvidia-cuda-nvdisasm==$major.*" >/dev/null 2>&1 &&
    python3 - "$dir" <<'PY'
import glob, os, sys, zipfile
whl = glob.glob(os.path.join(sys.argv[1], "*.whl"))[0]
with zipfile.ZipFile(whl) as z:
    name = next(n for n in z.namelist() if n.endswith("/bin/nvdisasm"))
    with z.open(name) as src, open("/usr/local/bin/nvdisasm", "wb") as dst:
        dst.write(src.read())
os.chmod("/usr/local/bin/nvdisasm", 0o755)
PY
  then
    echo "deps.sh: installed nvdisasm ($(/usr/local/bin/nvdisasm --version | tail -1)) from PyPI into /usr/local/bin" >&2
  else
    if have_pip; then
      echo "deps.sh: could not fetch nvidia-cuda-nvdisasm from PyPI: banksim will count clang's access widths" >&2
    else
      echo "deps.sh: no pip to fetch nvidia-cuda-nvdisasm from PyPI (apt-get install python3-pip, then run this again): banksim will count clang's access widths" >&2
    fi
  fi
  rm -rf "$dir"
}
# Where pip is among the packages this run installs, nvdisasm is fetched after them (below).
pip_comes=0
[[ " ${missing[*]} " == *" python3-pip "* ]] && [ "$(id -u)" -eq 0 ] && [ "$dry_run" -eq 0 ] && pip_comes=1
case "$target" in test | grade | build | bench | docs | all) [ $pip_comes -eq 1 ] || nvdisasm_step ;; esac
# make test compares banksim with what nvcc emits: without the toolkit those tests fail. Not in
# any distribution's main archive, so named, not installed, and not a reason to stop.
case "$target" in test | all)
  have_cmd nvcc || echo "deps.sh: no nvcc on the PATH: make test's tests that compare with nvcc will fail (\"nvcc not found\"); install the CUDA toolkit (12.x or 13.x, no GPU needed) and put its bin/ on the PATH" >&2 ;;
esac
# pagefind_bin with pip, once pip is there: as root into the Python that builds the site (Debian's
# own Python refuses pip's installs unless told --break-system-packages); otherwise the command.
pagefind_step() {
  have_pagefind && return 0
  have_pip || return 0  # apt-get brings pip first (python3-pip is in the list)
  if [ "$(id -u)" -ne 0 ] || [ "$dry_run" -eq 1 ]; then
    echo "deps.sh: missing for the site's search: $python -m pip install pagefind_bin" >&2
    return 1
  fi
  "$python" -m pip install -q pagefind_bin >/tmp/deps-pip.log 2>&1 ||
    "$python" -m pip install -q --break-system-packages pagefind_bin >>/tmp/deps-pip.log 2>&1 || true
  if have_pagefind; then
    echo "deps.sh: installed pagefind_bin from PyPI (the site's search index)" >&2
    return 0
  fi
  tail -5 /tmp/deps-pip.log >&2
  echo "deps.sh: could not install pagefind_bin from PyPI (log /tmp/deps-pip.log): $python -m pip install pagefind_bin" >&2
  return 1
}
pagefind_status=0
case "$target" in docs | test | all) pagefind_step || pagefind_status=1 ;; esac

[ ${#missing[@]} -eq 0 ] && [ ${#unavailable[@]} -eq 0 ] && exit $pagefind_status
[ ${#missing[@]} -eq 0 ] && exit 1

if [ "$(id -u)" -ne 0 ] || [ "$dry_run" -eq 1 ]; then
  echo "Missing for 'make $target' on $os_id. Install with:" >&2
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
# On a fresh machine pip came with the packages just installed: nvdisasm can be fetched now.
[ $pip_comes -eq 1 ] && nvdisasm_step
case "$target" in docs | test | all) pagefind_step || exit 1 ;; esac
[ ${#unavailable[@]} -eq 0 ]
