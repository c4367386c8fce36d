// @ts-check
// getCell(..., { stored: true }): the values as stored (residuals for star-delta timesteps), against
// zarr-python's raw read of `{L}/data`, and (anchor + residual) mod 2^bits against chronozarr.open_store.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { openStore } from '../src/index.js';
import { fixtures, python } from './helpers.js';

const fx = fixtures();

/** Python's raw stored chunk and reconstructed chunk of (lod, row, col, t), cropped to the level. */
/**
 * @param {string} path @param {number} lod @param {number} row @param {number} col @param {number} t @param {number} cs
 * @returns {{ raw: number[][][], true: number[][][] }}
 */
function pythonChunks(path, lod, row, col, t, cs) {
  const script = `
import json, sys, numpy as np, zarr, chronozarr
path, lod, row, col, t, cs = sys.argv[1], *map(int, sys.argv[2:7])
ys, xs = slice(row * cs, (row + 1) * cs), slice(col * cs, (col + 1) * cs)
raw = np.asarray(zarr.open_group(path, mode='r')[f'{lod}/data'][t])[:, ys, xs]
with chronozarr.open_store(path) as s:
    true = np.asarray(s.read(t, lod=lod))[:, ys, xs]
print(json.dumps({'raw': raw.astype(int).tolist(), 'true': true.astype(int).tolist()}))
`;
  const run = spawnSync(python, ['-c', script, path, ...[lod, row, col, t, cs].map(String)], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout);
}

/** @param {import('./helpers.js').TypedArray} data @param {number} b @param {number} cs @param {number} h @param {number} w */
const cropBand = (data, b, cs, h, w) => Array.from({ length: h }, (_, y) => Array.from(data.subarray(b * cs * cs + y * cs, b * cs * cs + y * cs + w)));

describe('getCell stored: true', () => {
  for (const name of ['u16-sd-plain-zstd', 'u8-sd-plain-blosc', 'u16-sd-shard-blosc']) {
    test(name, async () => {
      const path = join(fx.stores, name);
      const store = await openStore(path);
      try {
        assert.equal(store.encoding, 'star-delta');
        const lod = 0;
        const cs = store.levels[lod].chunkSize;
        const deltas = store.times.map((_, t) => t).filter((t) => store.referenceOf(t) != null);
        const anchors = store.times.map((_, t) => t).filter((t) => store.referenceOf(t) == null);
        assert.ok(deltas.length && anchors.length);
        const bits = store.dtype === 'uint8' ? 0xff : 0xffff;
        for (const t of [deltas[0], deltas[deltas.length - 1], anchors[anchors.length - 1]]) {
          const row = store.levels[lod].gridRows - 1;
          const col = 0;
          const cell = await store.getCell(lod, row, col, t, { stored: true });
          const py = pythonChunks(path, lod, row, col, t, cs);
          const h = py.raw[0].length;
          const w = py.raw[0][0].length;
          assert.equal(cell.height, h);
          assert.equal(cell.width, w);
          assert.equal(cell.anchor, store.referenceOf(t));
          for (let b = 0; b < store.bands.length; b++) assert.deepEqual(cropBand(cell.data, b, cs, h, w), py.raw[b], `t ${t} band ${b}: stored values`);
          // Exact reconstruction with wraparound gives what open_store reads; the default getCell is unchanged.
          const plain = await store.getCell(lod, row, col, t);
          assert.equal(plain.anchor, undefined);
          if (cell.anchor != null) {
            const a = await store.getCell(lod, row, col, cell.anchor, { stored: true });
            assert.equal(a.anchor, null);
            const rebuilt = cell.data.map((r, i) => (a.data[i] + r) & bits);
            assert.notDeepEqual(Array.from(cell.data), Array.from(plain.data));
            for (let b = 0; b < store.bands.length; b++) assert.deepEqual(cropBand(rebuilt, b, cs, h, w), py.true[b], `t ${t} band ${b}: reconstructed`);
          } else {
            assert.deepEqual(Array.from(cell.data), Array.from(plain.data));
          }
          for (let b = 0; b < store.bands.length; b++) assert.deepEqual(cropBand(plain.data, b, cs, h, w), py.true[b], `t ${t} band ${b}: default getCell`);
        }
        const run = await store.prefetch({ lod, cells: [[0, 0]], t: deltas[0], stored: true });
        assert.equal(run.failed, 0);
      } finally {
        store.close();
      }
    });
  }
});
