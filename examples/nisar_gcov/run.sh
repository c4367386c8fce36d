#!/bin/sh
# Synthetic NISAR L2 GCOV products made into one store, step by step as README.md explains.
# Usage: sh run.sh [OUT_DIR]   (PYTHON picks the interpreter; `chronozarr` must be on PATH)
set -eu
OUT=${1:-nisar}
HERE=$(dirname "$0")
"${PYTHON:-python}" "$HERE/make_inputs.py" "$OUT/products"
chronozarr convert "$OUT/products/NISAR_L2_PR_GCOV_*.h5" "$OUT/store" \
    --group /science/LSAR/GCOV/grids/frequencyA --variables HHHH,HVHV \
    --time-from /science/LSAR/identification/zeroDopplerStartTime --chunk-size 32
chronozarr validate "$OUT/store"
chronozarr info "$OUT/store"
