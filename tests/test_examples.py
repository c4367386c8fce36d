"""The examples run end to end as a user runs them: the water-mask scripts as commands, and the
leafmap notebook executed in a real Jupyter kernel (nbclient, ipykernel)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import nbformat
import numpy as np
import pytest
from nbclient import NotebookClient

import chronozarr

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(chronozarr.__file__).parents[1]), os.environ.get("PYTHONPATH", "")])}


def _run(*args: str | Path) -> str:
    run = subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True, env=ENV, timeout=300)
    assert run.returncode == 0, run.stderr
    return run.stdout


def test_water_masks_build_and_check(tmp_path: Path) -> None:
    store = Path(_run(EXAMPLES / "water_masks" / "build_water_stack.py", tmp_path).strip())
    out = _run(EXAMPLES / "water_masks" / "check_water_stack.py", store)
    assert "ndwi 0.0001 0 'index', water 0.0001 0 'fraction'" in out and out.rstrip().endswith("ok")
    # the CSV against the stored level 0, read without chronozarr's xarray path
    rows = (tmp_path / "water-1.months.csv").read_text().splitlines()[1:]
    with chronozarr.open_store(store) as s:
        for t, row in enumerate(rows):
            water, mask = s.read(t)[1], s.read_mask(t)
            assert float(row.split(",")[3]) == round(float((water[mask == 1] == 10000).mean()), 4)
            assert np.all(water[mask == 0] == 0)


def test_leafmap_notebook_runs_in_a_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    notebook = nbformat.read(EXAMPLES / "leafmap" / "demo.ipynb", as_version=4)
    monkeypatch.setenv("PYTHONPATH", ENV["PYTHONPATH"])  # the kernel inherits it
    NotebookClient(notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(EXAMPLES / "leafmap")}}).execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    widget = next(o for o in outputs if o.output_type in ("display_data", "execute_result") and "application/vnd.jupyter.widget-view+json" in o.data)
    assert widget.data["application/vnd.jupyter.widget-view+json"]["model_id"]
    texts = [o.get("text", "") or o.get("data", {}).get("text/plain", "") for o in outputs]
    assert "200 *\n" in texts and texts[-1] == "3"
