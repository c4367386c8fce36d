// @ts-check
// A pixel's history from the time-major history array (docs/format-history.md), in stores whose
// array chronozarr's writer or zarr-python wrote (history_zarr.py): exact values equal to the numpy source over a real
// HTTP server, two requests on an open store handle, the declaration's fields checked (one that
// cannot be used is named once and level 0 answers), a damaged array falls back to level 0, and a
// store without the array reads as before.
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { valueAt } from '../maplibre/values.js';
import { openStore } from '../src/index.js';
import { fileFetch } from '../src/reader/file-fetch.js';
import { parseDeclaration } from '../src/reader/history-format.js';
import { asFetch, copyWithRoot, countingFetch, historyStores, serve, warnings } from './helpers.js';

const hx = historyStores();
const NAMES = Object.keys(hx.index);
/** @typedef {{ y: number, x: number, values: number[][] }} Pixel */

/** @param {ArrayLike<number>[]} got */
const plain = (got) => got.map((bands) => Array.from(bands));

/** A copy of a store whose root block's history declaration `change` rewrites. @param {string} name @param {(block: any, root: any) => void} change */
const withDeclaration = (name, change) => copyWithRoot(join(hx.stores, name), change);

describe('over HTTP', () => {
  /** @type {import('./helpers.js').Server} */
  let server;
  before(async () => {
    server = await serve(hx.stores);
  });
  after(() => server.stop());

  for (const name of NAMES) {
    test(`every pixel's whole history equals the numpy source: ${name}`, async () => {
      const { fetch, log } = countingFetch();
      const store = await openStore(`${server.url}/${name}`, { fetch, workers: 0 });
      try {
        assert.equal(store.hasHistory, true);
        for (const /** @type {Pixel} */ px of hx.index[name].pixels) assert.deepEqual(plain(await store.readPoint(px.y, px.x)), px.values, `pixel (${px.y}, ${px.x})`);
        // No HEAD and no suffix range where shard_bytes lists the shard: bounded ranges only.
        const listed = Object.keys(hx.index[name].history.shard_bytes);
        for (const r of log.slice(1)) {
          const id = /history\/c\/(\d+)\/0\/(\d+)\/(\d+)$/.exec(r.url);
          assert.ok(id, `only history objects are read after the root: ${r.url}`);
          if (listed.includes(`${id[1]}/${id[2]}/${id[3]}`)) assert.match(String(r.range), /^bytes=\d+-\d+$/);
          else assert.equal(r.method, 'HEAD', 'a shard the map does not list costs a HEAD (it is absent: fill)');
        }
      } finally {
        store.close();
      }
    });
  }

  for (const name of ['writer-star', 'none-one-block']) test(`a pixel of a store whose axis fits one time block costs two requests on an open handle, its neighbours none: ${name}`, async () => {
    const { fetch, log, reset } = countingFetch();
    const store = await openStore(`${server.url}/${name}`, { fetch, workers: 0 });
    try {
      const px = /** @type {Pixel} */ (hx.index[name].pixels.find((/** @type {Pixel} */ p) => p.y === 69 && p.x === 89));
      reset();
      assert.deepEqual(plain(await store.readPoint(px.y, px.x)), px.values);
      assert.equal(log.length, 2, JSON.stringify(log));
      assert.ok(log.every((r) => r.method === 'GET' && /^bytes=\d+-\d+$/.test(String(r.range))), 'the index and the inner chunk, each by a bounded range');
      reset();
      await store.readPoint(px.y - 3, px.x - 1); // the same inner chunk
      await store.readPoint(64, 70); // another inner chunk of the same shard: its index is cached
      const blank = /** @type {Pixel} */ (hx.index[name].pixels.find((/** @type {Pixel} */ p) => p.y === 40 && p.x === 50));
      assert.deepEqual(plain(await store.readPoint(blank.y, blank.x)), blank.values); // an inner chunk not stored: fill, after its shard's index
      assert.equal(log.length, 2, JSON.stringify(log));
      assert.equal(store.stats().shardIndexes, 2);
    } finally {
      store.close();
    }
  });

  test('a history costs one request per timestep from a copy without the declaration, with the same values (level 0, as before)', async () => {
    for (const name of NAMES) {
      const copy = withDeclaration(name, (block, root) => {
        delete block.history;
        delete root.consolidated_metadata.metadata.history;
      });
      const { fetch, log, reset } = countingFetch(asFileFetch);
      const store = await openStore(copy.path, { fetch, workers: 0 });
      try {
        assert.equal(store.hasHistory, false);
        const px = hx.index[name].pixels[2];
        reset();
        assert.deepEqual(plain(await store.readPoint(px.y, px.x)), px.values);
        const nTime = hx.index[name].shape[0];
        assert.ok(log.length >= nTime, `${log.length} requests for ${nTime} timesteps`);
      } finally {
        store.close();
        rmSync(copy.dir, { recursive: true, force: true });
      }
    }
  });

  test('a selection of timesteps reads only their time blocks, in the order asked', async () => {
    const { fetch, log, reset } = countingFetch();
    const store = await openStore(`${server.url}/star-blocks`, { fetch, workers: 0 });
    try {
      const px = hx.index['star-blocks'].pixels[3];
      reset();
      assert.deepEqual(plain(await store.readPoint(px.y, px.x, { times: [39, 33] })), [px.values[39], px.values[33]]);
      assert.ok(log.every((r) => r.url.includes('/history/c/2/')), 'only the third block (timesteps 32-47)');
      await assert.rejects(store.readPoint(px.y, px.x, { times: [40] }), RangeError);
      const coarse = await store.readPoint(2, 3, { lod: 1, times: [0] }); // other levels read as before
      assert.equal(coarse.length, 1);
    } finally {
      store.close();
    }
  });

  test("read-ahead priority reaches the browser's fetch as priority: low, a frame's does not", async () => {
    /** @type {(string | undefined)[]} */
    const priorities = [];
    /** @type {import('./helpers.js').ReaderFetch} */
    const fetch = (url, init) => {
      priorities.push(/** @type {{ priority?: string }} */ (init ?? {}).priority);
      return globalThis.fetch(url, init);
    };
    const store = await openStore(`${server.url}/none-one-block`, { fetch: asFetch(fetch), workers: 0 });
    try {
      priorities.length = 0;
      await store.readPoint(60, 60, { priority: 'background' });
      assert.deepEqual(priorities, ['low', 'low']);
      priorities.length = 0;
      await store.readPoint(60, 10);
      assert.deepEqual(priorities, [undefined, undefined]);
    } finally {
      store.close();
    }
  });

  test('a history read through a decode worker (blosc with crc32c) is the same', async () => {
    const store = await openStore(`${server.url}/star-blocks`, { workers: 1 });
    try {
      for (const /** @type {Pixel} */ px of hx.index['star-blocks'].pixels.slice(0, 4)) assert.deepEqual(plain(await store.readPoint(px.y, px.x)), px.values);
      assert.ok(store.stats().workerDecodes + store.stats().decodes > 0);
    } finally {
      store.close();
    }
  });

  test('an aborted history read rejects with an AbortError and the store reads on', async () => {
    const store = await openStore(`${server.url}/none-one-block`, { workers: 0 });
    try {
      const ctrl = new AbortController();
      const reading = store.readPoint(50, 70, { signal: ctrl.signal });
      ctrl.abort();
      await assert.rejects(reading, { name: 'AbortError' });
      const px = hx.index['none-one-block'].pixels[1];
      assert.deepEqual(plain(await store.readPoint(px.y, px.x)), px.values);
    } finally {
      store.close();
    }
  });
});

/** The reader's file fetch as a ReaderFetch, for counting requests to the copies on disk. @type {import('./helpers.js').ReaderFetch} */
const asFileFetch = (url, init) => fileFetch(url, init);

test("the MapLibre layer's getValueAt reads a store with the history array as any other", async () => {
  const store = await openStore(join(hx.stores, 'writer-star'), { workers: 0 });
  try {
    const place = /** @type {any} */ ({ toPixel: (/** @type {number} */ lng, /** @type {number} */ lat) => ({ x: lng, y: lat }) });
    for (const /** @type {Pixel} */ px of hx.index['writer-star'].pixels.slice(1, 5)) {
      const v = await valueAt(store, place, [px.x + 0.5, px.y + 0.5], 7, new AbortController().signal);
      assert.deepEqual(v?.bands.map((b) => b.stored), px.values[7]);
    }
  } finally {
    store.close();
  }
});

describe('declarations the reader cannot use', () => {
  const level0 = { shape: [40, 3, 70, 90], chunkSize: 32 };
  const good = hx.index['none-one-block'].history;
  /** @type {[string, (d: any) => void, string][]} field changed, how, the field the warning names */
  const cases = [
    ['unknown major version', (d) => (d.version = '2.0'), 'version'],
    ['version not major.minor', (d) => (d.version = 1), 'version'],
    ['another path', (d) => (d.path = 'hist'), 'path'],
    ['time_cap missing', (d) => delete d.time_cap, 'time_cap'],
    ['time_cap not the chunk time', (d) => (d.time_cap = 32), 'chunk_shape'],
    ['chunk_shape of other bands', (d) => (d.chunk_shape = [64, 2, 16, 16]), 'chunk_shape'],
    ['odd p', (d) => (d.chunk_shape = [64, 3, 15, 15]), 'chunk_shape'],
    ['p not dividing the chunk size', (d) => (d.chunk_shape = [64, 3, 12, 12]), 'chunk_shape'],
    ['S not a multiple of the chunk size', (d) => (d.shard_shape = [64, 3, 48, 48]), 'shard_shape'],
    ['shard_shape not square', (d) => (d.shard_shape = [64, 3, 32, 64]), 'shard_shape'],
    ['shard_bytes missing', (d) => delete d.shard_bytes, 'shard_bytes'],
    ['shard_bytes with a length that is no integer', (d) => (d.shard_bytes['0/1/1'] = '155325'), 'shard_bytes["0/1/1"]'],
    ['shard_bytes with a bad id', (d) => (d.shard_bytes.x = 5), 'shard_bytes["x"]'],
  ];
  for (const [what, change, field] of cases) {
    test(`${what}: named by its field`, () => {
      const declared = structuredClone(good);
      change(declared);
      assert.throws(() => parseDeclaration(declared, level0), (err) => err instanceof Error && err.message.startsWith(`chronozarr.history.${field} `));
    });
  }
  test('the written declaration is usable, and not an object is named as the block', () => {
    assert.equal(parseDeclaration(good, level0).inner, 16);
    assert.throws(() => parseDeclaration([], level0), /^HistoryError: chronozarr\.history must be an object/);
  });

  /** @typedef {(block: any, root: any) => void} RootChange */
  /** @type {[string, RootChange, RegExp][]} what the store has, how it is made, the warning */
  const stores = [
    ['a declaration whose major version is unknown', (b) => (b.history.version = '2.1'), /chronozarr\.history\.version .*major version 1/],
    ['a declared shard shape the array does not have', (b) => (b.history.shard_shape = [64, 3, 64, 64]), /chronozarr\.history\.shard_shape .*not the array's shard/],
    ['an array document that disagrees with level 0', (_, r) => (r.consolidated_metadata.metadata.history.shape = [41, 3, 70, 90]), /chronozarr\.history\.path .*shape \[41,3,70,90\]/],
    ['an array that is not there', (_, r) => delete r.consolidated_metadata.metadata.history, /chronozarr\.history\.path .*cannot be read/],
    ['a declaration that is not an object', (b) => (b.history = 'yes'), /chronozarr\.history must be an object/],
  ];
  for (const [what, change, pattern] of stores) {
    test(`a store with ${what} opens, says why once, and reads histories from level 0`, async () => {
      const copy = withDeclaration('none-one-block', change);
      if (what.includes('not there')) rmSync(join(copy.path, 'history', 'zarr.json'));
      try {
        const { said, result: store } = await warnings(() => openStore(copy.path, { workers: 0 }));
        try {
          assert.equal(said.length, 1, said.join('\n'));
          assert.match(said[0], pattern);
          assert.match(said[0], /read from level 0/);
          assert.equal(store.hasHistory, false);
          const before = store.stats().requests;
          for (const /** @type {Pixel} */ px of hx.index['none-one-block'].pixels.slice(0, 3)) assert.deepEqual(plain(await store.readPoint(px.y, px.x)), px.values);
          assert.ok(store.stats().requests - before >= 40, 'level 0: a request per timestep');
        } finally {
          store.close();
        }
      } finally {
        rmSync(copy.dir, { recursive: true, force: true });
      }
    });
  }

  test('a damaged history shard (its chunk fails its crc32c) is named once and level 0 answers, exactly', async () => {
    const copy = withDeclaration('star-blocks', () => {});
    try {
      const shard = join(copy.path, 'history', 'c', '0', '0', '0', '0');
      const bytes = readFileSync(shard);
      for (let i = 0; i < bytes.length - 4 - 16 * 64; i += 97) bytes[i] ^= 0x5a; // chunk bytes, not the index
      writeFileSync(shard, bytes);
      const store = await openStore(copy.path, { workers: 0 });
      try {
        const { said } = await warnings(async () => {
          for (const /** @type {Pixel} */ px of hx.index['star-blocks'].pixels.filter((/** @type {Pixel} */ p) => p.y < 64 && p.x < 64)) assert.deepEqual(plain(await store.readPoint(px.y, px.x)), px.values);
        });
        assert.equal(said.length, 1, said.join('\n'));
        assert.match(said[0], /history array cannot be read .*crc32c.*read from level 0/);
      } finally {
        store.close();
      }
    } finally {
      rmSync(copy.dir, { recursive: true, force: true });
    }
  });
});
