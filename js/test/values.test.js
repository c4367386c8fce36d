// @ts-check
// Every cell of every timestep at every level equals the Python reader's read_cell, for every
// fixture store (dtypes, encodings, sharded and not, codecs, mask, coverage, a v0.1 root); the
// star-delta schedule is the one the Python writer recorded in the root zarr.json.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openStore } from '../src/index.js';
import { crop, expectedArray, fixtures, serve } from './helpers.js';

const fx = fixtures();

/**
 * The anchor each timestep decodes through, as the writer recorded it (chronozarr.temporal of the
 * root zarr.json: delta_reference, anchors not listed), null for true values.
 * @param {string} name a v0.2 fixture store
 */
function writtenReferences(name) {
  const temporal = JSON.parse(readFileSync(join(fx.stores, name, 'zarr.json'), 'utf8')).attributes.chronozarr.temporal;
  return fx.index[name].times.map((_, t) => temporal?.delta_reference?.[String(t)] ?? null);
}

/** @param {import('./helpers.js').Store} store @param {string} name @param {{ planes?: boolean }} [o] */
async function compareAll(store, name, { planes = true } = {}) {
  const info = fx.index[name];
  const buffer = fx.expected(name);
  let compared = 0;
  for (const entry of info.entries) {
    const [kind, lod, t, row, col, , shape] = entry;
    const expected = expectedArray(buffer, kind === 'data' ? info.dtype : 'uint8', entry);
    const level = store.levels[lod];
    const cs = level.chunkSize;
    let got;
    if (kind === 'data') {
      const cell = await store.getCell(lod, row, col, t);
      assert.equal(cell.chunkWidth, cs);
      assert.equal(cell.data.length, store.bands.length * cs * cs);
      got = crop(cell.data, shape[0], cs, shape[1], shape[2]);
      if (store.hasMask) {
        const mask = await store.getMask(lod, row, col, t);
        assert.ok(mask, 'a store with a mask has a mask plane');
        assert.deepEqual(cell.mask, mask.data);
      } else assert.equal(cell.mask, undefined);
    } else {
      if (!planes) continue;
      const plane = kind === 'mask' ? await store.getMask(lod, row, col, t) : await store.getCoverage(lod, row, col, t);
      assert.ok(plane, `the Python reader read a ${kind} plane`);
      got = crop(plane.data, 1, cs, shape[0], shape[1]);
      // Python's coverage is uint8 on disk; compare as numbers.
    }
    assert.deepEqual(Array.from(got), Array.from(expected), `${name} ${kind} lod ${lod} t ${t} cell ${row},${col}`);
    compared++;
  }
  return compared;
}

describe('every cell equals the Python reader, from disk', () => {
  for (const name of Object.keys(fx.index)) {
    test(name, async () => {
      const store = await openStore(join(fx.stores, name));
      try {
        const info = fx.index[name];
        assert.equal(store.dtype, info.dtype);
        assert.equal(store.encoding, info.encoding);
        assert.deepEqual([...store.times], info.times);
        if (!name.startsWith('v01')) assert.deepEqual(info.times.map((_, t) => store.referenceOf(t)), writtenReferences(name));
        assert.deepEqual([...store.bands], info.bands.map((b) => b.name));
        assert.equal(store.hasMask, info.hasMask);
        assert.equal(store.hasCoverage, info.hasCoverage);
        assert.equal(store.nodata, info.nodata);
        assert.equal(store.levels.length, info.levels.length);
        store.levels.forEach((level, i) => {
          const expected = info.levels[i];
          assert.deepEqual([level.gridRows, level.gridCols], expected.grid);
          assert.deepEqual([level.height, level.width], expected.shape.slice(2));
          assert.equal(level.chunkSize, expected.chunkSize);
          assert.equal(level.resolution, expected.resolution);
          assert.deepEqual([...level.transform], expected.transform);
        });
        const compared = await compareAll(store, name);
        assert.equal(compared, info.entries.length);
      } finally {
        store.close();
      }
    });
  }

  test('a v0.1 root reads band strings as names with scale 0.0001 and its levels from per-level documents', async () => {
    const store = await openStore(join(fx.stores, 'v01-sd-shard'));
    try {
      assert.equal(store.specVersion, '0.1.0');
      assert.deepEqual(store.attrs.bands.map((b) => [b.name, b.scale, b.offset]), [['B0', 0.0001, 0], ['B1', 0.0001, 0]]);
      assert.deepEqual([...store.bandNames], ['B0', 'B1']);
      assert.equal(store.hasMask, false);
      assert.ok(store.stats().gets > 1, 'per-level zarr.json documents were read');
    } finally {
      store.close();
    }
  });

  test('readPixel gives one pixel\'s bands, row first; samplePixel, deprecated, column first', async () => {
    const name = 'u16-sd-plain-zstd';
    const store = await openStore(join(fx.stores, name));
    try {
      const info = fx.index[name];
      const buffer = fx.expected(name);
      const entry = info.entries.find((e) => e[0] === 'data' && e[1] === 0 && e[2] === 4 && e[3] === 1 && e[4] === 2);
      assert.ok(entry, 'fixtures.py read that cell');
      const expected = expectedArray(buffer, info.dtype, entry);
      const [, h, w] = entry[6];
      const x = 2 * 16 + 5;
      const y = 16 + 7;
      const pixel = await store.readPixel(0, y, x, 4);
      assert.deepEqual(Array.from(pixel), [expected[7 * w + 5], expected[h * w + 7 * w + 5]]);
      await assert.rejects(store.readPixel(0, 0, 45, 0), RangeError);
      assert.deepEqual(Array.from(await store.samplePixel(0, x, y, 4)), Array.from(pixel));
    } finally {
      store.close();
    }
  });
});

describe('over HTTP (chronozarr serve)', () => {
  /** @type {import('./helpers.js').Server} */
  let server;
  before(async () => {
    server = await serve(fx.stores);
  });
  after(async () => {
    await server?.stop();
  });
  for (const name of ['u16-sd-shard-zstd', 'u8-none-shard-gzip', 'i16-none-plain-blosc', 'v01-sd-shard']) {
    test(name, async () => {
      const store = await openStore(`${server.url}/${name}`);
      try {
        await compareAll(store, name);
      } finally {
        store.close();
      }
    });
  }
});

describe('with decode workers (worker threads)', () => {
  for (const name of ['u16-sd-shard-zstd', 'u8-sd-plain-blosc', 'u16-none-plain-gzip', 'f32-none-shard-zstd']) {
    test(name, async () => {
      const store = await openStore(join(fx.stores, name), { workers: 2 });
      try {
        await compareAll(store, name, { planes: false });
        assert.equal(store.stats().workers, 2);
      } finally {
        store.close();
      }
      assert.equal(store.stats().workers, 0);
    });
  }
});

test('with decode workers, the stored and the true values of a delta timestep read at once share one chunk read and both decode', { timeout: 30_000 }, async () => {
  // The viewer's playback buffers stored cells (residuals) while the pixel history reads true
  // values of the same cells: both wait on one read of the compressed chunk, and the bytes one
  // decode lends to a worker must come back before the other decode takes them.
  const name = 'u16-sd-plain-zstd';
  const store = await openStore(join(fx.stores, name), { workers: 2 });
  try {
    await store.getCell(0, 0, 0, 0); // starts the workers
    for (let i = 0; i < 2000 && store.stats().workersReady < 1; i++) await new Promise((r) => setTimeout(r, 5));
    assert.ok(store.stats().workersReady >= 1, 'a decode worker is ready');
    const info = fx.index[name];
    const buffer = fx.expected(name);
    const references = writtenReferences(name);
    const deltas = info.entries.filter(([kind, lod, t]) => kind === 'data' && lod === 0 && references[t] != null);
    assert.ok(deltas.length > 0);
    for (const entry of deltas) {
      const [, lod, t, row, col, , shape] = entry;
      const [residual, truth] = await Promise.all([store.getCell(lod, row, col, t, { stored: true }), store.getCell(lod, row, col, t)]);
      const cs = store.levels[lod].chunkSize;
      assert.equal(residual.anchor, references[t]);
      assert.deepEqual(Array.from(crop(truth.data, shape[0], cs, shape[1], shape[2])), Array.from(expectedArray(buffer, info.dtype, entry)), `t ${t} cell ${row},${col}`);
    }
  } finally {
    store.close();
  }
});
