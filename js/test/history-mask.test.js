// @ts-check
// A masked pixel's history from the history's mask copy (docs/format-history.md, version 1.1), in
// stores chronozarr's writer made with a mask (history_zarr.py): readPointMask equals the numpy
// source's mask over a real HTTP server; asked beside readPoint it costs four requests in two round
// trips on an open handle; a mask declaration the reader cannot use is named once and level 0
// answers; a history without the copy reads each date's mask as before.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { HistoryError, StoreError, openStore } from '../src/index.js';
import { fileFetch } from '../src/reader/file-fetch.js';
import { parseDeclaration } from '../src/reader/history-format.js';
import { asFetch, copyWithRoot, countingFetch, historyStores, serve, warnings } from './helpers.js';

const hx = historyStores();
const MASKED = ['writer-masked', 'writer-masked-one-block'];
/** @typedef {{ y: number, x: number, values: number[][], mask: number[] }} Pixel */
/** @param {string} name @returns {Pixel[]} */
const pixelsOf = (name) => hx.index[name].pixels;
/** @param {ArrayLike<number>[]} got */
const plain = (got) => got.map((bands) => Array.from(bands));

/**
 * A fetch that delays every answer by `ms` and records when each request started and ended, so a
 * read's round trips can be counted: a request's depth is one more than the deepest request that
 * ended before it started.
 * @param {number} ms
 */
function timedFetch(ms) {
  /** @type {{ url: string, range: string | null, start: number, end: number }[]} */
  const log = [];
  /** @type {import('./helpers.js').ReaderFetch} */
  const fetch = async (url, init = {}) => {
    const entry = { url: String(url), range: init.headers?.Range ?? null, start: performance.now(), end: Infinity };
    log.push(entry);
    const response = await globalThis.fetch(url, init);
    const body = await response.arrayBuffer();
    await new Promise((done) => setTimeout(done, ms));
    entry.end = performance.now();
    return new Response(body, { status: response.status, headers: response.headers });
  };
  const roundTrips = () => {
    /** @type {number[]} */
    const depth = [];
    const order = [...log.keys()].sort((a, b) => log[a].start - log[b].start);
    for (const i of order) depth[i] = 1 + Math.max(0, ...order.filter((j) => log[j].end <= log[i].start).map((j) => depth[j] ?? 0));
    return Math.max(...depth);
  };
  return { fetch: asFetch(fetch), log, reset: () => log.splice(0), roundTrips };
}

describe('over HTTP', () => {
  /** @type {import('./helpers.js').Server} */
  let server;
  before(async () => {
    server = await serve(hx.stores);
  });
  after(() => server.stop());

  for (const name of MASKED) {
    test(`every pixel's mask history equals the numpy source, from the mask copy only: ${name}`, async () => {
      const { fetch, log, reset } = countingFetch();
      const store = await openStore(`${server.url}/${name}`, { fetch, workers: 0 });
      try {
        assert.equal(store.hasHistoryMask, true);
        reset();
        for (const px of pixelsOf(name)) {
          assert.deepEqual(Array.from(/** @type {Uint8Array} */ (await store.readPointMask(px.y, px.x))), px.mask, `pixel (${px.y}, ${px.x})`);
          assert.deepEqual(plain(await store.readPoint(px.y, px.x)), px.values);
        }
        const { shard_bytes: data, mask_shard_bytes: masks } = hx.index[name].history;
        for (const r of log) {
          const id = /\/history(_mask\/c\/(\d+)\/(\d+)\/(\d+)|\/c\/(\d+)\/0\/(\d+)\/(\d+))$/.exec(r.url);
          assert.ok(id, `only the history arrays are read: ${r.url}`);
          const [listed, shard] = id[2] !== undefined ? [masks, id.slice(2, 5)] : [data, id.slice(5, 8)];
          // A shard the map lists is read by bounded ranges; one it does not list costs a HEAD (absent: fill).
          if (shard.join('/') in listed) assert.match(String(r.range), /^bytes=\d+-\d+$/);
          else assert.equal(r.method, 'HEAD', r.url);
        }
      } finally {
        store.close();
      }
    });
  }

  test('values and masks of a pixel asked together cost four requests in two round trips on an open handle', async () => {
    const { fetch, log, reset, roundTrips } = timedFetch(40);
    const store = await openStore(`${server.url}/writer-masked-one-block`, { fetch, workers: 0 });
    try {
      const px = pixelsOf('writer-masked-one-block')[1];
      reset();
      const [values, mask] = await Promise.all([store.readPoint(px.y, px.x), store.readPointMask(px.y, px.x)]);
      assert.deepEqual(plain(values), px.values);
      assert.deepEqual(Array.from(/** @type {Uint8Array} */ (mask)), px.mask);
      assert.equal(log.length, 4, JSON.stringify(log));
      assert.equal(log.filter((r) => r.url.includes('/history_mask/c/0/')).length, 2);
      assert.equal(roundTrips(), 2);
    } finally {
      store.close();
    }
  });

  test('the pixels of an inner chunk the mask copy omits are invalid at every date, after its shard index alone', async () => {
    const { fetch, log, reset } = countingFetch();
    const store = await openStore(`${server.url}/writer-masked`, { fetch, workers: 0 });
    try {
      const px = /** @type {Pixel} */ (pixelsOf('writer-masked').find((p) => p.y === 50 && p.x === 5));
      reset();
      assert.deepEqual(Array.from(/** @type {Uint8Array} */ (await store.readPointMask(px.y, px.x))), new Array(40).fill(0));
      assert.ok(log.every((r) => /history_mask\/c\/\d\/1\/0$/.test(r.url)) && log.length === 3, 'one index per time block (40 dates, T 16)');
    } finally {
      store.close();
    }
  });

  test('a history without the mask copy (a 1.0 declaration) reads each date mask from level 0, with the same values', async () => {
    const copy = copyWithRoot(join(hx.stores, 'writer-masked'), (block, root) => {
      delete block.history.mask_path;
      delete block.history.mask_shard_bytes;
      block.history.version = '1.0';
      delete root.consolidated_metadata.metadata.history_mask;
    });
    const { fetch, log, reset } = countingFetch((url, init) => fileFetch(url, init));
    try {
      const { said, result: store } = await warnings(() => openStore(copy.path, { fetch, workers: 0 }));
      try {
        assert.deepEqual(said, []);
        assert.equal(store.hasHistory, true);
        assert.equal(store.hasHistoryMask, false);
        const px = pixelsOf('writer-masked')[3];
        reset();
        assert.deepEqual(Array.from(/** @type {Uint8Array} */ (await store.readPointMask(px.y, px.x))), px.mask);
        assert.ok(log.length >= 40, `${log.length} requests for 40 dates`);
      } finally {
        store.close();
      }
    } finally {
      rmSync(copy.dir, { recursive: true, force: true });
    }
  });
});

describe('mask declarations the reader cannot use', () => {
  const level0 = { shape: [40, 3, 70, 90], chunkSize: 32 };
  const good = hx.index['writer-masked'].history;
  /** @type {[string, (d: any) => void, string][]} */
  const cases = [
    ['mask_path without mask_shard_bytes', (d) => delete d.mask_shard_bytes, 'mask_shard_bytes'],
    ['mask_shard_bytes without mask_path', (d) => delete d.mask_path, 'mask_path'],
    ['another mask path', (d) => (d.mask_path = 'mask'), 'mask_path'],
    ['a mask shard length that is no integer', (d) => (d.mask_shard_bytes['0/0/0'] = '12'), 'mask_shard_bytes["0/0/0"]'],
    ['a bad mask shard id', (d) => (d.mask_shard_bytes['0/0'] = 12), 'mask_shard_bytes["0/0"]'],
  ];
  for (const [what, change, field] of cases) {
    test(`${what}: named by its field`, () => {
      const declared = structuredClone(good);
      change(declared);
      assert.throws(() => parseDeclaration(declared, level0), (err) => err instanceof HistoryError && err instanceof StoreError && err.message.startsWith(`chronozarr.history.${field} `));
    });
  }
  test('the written declaration is usable and carries the mask copy', () => {
    assert.deepEqual(parseDeclaration(good, level0).maskBytes, good.mask_shard_bytes);
  });

  /** @type {[string, (block: any, root: any) => void, RegExp][]} */
  const stores = [
    ['a mask copy whose document disagrees with level 0', (_, r) => (r.consolidated_metadata.metadata.history_mask.shape = [40, 70, 80]), /chronozarr\.history\.mask_path .*shape \[40,70,80\]/],
    ['a mask copy of another dtype', (_, r) => (r.consolidated_metadata.metadata.history_mask.data_type = 'uint16'), /chronozarr\.history\.mask_path .*uint16/],
    ['half a mask declaration', (b) => delete b.history.mask_shard_bytes, /chronozarr\.history\.mask_shard_bytes/],
    ['a mask copy declared on a store without a mask', (b) => delete b.mask_variable, /chronozarr\.history\.mask_path .*no mask/],
  ];
  for (const [what, change, pattern] of stores) {
    test(`a store with ${what} opens, says why once, and reads values and masks from level 0`, async () => {
      const copy = copyWithRoot(join(hx.stores, 'writer-masked'), change);
      try {
        const { said, result: store } = await warnings(() => openStore(copy.path, { workers: 0 }));
        try {
          assert.equal(said.length, 1, said.join('\n'));
          assert.match(said[0], pattern);
          assert.match(said[0], /read from level 0/);
          assert.equal(store.hasHistory, false);
          const px = pixelsOf('writer-masked')[2];
          assert.deepEqual(plain(await store.readPoint(px.y, px.x)), px.values);
          const mask = await store.readPointMask(px.y, px.x);
          assert.deepEqual(mask && Array.from(mask), store.hasMask ? px.mask : null);
        } finally {
          store.close();
        }
      } finally {
        rmSync(copy.dir, { recursive: true, force: true });
      }
    });
  }
});
