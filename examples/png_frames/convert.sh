#!/usr/bin/env bash
# The worked example end to end: the frames rendered (PNG + world file + manifest), converted,
# validated, checked bit for bit against the frames, and opened in the viewer headless (when
# Debian's Chromium is there) to read clicked pixels back.
#
#   examples/png_frames/convert.sh [WORK_DIR]      # a new directory (default: a temporary one)
#
# CHRONOZARR_PYTHON names the Python that has chronozarr[geo] (default python3).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=${1:-$(mktemp -d -t chronozarr-png-XXXXXX)}
python=${CHRONOZARR_PYTHON:-python3}
export CHRONOZARR_PYTHON=$python
chronozarr() { "$python" -c "import sys; from chronozarr.cli import main; sys.argv[0] = 'chronozarr'; sys.exit(main())" "$@"; }

manifest=$("$python" "$here/render_frames.py" "$work/frames")
chronozarr convert "$manifest" "$work/png-1" --crs EPSG:32718 --chunk-size 64
chronozarr validate "$work/png-1"
"$python" "$here/check_store.py" "$work/png-1" "$manifest"
if [ -x /usr/bin/chromium ]; then
  # 2019-02 (timestep 1): two pixels of the river reach, two under its unfilled cloud (alpha 0)
  node "$here/viewer_check.mjs" "$work/png-1" --t 1 --pixels 10,10 50,50 90,20 100,30
else
  echo "no /usr/bin/chromium: the viewer check is skipped"
fi
