// @ts-check
// Requests per operation, counted with a wrapping fetch against `chronozarr serve`, and the HTTP
// status rules (404 fill, 403 error, retries, Content-Range) against a faulty fetch over disk.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { FetchError, openStore } from '../src/index.js';
import { fileFetch } from '../src/reader/file-fetch.js';
import { asFetch, countingFetch, fixtures, serve } from './helpers.js';

const fx = fixtures();
/** @type {import('./helpers.js').Server} */
let server;
before(async () => {
  server = await serve(fx.stores);
});
after(async () => {
  await server?.stop();
});

const keyOf = (/** @type {string} */ url) => new URL(url).pathname.split('/').slice(2).join('/');

describe('request counts', () => {
  test('unsharded: one GET to open, one GET per chunk, none when cached', async () => {
    const counter = countingFetch();
    const store = await openStore(`${server.url}/i16-none-plain-blosc`, { fetch: counter.fetch });
    try {
      assert.deepEqual(counter.log.map((r) => keyOf(r.url)), ['zarr.json']);
      counter.reset();
      await store.getCell(0, 1, 2, 3);
      assert.deepEqual(counter.log.map((r) => [keyOf(r.url), r.range]), [['0/data/c/3/0/1/2', null]]);
      await store.getCell(0, 1, 2, 3);
      assert.equal(counter.log.length, 1);
      assert.ok(store.stats().cacheHits >= 1);
    } finally {
      store.close();
    }
  });

  test('a shard that shard_bytes does not list (a mask shard) costs a HEAD, then a bounded range', async () => {
    const counter = countingFetch();
    const store = await openStore(`${server.url}/u16-sd-shard-zstd`, { fetch: counter.fetch });
    try {
      counter.reset();
      await store.getMask(0, 0, 0, 0);
      const calls = counter.log.map((r) => [r.method, keyOf(r.url), r.range != null && r.range.startsWith('bytes=-')]);
      assert.deepEqual(calls, [['HEAD', '0/mask/c/0/0/0', false], ['GET', '0/mask/c/0/0/0', false], ['GET', '0/mask/c/0/0/0', false]]);
      assert.equal(store.stats().suffixes ?? 0, 0);
    } finally {
      store.close();
    }
  });

  test('star-delta: a delta timestep costs two GETs cold, one with its anchor cached', async () => {
    const counter = countingFetch();
    const store = await openStore(`${server.url}/u8-sd-plain-blosc`, { fetch: counter.fetch });
    try {
      assert.equal(store.referenceOf(1), 0);
      assert.equal(store.referenceOf(3), 4);
      assert.equal(store.referenceOf(5), 4);
      counter.reset();
      await store.getCell(0, 0, 0, 3);
      assert.deepEqual(counter.log.map((r) => keyOf(r.url)).sort(), ['0/data/c/3/0/0/0', '0/data/c/4/0/0/0']);
      counter.reset();
      await store.getCell(0, 0, 0, 5);
      assert.deepEqual(counter.log.map((r) => keyOf(r.url)), ['0/data/c/5/0/0/0']);
      counter.reset();
      await store.getCell(0, 0, 0, 4);
      assert.equal(counter.log.length, 0, 'the anchor itself is cached');
    } finally {
      store.close();
    }
  });

  test('sharded: the index once per shard as a bounded range (no HEAD, no suffix), then one range per chunk', async () => {
    const counter = countingFetch();
    const store = await openStore(`${server.url}/u16-sd-shard-blosc`, { fetch: counter.fetch });
    try {
      counter.reset();
      await store.getCell(0, 2, 1, 0);
      assert.equal(counter.log.length, 2);
      assert.ok(counter.log.every((r) => /^bytes=\d+-\d+$/.test(r.range ?? '')), JSON.stringify(counter.log));
      assert.ok(counter.log.every((r) => keyOf(r.url) === '0/data/c/0/0/2/1'));
      counter.reset();
      await store.getCell(0, 2, 1, 1); // delta of anchor 0, same shard
      await store.getCell(0, 2, 1, 2); // anchor, same shard
      assert.equal(counter.log.length, 2);
      counter.reset();
      await store.getCell(0, 2, 1, 5); // second time shard: its index, then the chunks of 5 and its anchor 4
      assert.equal(counter.log.length, 3);
      assert.ok(counter.log.every((r) => keyOf(r.url) === '0/data/c/1/0/2/1' && /^bytes=\d+-\d+$/.test(r.range ?? '')));
      assert.equal(store.stats().suffixes, 0);
      assert.equal(store.stats().shardIndexes, 2);
    } finally {
      store.close();
    }
  });

  for (const [name, requests] of [['i16-none-plain-blosc', 10], ['u8-none-shard-gzip', 19]]) {
    test(`first complete 3 x 3 view of ${name}: ${requests} requests`, async () => {
      const counter = countingFetch();
      const store = await openStore(`${server.url}/${name}`, { fetch: counter.fetch });
      try {
        const cells = [];
        for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) cells.push(store.getCell(0, r, c, 2));
        await Promise.all(cells);
        assert.equal(counter.log.length, requests);
      } finally {
        store.close();
      }
    });
  }
});

/** @typedef {NonNullable<Parameters<import('./helpers.js').ReaderFetch>[1]>} ReaderInit */

/**
 * A fetch over the fixture files that answers `fault(url, init)` when it returns a Response.
 * @param {(url: string, init: ReaderInit, calls: number) => Response | null | Promise<Response | null>} fault
 */
function faulty(fault) {
  /** @type {string[]} */
  const calls = [];
  /** @type {import('./helpers.js').ReaderFetch} */
  const fetch = async (url, init = {}) => {
    calls.push(String(url));
    const answer = await fault(String(url), init, calls.length);
    return answer ?? fileFetch(url, init);
  };
  return { fetch: asFetch(fetch), calls };
}

describe('HTTP status rules', () => {
  const path = () => join(fx.stores, 'u16-sd-shard-zstd');

  test('404 of a chunk or shard is fill', async () => {
    const { fetch } = faulty((url) => (url.includes('/0/data/c/') ? new Response(null, { status: 404 }) : null));
    const store = await openStore(path(), { fetch });
    try {
      const cell = await store.getCell(0, 0, 0, 1);
      assert.ok(cell.data.every((v) => v === 0), 'fill_value 0');
      assert.equal(store.stats().missing, 1);
    } finally {
      store.close();
    }
  });

  test('403 is a FetchError naming the URL and status, with no retry', async () => {
    const { fetch, calls } = faulty((url) => (url.includes('/0/data/c/') ? new Response(null, { status: 403 }) : null));
    const store = await openStore(path(), { fetch, retryDelaysMs: [1, 1] });
    try {
      await assert.rejects(store.getCell(0, 0, 0, 0), (err) => err instanceof FetchError && err.status === 403 && err.url.includes('0/data/c/0/0/0/0'));
      assert.equal(calls.filter((u) => u.includes('/0/data/c/')).length, 1);
    } finally {
      store.close();
    }
  });

  test('5xx and network errors are retried after retryDelaysMs, then fail', async () => {
    let failures = 0;
    const { fetch } = faulty((url) => {
      if (url.includes('/0/data/c/') && failures < 2) {
        failures++;
        if (failures === 1) return new Response(null, { status: 503 });
        throw new TypeError('network down');
      }
      return null;
    });
    const store = await openStore(path(), { fetch, retryDelaysMs: [1, 1] });
    try {
      await store.getCell(0, 0, 0, 0);
      assert.equal(store.stats().retries, 2);
    } finally {
      store.close();
    }
    const always = faulty((url) => (url.includes('/0/data/c/') ? new Response(null, { status: 500 }) : null));
    const broken = await openStore(path(), { fetch: always.fetch, retryDelaysMs: [1, 2] });
    try {
      await assert.rejects(broken.getCell(0, 0, 0, 0), (err) => err instanceof FetchError && err.status === 500 && /3 attempts/.test(err.message));
    } finally {
      broken.close();
    }
  });

  test('a 206 with the wrong Content-Range is refused; a 200 to a range is cut locally', async () => {
    const wrong = faulty(async (url, init) => {
      if (!init.headers?.Range || !url.includes('/0/data/c/')) return null;
      const real = await fileFetch(url, init);
      const body = new Uint8Array(await real.arrayBuffer());
      return new Response(body, { status: 206, headers: { 'Content-Range': 'bytes 0-3/99' } });
    });
    const store = await openStore(path(), { fetch: wrong.fetch });
    try {
      await assert.rejects(store.getCell(0, 0, 0, 0), (err) => err instanceof FetchError && /Content-Range/.test(err.message));
    } finally {
      store.close();
    }
    const whole = faulty((url, init) => (init.headers?.Range ? fileFetch(url, {}) : null));
    const store2 = await openStore(path(), { fetch: whole.fetch });
    try {
      const cell = await store2.getCell(0, 0, 0, 1);
      assert.equal(cell.data.length, 2 * 16 * 16);
      assert.ok(store2.stats().rangeAnsweredWhole >= 2);
    } finally {
      store2.close();
    }
  });

  test('a shard shorter than its index (no shard_bytes, read by a suffix range) is an error naming both sizes', async () => {
    const { fetch } = faulty(async (url, init) => {
      if (url.endsWith('/zarr.json') && !url.includes('/0/')) {
        // The same store as written by a writer that does not list shard lengths.
        const root = JSON.parse(await (await fileFetch(url, init)).text());
        delete root.attributes.chronozarr.shard_bytes;
        return new Response(JSON.stringify(root), { status: 200 });
      }
      // A 10-byte object, answered as RFC 9110 says for a longer suffix: the whole representation.
      if (/^bytes=-\d+$/.test(init.headers?.Range ?? '')) return new Response(new Uint8Array(10), { status: 206, headers: { 'Content-Range': 'bytes 0-9/10' } });
      return null;
    });
    const store = await openStore(path(), { fetch });
    try {
      await assert.rejects(store.getCell(0, 0, 0, 0, { mask: false }), (err) => err instanceof FetchError && /the object is 10 bytes, shorter than the last \d+ bytes asked for/.test(err.message));
    } finally {
      store.close();
    }
  });

  test('a body past its bound and a corrupt shard index are errors, not allocations', async () => {
    const big = faulty((url) => (url.endsWith('/0/data/c/0/0/0/0') ? new Response(new Uint8Array(10), { status: 200, headers: { 'Content-Length': String(2 ** 31) } }) : null));
    const store = await openStore(join(fx.stores, 'u16-sd-plain-zstd'), { fetch: big.fetch });
    try {
      await assert.rejects(store.getCell(0, 0, 0, 0, { mask: false }), (err) => err instanceof FetchError && /bound/.test(err.message));
    } finally {
      store.close();
    }
    const corrupt = faulty(async (url, init) => {
      if (!init.headers?.Range || !url.includes('/0/data/c/')) return null;
      const real = await fileFetch(url, init);
      const body = new Uint8Array(await real.arrayBuffer());
      body[0] ^= 0xff;
      return new Response(body, { status: 206, headers: { 'Content-Range': real.headers.get('content-range') ?? '' } });
    });
    const store2 = await openStore(path(), { fetch: corrupt.fetch });
    try {
      await assert.rejects(store2.getCell(0, 0, 0, 0), /checksum/);
    } finally {
      store2.close();
    }
  });

  test('an unsupported spec version or codec is refused by name', async () => {
    const version = faulty(async (url, init) => {
      if (!url.endsWith('/zarr.json') || url.includes('/0/')) return null;
      const doc = JSON.parse(await (await fileFetch(url, init)).text());
      doc.attributes.chronozarr.spec_version = '0.3.0';
      return new Response(JSON.stringify(doc), { status: 200 });
    });
    await assert.rejects(openStore(path(), { fetch: version.fetch }), /spec_version "0.3.0"/);
    const codec = faulty(async (url, init) => {
      if (!url.endsWith('/zarr.json') || url.includes('/0/')) return null;
      const doc = JSON.parse(await (await fileFetch(url, init)).text());
      doc.consolidated_metadata.metadata['0/data'].codecs[0].configuration.codecs[1].name = 'lzma';
      return new Response(JSON.stringify(doc), { status: 200 });
    });
    await assert.rejects(openStore(path(), { fetch: codec.fetch }), /unsupported codec "lzma"/);
  });
});
