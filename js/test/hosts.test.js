// @ts-check
// The JS reader against every misbehaving host of tests/hostile_hosts.py (served by the Python
// StoreServer on 127.0.0.1): each read gives the values the Python reader wrote down, or the
// reader's own error naming the URL, within the time the timeout and retries allow. And a host that
// answers 403 for an absent key, read as fill under forbiddenIsNotFound.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { FetchError, openStore } from '../src/index.js';
import { crop, expectedArray, fixtures, hostileHosts, hostileServer, hostileStores } from './helpers.js';

const { hosts, clientTimeoutMs } = hostileHosts();
const honest = hostileStores();
const RETRIES = [10];
// Every wait is bounded by the timeout; a read here makes a few requests, each retried once.
const BOUND_MS = 6 * (RETRIES.length + 1) * clientTimeoutMs + 5000;

/** @param {string} url @param {string} layout */
async function readFrame(url, layout) {
  const { shape, grid, cs } = honest.index.honest[layout];
  const [bands, height, width] = shape;
  const store = await openStore(url, { workers: 0, timeoutMs: clientTimeoutMs, retryDelaysMs: RETRIES });
  try {
    const frame = new Uint16Array(bands * height * width);
    for (let row = 0; row < grid[0]; row++) {
      for (let col = 0; col < grid[1]; col++) {
        const cell = await store.getCell(0, row, col, 2);
        const piece = crop(cell.data, bands, cs, cell.height, cell.width);
        for (let b = 0; b < bands; b++) for (let y = 0; y < cell.height; y++) for (let x = 0; x < cell.width; x++) {
          frame[(b * height + row * cs + y) * width + col * cs + x] = piece[(b * cell.height + y) * cell.width + x];
        }
      }
    }
    return frame;
  } finally {
    store.close();
  }
}

for (const layout of ['plain', 'sharded']) {
  for (const [name, { shardedOnly }] of Object.entries(hosts)) {
    if (shardedOnly && layout === 'plain') continue; // an unsharded read sends no Range header
    test(`a misbehaving host gives the values or our error in time: ${name}, ${layout}`, async () => {
      const server = await hostileServer(join(honest.hosts, layout), name);
      const started = Date.now();
      try {
        const frame = await readFrame(`${server.url}/s`, layout);
        assert.deepEqual(frame, honest.expected(layout));
      } catch (err) {
        if (err instanceof assert.AssertionError || !(err instanceof Error)) throw err;
        assert.ok(['StoreError', 'FetchError'].includes(err.name), `${name}: ${err.name}: ${err.message}`);
        assert.ok(err.message.includes(`${server.url}/s`), `the error names no object: ${err.message}`);
      } finally {
        await server.stop();
      }
      assert.ok(Date.now() - started < BOUND_MS, `${name}: ${Date.now() - started} ms`);
    });
  }
}

test('a stall before the headers or in a body ends after the timeout, retried, naming it', async () => {
  /** @type {[string, RegExp][]} */
  const stalls = [['stall_before_headers', /no answer within the 0.5 s timeout/], ['stall_mid_body', /the body stalled for the 0.5 s timeout after \d+ bytes/]];
  for (const [name, words] of stalls) {
    const server = await hostileServer(join(honest.hosts, 'plain'), name);
    try {
      const store = await openStore(`${server.url}/s`, { workers: 0, timeoutMs: 500, retryDelaysMs: [10] });
      const started = Date.now();
      await assert.rejects(store.getCell(0, 0, 0, 2), (/** @type {Error} */ err) => err.name === 'FetchError' && words.test(err.message) && /gave up after 2 attempts/.test(err.message));
      assert.ok(Date.now() - started < 2 * 500 + 1500);
      assert.equal(store.stats().retries, 1);
      store.close();
    } finally {
      await server.stop();
    }
  }
});

test('the default timeout and retries settle a read within a minute', async () => {
  const { DEFAULT_RETRY_DELAYS_MS, DEFAULT_TIMEOUT_MS } = await import('../src/reader/transport.js');
  const worst = (DEFAULT_RETRY_DELAYS_MS.length + 1) * DEFAULT_TIMEOUT_MS + DEFAULT_RETRY_DELAYS_MS.reduce((a, b) => a + b, 0);
  assert.ok(worst <= 60_000, `${worst} ms`);
});

test('one deadline bounds every request of a call: a sharded cell from a stalling host ends with it', async () => {
  // A sharded cell is two requests in turn (its shard's index, then its bytes), each allowed four
  // attempts of 1 s: without a deadline for the call it would wait for both.
  for (const name of ['stall_before_headers', 'stall_mid_body']) {
    const server = await hostileServer(join(honest.hosts, 'sharded'), name);
    try {
      const store = await openStore(`${server.url}/s`, { workers: 0, timeoutMs: 1000, retryDelaysMs: [250, 250, 250], deadlineMs: 2500 });
      const started = Date.now();
      await assert.rejects(store.getCell(0, 0, 0, 2), (/** @type {Error} */ err) => err.name === 'FetchError' && /the call's 2.5 s deadline ran out/.test(err.message) && err.message.includes(`${server.url}/s`));
      assert.ok(Date.now() - started < 2500 + 1000, `${name}: ${Date.now() - started} ms`);
      store.close();
    } finally {
      await server.stop();
    }
  }
  const { DEFAULT_DEADLINE_MS } = await import('../src/reader/settings.js');
  assert.ok(DEFAULT_DEADLINE_MS <= 60_000);
});

test('forbiddenIsNotFound: a host answering 403 for an absent key reads it as fill, and only with the option', async () => {
  const fx = fixtures();
  const name = 'i16-none-plain-blosc';
  const dir = mkdtempSync(join(tmpdir(), 'chronozarr-absent-403-'));
  cpSync(join(fx.stores, name), join(dir, name), { recursive: true });
  rmSync(join(dir, name, '0/data/c/2/0/0/0')); // timestep 2 of cell (0, 0) is no longer stored
  const root = JSON.parse(readFileSync(join(dir, name, 'zarr.json'), 'utf8'));
  const fill = root.consolidated_metadata.metadata['0/data'].fill_value;
  const server = await hostileServer(dir, 'absent_403');
  try {
    const strict = await openStore(`${server.url}/${name}`, { workers: 0 });
    await assert.rejects(strict.getCell(0, 0, 0, 2), (err) => err instanceof FetchError && err.status === 403);
    strict.close();
    const store = await openStore(`${server.url}/${name}`, { workers: 0, forbiddenIsNotFound: true });
    try {
      const absent = await store.getCell(0, 0, 0, 2);
      assert.ok(absent.data.every((v) => v === fill));
      const entry = fx.index[name].entries.find((e) => e[0] === 'data' && e[1] === 0 && e[2] === 1 && e[3] === 0 && e[4] === 0);
      assert.ok(entry);
      const [bands, height, width] = entry[6];
      const stored = await store.getCell(0, 0, 0, 1); // a chunk that is there still reads as written
      assert.deepEqual(crop(stored.data, bands, stored.chunkWidth, height, width), expectedArray(fx.expected(name), fx.index[name].dtype, entry));
    } finally {
      store.close();
    }
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
