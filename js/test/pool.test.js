// @ts-check
// The decode pool: chunks decode on the calling thread until a worker is ready; then foreground
// jobs overtake waiting background ones, a waiting job can be aborted (its bytes come back
// untouched), and close() rejects everything still waiting.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker as NodeWorker } from 'node:worker_threads';
import { createPool } from '../src/reader/pool.js';

/** @type {import('../src/reader/codecs.js').CodecSpec} */
const ZSTD = { name: 'zstd' };

/** A pool of one worker, once that worker is ready. */
async function readyPool() {
  const pool = createPool({ size: 1 });
  pool.warm();
  pool.prepare(['zstd'], 2 ** 20);
  while (!pool.ready) await new Promise((resolve) => setTimeout(resolve, 5));
  return pool;
}

/** Independent zstd frames (numcodecs' encoder) of `n` distinct chunks of `size` bytes. @param {number} n @param {number} size */
async function frames(n, size) {
  const { default: Zstd } = await import('numcodecs/zstd');
  const codec = new Zstd(1);
  const out = [];
  for (let k = 0; k < n; k++) {
    const raw = new Uint8Array(size).map((_, i) => (i * (k + 3)) % 251);
    out.push({ raw, frame: await codec.encode(raw) });
  }
  return out;
}

test('until a worker is ready, foreground chunks decode on the calling thread', async () => {
  const pool = createPool({ size: 1 });
  try {
    const [c] = await frames(1, 4096);
    /** @type {(Uint8Array | null)[]} */
    const given = [];
    assert.equal(pool.ready, 0);
    assert.deepEqual(await pool.decode(ZSTD, c.frame, c.raw.length, 'x', undefined, (input) => given.push(input)), c.raw);
    assert.equal(pool.localDecodes, 1);
    assert.equal(pool.decodes, 0);
    assert.equal(given[0], c.frame, 'the bytes stay with the caller');
    // A background (prefetch) decode waits for the worker instead.
    const background = pool.decode(ZSTD, c.frame, c.raw.length, 'y', undefined, undefined, 1);
    pool.prepare(['zstd'], 4096);
    assert.deepEqual(await background, c.raw);
    assert.equal(pool.ready, 1);
    assert.equal(pool.localDecodes, 1);
    assert.equal(pool.decodes, 1);
  } finally {
    pool.close();
  }
});

test('a foreground job waits behind at most the jobs a worker already holds', async () => {
  const pool = await readyPool();
  try {
    const chunks = await frames(12, 2 ** 20);
    /** @type {string[]} */
    const order = [];
    const background = chunks.slice(0, 11).map((c, i) =>
      pool.decode(ZSTD, c.frame, c.raw.length, `b${i}`, undefined, undefined, 1).then((out) => {
        assert.deepEqual(out, c.raw);
        order.push(`b${i}`);
      }),
    );
    const last = chunks[11];
    const foreground = pool.decode(ZSTD, last.frame, last.raw.length, 'f', undefined, undefined, 0).then((out) => {
      assert.deepEqual(out, last.raw);
      order.push('f');
    });
    await Promise.all([...background, foreground]);
    assert.equal(pool.decodes, 12, 'all in the worker');
    assert.ok(order.indexOf('f') <= 2, `foreground finished ${order.indexOf('f') + 1}th: ${order.join(' ')}`);
    assert.deepEqual(order.filter((x) => x !== 'f'), chunks.slice(0, 11).map((_, i) => `b${i}`), 'background jobs keep their order');
  } finally {
    pool.close();
  }
});

test('a waiting job aborts and gets its bytes back; close() rejects the rest', async () => {
  const pool = await readyPool();
  const chunks = await frames(6, 2 ** 20);
  const held = chunks.slice(0, 4).map((c, i) => pool.decode(ZSTD, c.frame, c.raw.length, `h${i}`, undefined, undefined, 1));
  const controller = new AbortController();
  /** @type {(Uint8Array | null)[]} */
  const given = [];
  const aborted = pool.decode(ZSTD, chunks[4].frame, chunks[4].raw.length, 'a', controller.signal, (input) => given.push(input), 1);
  controller.abort();
  await assert.rejects(aborted, { name: 'AbortError' });
  assert.equal(given.length, 1);
  assert.equal(given[0], chunks[4].frame, 'the same bytes, never transferred');
  assert.equal(given[0]?.byteLength, chunks[4].frame.byteLength);
  const waiting = pool.decode(ZSTD, chunks[5].frame, chunks[5].raw.length, 'w', undefined, undefined, 1);
  pool.close();
  await assert.rejects(waiting, /closed/);
  await Promise.allSettled(held);
});

test('codecs named again add to the first: a running worker loads only the new ones, and a name given again is not sent', async () => {
  /** @type {string[][]} */
  const posted = [];
  const spawnWorker = () => {
    const worker = new NodeWorker(new URL('../src/reader/decode-worker.js', import.meta.url));
    const post = worker.postMessage.bind(worker);
    worker.postMessage = (/** @type {any} */ message, /** @type {any} */ transfer) => {
      if (message && 'codecs' in message) posted.push(message.codecs);
      post(message, transfer);
    };
    return worker;
  };
  const pool = createPool({ size: 1, spawnWorker });
  try {
    pool.warm();
    pool.prepare(['zstd'], 4096);
    while (!pool.ready) await new Promise((resolve) => setTimeout(resolve, 5));
    pool.prepare(['zstd', 'blosc']);
    pool.prepare(['blosc']);
    assert.deepEqual(posted, [['zstd'], ['blosc']]);
  } finally {
    pool.close();
  }
});
