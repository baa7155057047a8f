#!/usr/bin/env bash
# gpu-carry.sh - fills, on this Debian 12 machine, the git-ignored folders a GPU measurement call
# carries to the bare, offline GPU box (gpu-box-setup.sh unpacks them there):
#   .gpu-debs    the course's libraries (Debian 12 builds run on Ubuntu 24.04's newer glibc)
#   .gpu-extra   bubblewrap, the sandbox
#   .gpu-clang   clang-14 as `apt-get install clang-14` brings it, and llvm-14's llvm-symbolizer
#                alone (llvm-symbolizer-14.tar: the whole llvm-14 deb, 12 MB, would pass the
#                call's 64 MiB limit with the rest)
# .gpu-regions (banksim's region pass, built here) comes from `make regions-plugin`.
# Run from the course's root; needs apt-get's lists (`apt-get update` once) and the network.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p .gpu-debs .gpu-extra .gpu-clang
(cd .gpu-debs && apt-get download libfmt-dev libfmt9 libcli11-dev nlohmann-json3-dev \
  libtoml11-dev libboost1.74-dev libboost-context1.74-dev libboost-context1.74.0 \
  libbenchmark-dev libbenchmark1debian)
(cd .gpu-extra && apt-get download bubblewrap)
(cd .gpu-clang && apt-get download clang-14 libclang-cpp14 libllvm14 libclang-common-14-dev \
  libclang-rt-14-dev lld-14)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get download llvm-14 && dpkg -x llvm-14_*.deb root)
tar -C "$tmp/root" -cf .gpu-clang/llvm-symbolizer-14.tar \
  usr/lib/llvm-14/bin/llvm-symbolizer usr/bin/llvm-symbolizer-14
du -sh .gpu-debs .gpu-extra .gpu-clang
