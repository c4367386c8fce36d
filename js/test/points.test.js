// @ts-check
// One pixel read by the JS reader as the Python reader reads it: readPoint(row, col, { lod, times })
// is Python's read_point(row, col, lod, times) (row first, a [time][band] history), and
// samplePixel(lod, x, y, t) names the same pixel column first.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { openStore } from '../src/index.js';
import { fixtures, python } from './helpers.js';

const fx = fixtures();

/** Python's read_point of a fixture store. @param {string} path @param {number} row @param {number} col @param {number} lod @returns {number[][]} */
function pythonPoint(path, row, col, lod) {
  const script = 'import json, sys, chronozarr\nwith chronozarr.open_store(sys.argv[1]) as s:\n    print(json.dumps(s.read_point(*map(int, sys.argv[2:5])).tolist()))';
  const run = spawnSync(python, ['-c', script, path, String(row), String(col), String(lod)], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout);
}

for (const name of ['u16-sd-plain-zstd', 'f32-none-shard-zstd']) {
  test(`readPoint is Python's read_point, and samplePixel takes the same pixel column first: ${name}`, async () => {
    const path = join(fx.stores, name);
    const store = await openStore(path, { workers: 0 });
    try {
      for (const [row, col, lod] of [[20, 30, 0], [3, 17, 1]]) {
        const want = pythonPoint(path, row, col, lod);
        const got = await store.readPoint(row, col, { lod });
        assert.deepEqual(got.map((bands) => [...bands]), want);
        const t = store.times.length - 1;
        assert.deepEqual([...(await store.samplePixel(lod, col, row, t))], want[t]);
        const some = await store.readPoint(row, col, { lod, times: [t, 0] });
        assert.deepEqual(some.map((bands) => [...bands]), [want[t], want[0]]);
      }
      await assert.rejects(store.readPoint(37, 0), RangeError); // level 0 is 37 rows high
    } finally {
      store.close();
    }
  });
}
