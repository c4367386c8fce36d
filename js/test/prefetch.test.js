// @ts-check
// Prefetch order and budgets, the cache budget, cancellation, and close() releasing everything.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { openStore, windowOrder } from '../src/index.js';
import { fileFetch } from '../src/reader/file-fetch.js';
import { asFetch, crop, expectedArray, fixtures } from './helpers.js';

const fx = fixtures();
const timestepOf = (/** @type {string} */ url) => Number(/\/0\/data\/c\/(\d+)\//.exec(url)?.[1]);

/** fileFetch after `ms`, aborted with the request's signal; records URLs in order. */
/** @param {number} ms */
function slowFetch(ms) {
  /** @type {string[]} */
  const log = [];
  /** @type {import('./helpers.js').ReaderFetch} */
  const fetch = (url, init = {}) => {
    log.push(String(url));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => resolve(fileFetch(url, init)), ms);
      init.signal?.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(new DOMException('aborted', 'AbortError'));
      }, { once: true });
    });
  };
  return { fetch: asFetch(fetch), log };
}

describe('windowOrder', () => {
  /** @type {Record<number, number>} */
  const refs = { 1: 0, 2: 0, 3: 4, 5: 4, 6: 4 };
  const ref = (/** @type {number} */ t) => refs[t] ?? null;
  test('idle: t after its anchor, then anchors nearest first, then the rest nearest first', () => {
    assert.deepEqual(windowOrder(5, 7, { reference: ref }), [4, 5, 0, 6, 3, 2, 1]);
    assert.deepEqual(windowOrder(3, 20, { horizonSteps: 2 }), [3, 4, 2, 5, 1]);
  });
  test('playing: the whole loop in play order, each delta after its anchor', () => {
    assert.deepEqual(windowOrder(5, 7, { reference: ref, playing: true }), [4, 5, 6, 0, 1, 2, 3]);
  });
});

describe('prefetch', () => {
  const path = join(fx.stores, 'u8-sd-plain-blosc');

  test('fetches in windowOrder, then every timestep in the window is a cache hit', async () => {
    const { fetch, log } = slowFetch(0);
    const store = await openStore(path, { fetch, maxRequests: 1, horizonSteps: 2 });
    try {
      log.length = 0;
      const result = await store.prefetch({ lod: 0, cells: [[0, 0], { row: 1, col: 1 }], t: 2 });
      assert.equal(result.state, 'done');
      const expected = windowOrder(2, 7, { horizonSteps: 2, reference: store.referenceOf });
      assert.deepEqual(expected, [0, 2, 4, 3, 1]);
      assert.deepEqual(log.map(timestepOf), expected.flatMap((t) => [t, t]));
      const before = store.stats().requests;
      for (const t of [0, 1, 2, 3, 4]) await store.getCell(0, 1, 1, t);
      assert.equal(store.stats().requests, before, 'no request after prefetch');
      await store.getCell(0, 1, 1, 5);
      assert.equal(store.stats().requests, before + 1, 'outside the horizon: one delta read (its anchor is resident)');
    } finally {
      store.close();
    }
  });

  test('playing reaches the whole loop; idleBytes stops an idle prefetch', async () => {
    const store = await openStore(path, { maxRequests: 2 });
    try {
      /** @type {[number, number][]} */
      const progress = [];
      const playing = await store.prefetch({ lod: 0, cells: [[2, 2]], t: 6, playing: true, onProgress: (done, total) => progress.push([done, total]) });
      assert.equal(playing.chunks, 7);
      // One report per chunk, counting up to the whole loop.
      assert.deepEqual(progress, [1, 2, 3, 4, 5, 6, 7].map((d) => [d, 7]));
    } finally {
      store.close();
    }
    const small = await openStore(path, { maxRequests: 1, idleBytes: 1 });
    try {
      const result = await small.prefetch({ lod: 0, cells: [[0, 0], [0, 1]], t: 3 });
      assert.equal(result.state, 'budget');
      assert.equal(result.chunks, 1);
    } finally {
      small.close();
    }
  });

  test('masks: true fetches masks alongside', async () => {
    const store = await openStore(join(fx.stores, 'u16-sd-plain-zstd'), { maxRequests: 4, horizonSteps: 1 });
    try {
      await store.prefetch({ lod: 1, cells: [[0, 0]], t: 1, masks: true });
      const before = store.stats().requests;
      await store.getCell(1, 0, 0, 1);
      await store.getCell(1, 0, 0, 2);
      assert.equal(store.stats().requests, before);
    } finally {
      store.close();
    }
  });

  test('a newer prefetch cancels the older one and aborts its requests', async () => {
    const { fetch } = slowFetch(50);
    const store = await openStore(path, { fetch, maxRequests: 2 });
    try {
      const first = store.prefetch({ lod: 0, cells: [[0, 0], [0, 1], [0, 2]], t: 0, playing: true });
      await new Promise((r) => setTimeout(r, 10));
      const second = store.prefetch({ lod: 0, cells: [[2, 2]], t: 6 });
      assert.equal((await first).state, 'aborted');
      assert.equal((await second).state, 'done');
      assert.ok(store.stats().aborted >= 1);
      assert.equal(store.stats().pending, 0);
    } finally {
      store.close();
    }
  });

  test('a newer prefetch lets the older run\'s requests it would send first finish, aborts the rest, sends none twice', async () => {
    const { fetch, log } = slowFetch(50);
    const store = await openStore(path, { fetch, maxRequests: 2 });
    try {
      const first = store.prefetch({ lod: 0, cells: [[0, 0]], t: 0 });
      await new Promise((r) => setTimeout(r, 10));
      const onWire = log.map(timestepOf).filter(Number.isInteger); // chunk requests (the metadata read is first)
      assert.ok(onWire.length >= 2 && new Set(onWire).size === onWire.length, String(log));
      // One step on: the newer run's first two steps decide which of those two go on.
      const order = windowOrder(1, store.times.length, { horizonSteps: 12, reference: (s) => store.referenceOf(s) });
      const kept = onWire.filter((t) => order.slice(0, 2).includes(t));
      const second = store.prefetch({ lod: 0, cells: [[0, 0]], t: 1 });
      assert.equal((await first).state, 'aborted'); // it took no new task
      assert.equal((await second).state, 'done');
      assert.ok(kept.length >= 1, `in flight ${onWire}, new order ${order}`);
      assert.equal(store.stats().aborted, onWire.length - kept.length);
      for (const t of kept) assert.equal(log.filter((u) => timestepOf(u) === t).length, 1, `timestep ${t} requested once`);
    } finally {
      store.close();
    }
  });

  test('a getCell that joins a prefetched request survives the prefetch being cancelled', async () => {
    const { fetch } = slowFetch(40);
    const store = await openStore(path, { fetch, maxRequests: 4 });
    try {
      const run = store.prefetch({ lod: 0, cells: [[1, 1]], t: 0 });
      await new Promise((r) => setTimeout(r, 5));
      const cell = store.getCell(0, 1, 1, 0);
      store.prefetch({ lod: 0, cells: [[2, 2]], t: 6 });
      assert.equal((await cell).data.length, 2 * 16 * 16);
      await run;
    } finally {
      store.close();
    }
  });
});

describe('cache budget', () => {
  test('never exceeded; evictions counted; values stay exact', async () => {
    const name = 'u16-sd-shard-zstd';
    const chunk = 2 * 16 * 16 * 2;
    const totalBytes = 3 * chunk + 4000;
    const store = await openStore(join(fx.stores, name), { totalBytes });
    const info = fx.index[name];
    const buffer = fx.expected(name);
    try {
      for (const entry of info.entries.filter((e) => e[0] === 'data' && e[1] === 0)) {
        const [, lod, t, row, col, , shape] = entry;
        const cell = await store.getCell(lod, row, col, t);
        assert.ok(store.stats().cacheBytes <= totalBytes);
        assert.deepEqual(Array.from(crop(cell.data, 2, 16, shape[1], shape[2])), Array.from(expectedArray(buffer, info.dtype, entry)));
      }
      const stats = store.stats();
      assert.ok(stats.peakCacheBytes <= totalBytes, `${stats.peakCacheBytes} > ${totalBytes}`);
      assert.ok(stats.evictions > 0);
      assert.equal(stats.totalBytes, totalBytes);
    } finally {
      store.close();
    }
  });
});

describe('abort and close', () => {
  test('a caller signal aborts its read; close() aborts everything in flight and refuses new work', async () => {
    const { fetch } = slowFetch(200);
    const store = await openStore(join(fx.stores, 'u16-sd-plain-zstd'), { fetch, workers: 1 });
    const controller = new AbortController();
    const one = store.getCell(0, 0, 0, 1, { signal: controller.signal });
    controller.abort();
    await assert.rejects(one, { name: 'AbortError' });
    const reads = [store.getCell(0, 1, 1, 2), store.getCell(0, 2, 2, 5)];
    const prefetch = store.prefetch({ lod: 0, cells: [[0, 0]], t: 3, playing: true });
    await new Promise((r) => setTimeout(r, 20));
    store.close();
    for (const read of reads) await assert.rejects(read, { name: 'AbortError' });
    assert.equal((await prefetch).state, 'aborted');
    const stats = store.stats();
    assert.equal(stats.pending, 0);
    assert.equal(stats.inFlight, 0);
    assert.equal(stats.queued, 0);
    assert.equal(stats.cacheBytes, 0);
    assert.equal(stats.workers, 0);
    await assert.rejects(store.getCell(0, 0, 0, 0), /closed/);
  });

  test('the options signal closes the store', async () => {
    const controller = new AbortController();
    const store = await openStore(join(fx.stores, 'u16-none-plain-gzip'), { signal: controller.signal });
    controller.abort();
    await assert.rejects(store.getCell(0, 0, 0, 0), /closed/);
  });

  test('a process that closes its store exits on its own (no timers, requests or workers left)', async () => {
    const script = `
      import { openStore } from ${JSON.stringify(new URL('../src/index.js', import.meta.url).href)};
      const store = await openStore(${JSON.stringify(join(fx.stores, 'u16-sd-shard-zstd'))}, { workers: 2, retryDelaysMs: [60000] });
      await store.getCell(0, 0, 0, 1);
      store.prefetch({ lod: 0, cells: [[0, 0], [1, 1]], t: 3, playing: true });
      store.getCell(0, 2, 2, 4).catch(() => {});
      store.close();
      console.log('closed');
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const code = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill();
        reject(new Error(`did not exit within 10 s: ${out}`));
      }, 10_000);
      child.on('exit', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    assert.equal(code, 0, out);
    assert.match(out, /closed/);
  });
});
