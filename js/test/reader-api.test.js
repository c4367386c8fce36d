// @ts-check
// The reader's public API as the reference documents it: the named exports (ChronoStore, scrubCost,
// samplePixelFrom), openStore's options (unknown ones refused, decodedBytes, spawnWorker,
// shardIndexBytes), checked against the values the Python reader read and against hand-worked numbers.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Worker as NodeWorker } from 'node:worker_threads';
import { ChronoStore, StoreError, openStore, samplePixelFrom, scrubCost } from '../src/index.js';
import { expectedArray, fixtures } from './helpers.js';

const fx = fixtures();

/**
 * The Python reader's cropped [band][y][x] values of one data entry of a fixture store.
 * @param {string} name @param {number} lod @param {number} t @param {number} row @param {number} col
 */
function pythonCell(name, lod, t, row, col) {
  const info = fx.index[name];
  const entry = info.entries.find((e) => e[0] === 'data' && e[1] === lod && e[2] === t && e[3] === row && e[4] === col);
  assert.ok(entry, `fixtures.py wrote no entry for ${name} ${lod}/${t}/${row}/${col}`);
  const [bands, height, width] = entry[6];
  return { values: expectedArray(fx.expected(name), info.dtype, entry), bands, height, width };
}

/** Bytes of one decoded data chunk of a level. @param {import('./helpers.js').Store} store */
const chunkBytes = (store) => store.bands.length * store.levels[0].chunkSize ** 2 * { uint8: 1, uint16: 2, int16: 2, float32: 4 }[store.dtype];

describe('ChronoStore', () => {
  test('every open store is a ChronoStore, and ChronoStore.open opens one', async () => {
    const store = await ChronoStore.open(join(fx.stores, 'u16-none-plain-gzip'));
    try {
      assert.ok(store instanceof ChronoStore);
      assert.deepEqual(store.times, fx.index['u16-none-plain-gzip'].times);
      assert.equal(typeof store.getCell, 'function');
    } finally {
      store.close();
    }
  });

  test('new ChronoStore() is refused: a store is opened, not built', () => {
    assert.throws(() => new ChronoStore(), StoreError);
  });
});

describe('openStore options', () => {
  test('an unknown option is a RangeError naming it', async () => {
    await assert.rejects(openStore(join(fx.stores, 'u16-none-plain-gzip'), /** @type {any} */ ({ maxRequest: 4 })), (err) => err instanceof RangeError && /maxRequest\b/.test(err.message));
  });

  test('decodedBytes bounds the decoded tier alone; the compressed tier keeps every chunk', async () => {
    const name = 'i16-none-plain-blosc';
    const probe = await openStore(join(fx.stores, name), { workers: 0 });
    const bound = 2 * chunkBytes(probe);
    probe.close();
    const store = await openStore(join(fx.stores, name), { workers: 0, decodedBytes: bound, totalBytes: 64 * bound });
    try {
      const cells = [];
      for (let t = 0; t < store.times.length; t++) cells.push([t, 0, 0]);
      for (const [t, row, col] of cells) {
        const cell = await store.getCell(0, row, col, t);
        const want = pythonCell(name, 0, t, row, col);
        assert.equal(cell.data[0], want.values[0]);
        assert.ok(store.stats().decodedBytes <= bound, `decoded ${store.stats().decodedBytes} > ${bound}`);
      }
      assert.ok(store.stats().compressedBytes > 0);
      const before = store.stats().requests;
      await store.getCell(0, 0, 0, 0); // evicted decoded, still compressed: decoded again, not fetched
      assert.equal(store.stats().requests, before);
    } finally {
      store.close();
    }
  });

  test('a decodedBytes above the default budget raises the budget to it', async () => {
    const store = await openStore(join(fx.stores, 'i16-none-plain-blosc'), { workers: 0, decodedBytes: 8 * 2 ** 30 });
    try {
      assert.equal(store.stats().totalBytes, 8 * 2 ** 30);
    } finally {
      store.close();
    }
  });

  test('spawnWorker makes the decode workers, which then decode the cells', async () => {
    const name = 'u16-none-plain-gzip';
    let spawned = 0;
    const spawnWorker = () => {
      spawned++;
      return new NodeWorker(new URL('../src/reader/decode-worker.js', import.meta.url));
    };
    const store = await openStore(join(fx.stores, name), { workers: 1, spawnWorker });
    try {
      for (let i = 0; i < 200 && store.stats().workersReady < 1; i++) await new Promise((r) => setTimeout(r, 25));
      assert.equal(store.stats().workersReady, 1);
      const cell = await store.getCell(0, 0, 1, 1);
      const want = pythonCell(name, 0, 1, 0, 1);
      assert.equal(spawned, 1);
      assert.ok(store.stats().workerDecodes > 0);
      const got = samplePixelFrom(cell.data, { nBand: want.bands, chunkWidth: cell.chunkWidth, chunkHeight: cell.chunkHeight }, 3, 2);
      assert.deepEqual([...got], Array.from({ length: want.bands }, (_, b) => want.values[(b * want.height + 2) * want.width + 3]));
    } finally {
      store.close();
    }
  });

  test('shardIndexBytes bounds the shard-index cache however many shards are read', async () => {
    const name = 'u16-sd-shard-zstd'; // shard_time 2: a shard per cell and pair of timesteps
    const store = await openStore(join(fx.stores, name), { workers: 0, shardIndexBytes: 100 });
    try {
      const lvl = store.levels[0];
      let read = 0;
      for (let t = 0; t < store.times.length; t += 2) {
        for (let row = 0; row < lvl.gridRows; row++) {
          for (let col = 0; col < lvl.gridCols; col++) {
            const cell = await store.getCell(0, row, col, t, { mask: false });
            assert.equal(cell.data[0], pythonCell(name, 0, t, row, col).values[0]);
            read++;
            assert.ok(store.stats().shardIndexBytes <= 100, `${store.stats().shardIndexBytes} bytes of indexes`);
          }
        }
      }
      assert.ok(read > 3 && store.stats().shardIndexes < read, `${store.stats().shardIndexes} indexes kept of ${read} shards`);
    } finally {
      store.close();
    }
  });
});

describe('scrubCost', () => {
  test('ahead costs the distance, behind twice it by default', () => {
    assert.equal(scrubCost(3, 1), 3);
    assert.equal(scrubCost(-3, 1), 6);
    assert.equal(scrubCost(-3, -1), 3);
    assert.equal(scrubCost(3, -1, 4), 12);
    assert.equal(scrubCost(0, 1), 0);
  });

  test('in a loop, a step behind is also the rest of the loop ahead', () => {
    assert.equal(scrubCost(9, 1, 2, 10), 2); // one behind round the loop: 1 x 2
    assert.equal(scrubCost(-1, 1, 2, 10), 2);
    assert.equal(scrubCost(-1, 1, 20, 10), 9); // behind is dear: nine ahead round the loop
    assert.equal(scrubCost(2, 1, 2, 10), 2);
    assert.equal(scrubCost(12, 1, 2, 10), 2);
  });
});

describe('samplePixelFrom', () => {
  test('the bands of one pixel of a cell, as the Python reader read them', async () => {
    const name = 'f32-none-shard-zstd';
    const store = await openStore(join(fx.stores, name), { workers: 0 });
    try {
      const cell = await store.getCell(0, 0, 0, 0);
      const want = pythonCell(name, 0, 0, 0, 0);
      const shape = { nBand: store.bands.length, chunkWidth: cell.chunkWidth, chunkHeight: cell.chunkHeight };
      for (const [x, y] of [[0, 0], [want.width - 1, want.height - 1], [5, 7]]) {
        const got = samplePixelFrom(cell.data, shape, x, y);
        assert.ok(got instanceof Float32Array);
        assert.deepEqual([...got], Array.from({ length: want.bands }, (_, b) => want.values[(b * want.height + y) * want.width + x]));
      }
      assert.throws(() => samplePixelFrom(cell.data, shape, cell.chunkWidth, 0), RangeError);
    } finally {
      store.close();
    }
  });
});
