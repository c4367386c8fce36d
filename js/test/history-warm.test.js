// @ts-check
// The first click made cheaper: the reader's prefetchHistory reads the history array's shard
// indexes under a box of level-0 pixels (bounded ranges, at the lowest priority, within its
// bounds), after which a pixel there costs one range per time block; and the viewer's warm-up
// (viewer/history-warm.js) asks for it on complete frames only, once per view, never while playing.
// Real stores (history_zarr.py) over a real HTTP server; the expected ranges come from the
// declaration in the root zarr.json, not from the reader.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openStore } from '../src/index.js';
import { fileFetch } from '../src/reader/file-fetch.js';
import { cellsKey } from '../lib/load-plan.js';
import { createHistoryWarm, viewBox } from '../viewer/history-warm.js';
import { copyWithRoot, countingFetch, historyStores, serve } from './helpers.js';

const hx = historyStores();
/** @typedef {{ y: number, x: number, values: number[][], mask?: number[] }} Pixel */
/** @param {ArrayLike<number>[]} got */
const plain = (got) => got.map((bands) => Array.from(bands));

/**
 * The index ranges a warm-up of the shards (tb, r, c) must ask for, from the declaration:
 * the last 16 (S/p)^2 + 4 bytes of each listed shard, data and mask copy.
 * @param {string} name @param {(id: string) => boolean} within shard ids "{tb}/{r}/{c}" wanted
 */
function expectedIndexReads(name, within) {
  const h = hx.index[name].history;
  const n = 16 * (h.shard_shape[2] / h.chunk_shape[2]) ** 2 + 4;
  const out = [];
  for (const [path, lengths, band] of [['history', h.shard_bytes, '/0'], ['history_mask', h.mask_shard_bytes ?? {}, '']]) {
    for (const [id, length] of Object.entries(/** @type {Record<string, number>} */ (lengths))) {
      if (!within(id)) continue;
      const [tb, r, c] = id.split('/');
      out.push(`${path}/c/${tb}${band}/${r}/${c} bytes=${length - n}-${length - 1}`);
    }
  }
  return out.sort();
}

/** @param {{ url: string, range: string | null }[]} log */
const asked = (log) => log.map((r) => `${new URL(r.url).pathname.split('/').slice(2).join('/')} ${r.range}`).sort();

describe('prefetchHistory and the viewer warm-up, over HTTP', () => {
  /** @type {import('./helpers.js').Server} */
  let server;
  before(async () => {
    server = await serve(hx.stores);
  });
  after(() => server.stop());

  /** @param {string} name @param {Record<string, unknown>} [options] */
  async function opened(name, options = {}) {
    const counting = countingFetch();
    const store = await openStore(`${server.url}/${name}`, { fetch: counting.fetch, workers: 0, ...options });
    counting.reset();
    return { store, ...counting };
  }

  for (const name of ['writer-star', 'star-blocks', 'writer-masked']) {
    test(`the indexes under a box, then a pixel there in one range per time block, values as the source: ${name}`, async () => {
      const { store, log, reset } = await opened(name);
      try {
        const h = hx.index[name].history;
        const s = h.shard_shape[2];
        const [, , height, width] = hx.index[name].shape;
        // The whole array: every listed shard, each block, data and mask copy.
        const did = await store.prefetchHistory({ y0: 0, x0: 0, y1: height, x1: width });
        assert.deepEqual(asked(log), expectedIndexReads(name, () => true));
        assert.equal(did.read, log.length);
        assert.equal(did.failed, 0);
        const blocks = Math.ceil(hx.index[name].shape[0] / h.time_cap);
        for (const /** @type {Pixel} */ px of hx.index[name].pixels) {
          reset();
          const [values, mask] = await Promise.all([store.readPoint(px.y, px.x), store.readPointMask(px.y, px.x)]);
          assert.deepEqual(plain(values), px.values, `pixel (${px.y}, ${px.x})`);
          if (px.mask) assert.deepEqual(Array.from(/** @type {Uint8Array} */ (mask)), px.mask);
          // Only inner chunks now: at most one per time block and array (none when cached or not stored).
          assert.ok(log.length <= blocks * (px.mask ? 2 : 1), `${log.length} requests: ${JSON.stringify(log)}`);
          const indexes = new Set(expectedIndexReads(name, () => true));
          assert.ok(asked(log).every((r) => !indexes.has(r)), `no index read: ${asked(log)}`);
        }
        // Asked again: everything is held, nothing is read.
        reset();
        const again = await store.prefetchHistory({ y0: 0, x0: 0, y1: s, x1: s });
        assert.equal(log.length, 0);
        assert.equal(again.read, 0);
      } finally {
        store.close();
      }
    });
  }

  test('the first pixel of a warmed shard costs one request, of a cold one two', async () => {
    const { store, log, reset } = await opened('writer-star');
    try {
      // writer-star: one time block, 32 px shards; warm the shard of rows 64-69, cols 64-89 only.
      await store.prefetchHistory({ y0: 64, x0: 64, y1: 70, x1: 90 });
      assert.deepEqual(asked(log), expectedIndexReads('writer-star', (id) => id === '0/2/2'));
      const [warmed, cold] = [[69, 89], [0, 89]].map(([y, x]) => /** @type {Pixel} */ (hx.index['writer-star'].pixels.find((/** @type {Pixel} */ p) => p.y === y && p.x === x)));
      reset();
      assert.deepEqual(plain(await store.readPoint(warmed.y, warmed.x)), warmed.values);
      assert.equal(log.length, 1, JSON.stringify(log));
      reset();
      assert.deepEqual(plain(await store.readPoint(cold.y, cold.x)), cold.values);
      assert.equal(log.length, 2, JSON.stringify(log));
    } finally {
      store.close();
    }
  });

  test('the bounds: the shards nearest the box centre, no more than maxShards or maxBytes of index', async () => {
    const { store, log, reset } = await opened('writer-star');
    try {
      // 3 x 3 shards of 32 px over 70 x 90: the box centre (35, 45) lies in shard (1, 1), whose
      // centre (48, 48) is the nearest.
      let did = await store.prefetchHistory({ y0: 0, x0: 0, y1: 70, x1: 90 }, { maxShards: 1 });
      assert.deepEqual(asked(log), expectedIndexReads('writer-star', (id) => id === '0/1/1'));
      assert.equal(did.shards, 1);
      reset();
      const h = hx.index['writer-star'].history;
      const perShard = 16 * (h.shard_shape[2] / h.chunk_shape[2]) ** 2 + 4;
      did = await store.prefetchHistory({ y0: 0, x0: 0, y1: 32, x1: 32 }, { maxBytes: perShard - 1 });
      assert.equal(log.length, 0, 'one shard is more than the byte bound: none');
      assert.equal(did.shards, 0);
      did = await store.prefetchHistory({ y0: -500, x0: -500, y1: -1, x1: -1 });
      assert.equal(log.length, 0, 'a box off the array: none');
      await assert.rejects(store.prefetchHistory(/** @type {any} */ ({ y0: 0, x0: 0, y1: 'a', x1: 4 })), RangeError);
    } finally {
      store.close();
    }
  });

  test("the warm-up waits for the frame's reads: every chunk a frame asked for goes out before any index", async () => {
    // Two requests at a time, so that what is queued shows the order the limiter keeps.
    const { store, log } = await opened('star-blocks', { maxRequests: 2 });
    try {
      const cells = [[0, 0], [0, 1], [1, 0], [1, 1], [2, 2]];
      const frame = Promise.all(cells.map(([r, c]) => store.getCell(0, r, c, 7)));
      await new Promise((resolve) => setTimeout(resolve, 0)); // the frame's reads are queued or out
      const warm = store.prefetchHistory({ y0: 0, x0: 0, y1: 70, x1: 90 });
      const more = store.getCell(0, 0, 2, 7); // asked after the warm-up: still before it
      await Promise.all([frame, warm, more]);
      const firstIndex = log.findIndex((r) => r.url.includes('/history/'));
      const lastLevel = log.findLastIndex((r) => r.url.includes('/0/data/'));
      assert.ok(firstIndex > lastLevel, `order: ${JSON.stringify(log.map((r) => r.url.split('/').slice(-6).join('/')))}`);
    } finally {
      store.close();
    }
  });

  test("at the frame's priority: behind the frame's chunks asked before it, ahead of read-ahead asked before it", async () => {
    const { store, log } = await opened('star-blocks', { maxRequests: 1 });
    try {
      const frame = Promise.all([[0, 0], [0, 1], [1, 1]].map(([r, c]) => store.getCell(0, r, c, 7)));
      const ahead = Promise.all([[0, 0], [0, 1]].map(([r, c]) => store.getCell(0, r, c, 8, { priority: 'ahead' })));
      await new Promise((resolve) => setTimeout(resolve, 0));
      const warm = store.prefetchHistory({ y0: 0, x0: 0, y1: 70, x1: 90 }, { maxShards: 1, priority: 'frame' });
      await Promise.all([frame, ahead, warm]);
      const kinds = log.map((r) => (r.url.includes('/history') ? 'index' : /\/0\/data\/c\/7\//.test(r.url) ? 'frame' : /\/c\/8\//.test(r.url) ? 'ahead' : 'other'));
      const order = kinds.filter((k) => k !== 'other');
      const firstIndex = order.indexOf('index');
      assert.ok(firstIndex > order.lastIndexOf('frame') && firstIndex < order.indexOf('ahead'), `order: ${order}`);
      await assert.rejects(store.prefetchHistory({ y0: 0, x0: 0, y1: 4, x1: 4 }, /** @type {any} */ ({ priority: 'ahead' })), RangeError);
    } finally {
      store.close();
    }
  });

  test('a pixel whose index the warm-up still has queued takes it over and goes at once, not when another request ends', async () => {
    // The first two index reads of the warm-up are held on the wire (a gate over the real
    // server's answers), so the read-ahead budget is full and the third shard's index waits.
    /** @type {(() => void)[]} */
    const held = [];
    const gate = /** @type {typeof fetch} */ (async (url, init) => {
      const answer = await fetch(url, init);
      if (String(url).includes('/history/') && held.length < 2) await new Promise((resolve) => held.push(() => resolve(undefined)));
      return answer;
    });
    const { store } = await opened('writer-star', { fetch: countingFetch(gate).fetch });
    try {
      // Shards (1, 1), (0, 1), (1, 0) by distance from the box centre (40, 40); writer-star's
      // shard (0, 0) is not stored.
      const warm = store.prefetchHistory({ y0: 0, x0: 0, y1: 80, x1: 80 }, { maxShards: 3 });
      while (held.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
      const px = /** @type {Pixel} */ (hx.index['writer-star'].pixels.find((/** @type {Pixel} */ p) => p.y === 43 && p.x === 27)); // shard (1, 0)
      const timeout = new Promise((resolve) => setTimeout(() => resolve('stuck behind the held reads'), 5000));
      const got = await Promise.race([store.readPoint(px.y, px.x), timeout]);
      assert.notEqual(got, 'stuck behind the held reads');
      assert.deepEqual(plain(/** @type {ArrayLike<number>[]} */ (got)), px.values);
      for (const release of held) release();
      assert.equal((await warm).failed, 0);
    } finally {
      store.close();
    }
  });

  test('a store without the history array: nothing read, zeros; a closed store: a StoreError', async () => {
    const copy = copyWithRoot(join(hx.stores, 'writer-star'), (block, root) => {
      delete block.history;
      delete root.consolidated_metadata.metadata.history;
    });
    const { fetch, log, reset } = countingFetch((url, init) => fileFetch(url, init));
    const store = await openStore(copy.path, { fetch, workers: 0 });
    try {
      reset();
      assert.equal(store.hasHistory, false);
      assert.deepEqual(await store.prefetchHistory({ y0: 0, x0: 0, y1: 70, x1: 90 }), { shards: 0, indexes: 0, read: 0, bytes: 0, failed: 0 });
      assert.equal(log.length, 0);
    } finally {
      store.close();
      rmSync(copy.dir, { recursive: true, force: true });
    }
    await assert.rejects(store.prefetchHistory({ y0: 0, x0: 0, y1: 4, x1: 4 }), /closed/);
  });
});

describe('the viewer warm-up (viewer/history-warm.js)', () => {
  /** @type {import('./helpers.js').Server} */
  let server;
  before(async () => {
    server = await serve(hx.stores);
  });
  after(() => server.stop());

  test('viewBox and cellsKey: the level-0 box a camera shows and the cells it covers', () => {
    // Camera centred on level-0 pixel (100, 60) at 2 CSS px per pixel on a 80 x 40 canvas:
    // 40 x 20 pixels, from (80, 50) to (120, 70).
    assert.deepEqual(viewBox({ cx: 100, cy: 60, zoom: 2 }, 80, 40), { x0: 80, y0: 50, x1: 120, y1: 70 });
    const level0 = { width: 90, height: 70, chunkSize: 32 };
    assert.equal(cellsKey({ x0: 80, y0: 50, x1: 120, y1: 70 }, level0), '1,2,2,2'); // rows 50-69 → 1..2, cols 80-89 → 2
    assert.equal(cellsKey({ x0: -10, y0: -10, x1: 31.5, y1: 32 }, level0), '0,0,0,0');
    assert.equal(cellsKey({ x0: 90, y0: 0, x1: 100, y1: 10 }, level0), null);
  });

  test('the centre shard on the first frame painted, the rest on complete frames only, once per view, again after a pan, never while playing', async () => {
    const counting = countingFetch();
    const store = await openStore(`${server.url}/writer-star`, { fetch: counting.fetch, workers: 0 });
    counting.reset();
    let playing = false;
    let view = { cam: { cx: 48, cy: 16, zoom: 1 }, w: 32, h: 32 }; // shard (0, 1) exactly
    /** @type {import('../viewer/history-warm.js').WarmReport[]} */
    const reports = [];
    const warm = createHistoryWarm({ store, view: () => view, playing: () => playing, onReport: (r) => reports.push(r) });
    const settled = async () => {
      while (reports.at(-1)?.state === 'warming') await new Promise((r) => setTimeout(r, 5));
    };
    const centreIndex = expectedIndexReads('writer-star', (id) => id === '0/0/1');
    try {
      playing = true;
      warm.frame({ complete: false });
      warm.frame({ complete: true });
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(counting.log.length + reports.length, 0, 'nothing while playing');
      playing = false;
      warm.frame({ complete: false });
      warm.frame({ complete: false });
      while (counting.log.length < centreIndex.length) await new Promise((r) => setTimeout(r, 5));
      await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(asked(counting.log), centreIndex, "an incomplete frame: the centre shard's index, once");
      assert.equal(reports.length, 0, 'no warm-up of the view before a complete frame');
      warm.frame({ complete: true });
      await settled();
      assert.deepEqual(asked(counting.log), centreIndex, 'held already: nothing read again');
      assert.equal(reports.at(-1)?.state, 'done');
      assert.equal(reports.at(-1)?.read, 0);
      warm.frame({ complete: true }); // the same view
      assert.equal(reports.length, 2, 'one warm-up per view');
      view = { cam: { cx: 80, cy: 48, zoom: 1 }, w: 20, h: 32 }; // rows 32-63, cols 70-89: shard (1, 2)
      counting.reset();
      warm.frame({ complete: true });
      await settled();
      assert.deepEqual(asked(counting.log), expectedIndexReads('writer-star', (id) => id === '0/1/2'));
      counting.reset();
      await store.readPoint(40, 85);
      assert.equal(counting.log.length, 1, 'a click there: the inner chunk alone');
    } finally {
      warm.stop();
      store.close();
    }
  });
});
