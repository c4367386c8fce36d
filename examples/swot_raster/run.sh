#!/bin/sh
# Synthetic SWOT L2_HR_Raster granules made into one store, step by step as README.md explains.
# Usage: sh run.sh [OUT_DIR]   (PYTHON picks the interpreter; `chronozarr` must be on PATH)
set -eu
OUT=${1:-swot}
HERE=$(dirname "$0")
"${PYTHON:-python}" "$HERE/make_inputs.py" "$OUT/granules"
chronozarr convert "$OUT/granules/SWOT_L2_HR_Raster_*.nc" "$OUT/store" \
    --variables wse,water_frac --mask-variable wse_qual --mask-valid 0,1 --chunk-size 32
chronozarr validate "$OUT/store"
chronozarr info "$OUT/store"
