#!/bin/bash
# run.sh - the hybrid page's runs (../2026-12-03-hybrid.md): the class-scale script, which grew
# from this one and does all it did (same PARTs, DEADLINE, CLASS_N, CLASS_JOBS), with this page's
# `--jobs 8` for solutions/. Where .gpu-regions is not carried, banksim runs with fibers, as in
# this page's first call. The script as it ran then is in git history.
exec env SOL_JOBS="${SOL_JOBS:-8}" bash "$(dirname "$0")/../2026-12-03-class-scale/run.sh" "$@"
