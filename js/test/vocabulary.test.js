// @ts-check
// One vocabulary across the readers (docs/api.md): the same (t, row, col, lod) names the same
// pixel and cell in Python and JS. Python writes the fixture stores (fixtures.py) and reads them
// with read_cell, read_pixel, read_point and attrs.bands in a subprocess; the JS reader reads the
// same store with getCell, readPixel, readPoint and attrs.bands, and the answers must agree. The
// description must agree too, in the forms each side gained from the other (timesIso/times_iso,
// grid/grid_rows, shape, anchors and references, levelForResolution, rootAttrs, stats()).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { openStore } from '../src/index.js';
import { fixtures, python } from './helpers.js';

const fx = fixtures();

const SCRIPT = `
import json, sys, chronozarr
t, row, col, lod = map(int, sys.argv[2:6])
with chronozarr.open_store(sys.argv[1]) as s:
    cr, cc = row // s.levels[lod].chunk_size, col // s.levels[lod].chunk_size
    print(json.dumps({
        "cell": s.read_cell(t, cr, cc, lod).tolist(),
        "pixel": s.read_pixel(t, row, col, lod).tolist(),
        "point": s.read_point(row, col, lod).tolist(),
        "bands": [[b.name, b.scale, b.offset] for b in s.attrs.bands],
        "times": s.times_iso,
        "grid": list(s.levels[lod].grid),
        "grid_rows_cols": [s.levels[lod].grid_rows, s.levels[lod].grid_cols],
        "shape": list(s.levels[lod].shape),
        "anchors": s.anchor_indices,
        "references": [s.reference_of(k) for k in range(len(s.times))],
        "for_resolution": {str(r): s.level_for_resolution(r) for r in [0.5 * s.levels[0].resolution] + [1.5 * l.resolution for l in s.levels]},
        "root_attrs": dict(s.root_attrs),
        "stats": s.stats(),
    }))
`;

/** What the Python reader reads at (t, row, col, lod). @param {string} path @param {number[]} at */
function pythonReads(path, at) {
  const run = spawnSync(python, ['-c', SCRIPT, path, ...at.map(String)], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout);
}

for (const name of ['u16-sd-plain-zstd', 'f32-none-shard-zstd']) {
  test(`the same (t, row, col, lod) is the same pixel and cell in both readers: ${name}`, async () => {
    const path = join(fx.stores, name);
    const store = await openStore(path, { workers: 0 });
    try {
      for (const [t, row, col, lod] of [[3, 20, 30, 0], [0, 36, 2, 0], [6, 3, 17, 1]]) {
        const py = pythonReads(path, [t, row, col, lod]);
        const level = store.levels[lod];
        const [cr, cc] = [Math.floor(row / level.chunkSize), Math.floor(col / level.chunkSize)];
        assert.deepEqual([...(await store.readPixel(lod, row, col, t))], py.pixel);
        assert.deepEqual((await store.readPoint(row, col, { lod })).map((b) => [...b]), py.point);
        assert.deepEqual(py.point[t], py.pixel);
        // getCell's padded chunk, cropped to the array, is read_cell's (band, y, x)
        const cell = await store.getCell(lod, cr, cc, t);
        const [h, w] = [py.cell[0].length, py.cell[0][0].length];
        assert.deepEqual([cell.height, cell.width], [h, w]);
        /** @param {number} b @param {number} y @param {number} x */
        const at = (b, y, x) => cell.data[(b * cell.chunkHeight + y) * cell.chunkWidth + x];
        const cropped = py.cell.map((/** @type {unknown} */ _, /** @type {number} */ b) => Array.from({ length: h }, (_, y) => Array.from({ length: w }, (_, x) => at(b, y, x))));
        assert.deepEqual(cropped, py.cell);
        assert.deepEqual(store.attrs.bands.map((/** @type {any} */ b) => [b.name, b.scale, b.offset]), py.bands);
        assert.deepEqual([...store.times], py.times);
        assert.deepEqual([level.gridRows, level.gridCols], py.grid);
        // the forms added so each side has the other's: timesIso, grid and shape, anchor schedule,
        // level for a resolution, every root attribute, stats() under the same names
        assert.deepEqual([...store.timesIso], py.times);
        assert.deepEqual([...level.grid], py.grid_rows_cols);
        assert.deepEqual([...level.shape], py.shape);
        assert.deepEqual([store.times.length, store.bands.length, level.height, level.width], py.shape);
        assert.deepEqual([...store.anchorIndices], py.anchors);
        assert.deepEqual(store.times.map((_, k) => store.referenceOf(k)), py.references);
        for (const [r, lodPy] of Object.entries(py.for_resolution)) {
          const finest = store.levels.filter((l) => l.resolution <= Number(r)).map((l) => l.index);
          assert.equal(lodPy, finest.length ? Math.max(...finest) : 0);
          assert.equal(store.levelForResolution(Number(r)), lodPy);
        }
        assert.deepEqual(JSON.parse(JSON.stringify(store.rootAttrs)), py.root_attrs);
        assert.equal(store.rootAttrs.chronozarr.spec_version, /** @type {any} */ (store.attrs).spec_version);
        const jsStats = /** @type {Record<string, unknown>} */ (store.stats());
        for (const key of Object.keys(py.stats)) {
          const camel = key.replace(/_([a-z])/g, (_, c) => c.toUpperCase());
          assert.equal(typeof jsStats[camel], 'number', `stats().${camel}`);
          assert.equal(typeof py.stats[key], 'number');
        }
        assert.ok(py.stats.requests > 0 && py.stats.requests === py.stats.gets + py.stats.ranges + py.stats.suffixes + py.stats.heads);
      }
    } finally {
      store.close();
    }
  });
}
