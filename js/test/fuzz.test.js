// @ts-check
// Fuzz targets for the JS reader, from a seeded generator: root and array documents of honest
// stores with parts replaced, removed or nested deep (and their text damaged), chunk bytes for
// every codec, shard indexes against an independent check of spec 7.2, the time coordinate read
// when the times mirror is absent, level shapes, and keys that are directories on disk. Allowed outcomes:
// values of the right size, or the reader's own StoreError / FetchError.
//
// `node --test` runs a short deterministic slice (fixed seeds); with FUZZ_SECONDS set each target
// draws fresh seeds until its seconds are spent, and FUZZ_REPORT names a file for one JSON line
// per target (docs/reliability.md is written from them by `make fuzz`).
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import { openStore } from '../src/index.js';
import { decodeBytes } from '../src/reader/codecs.js';
import { crc32c } from '../src/reader/crc32c.js';
import { parseShardIndex } from '../src/reader/shards.js';
import { asFetch, hostileStores, streamedZstd } from './helpers.js';

const SECONDS = Number(process.env.FUZZ_SECONDS || 0);
const { dir } = hostileStores();

/** @typedef {ReturnType<typeof random>} Rng */

/** mulberry32: a small seeded generator, so every slice case is the same on every run. @param {number} seed */
function random(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (/** @type {number} */ n) => Math.floor(next() * n);
  /** @template T @param {readonly T[]} list @returns {T} */
  const pick = (list) => list[int(list.length)];
  return { next, int, pick };
}

/**
 * Run `check(rng)` for the slice's seeds, or for fresh seeds until FUZZ_SECONDS pass.
 * @param {string} name @param {number} sliceCases @param {(rng: Rng, seed: number) => Promise<void>} check
 */
async function run(name, sliceCases, check) {
  const started = Date.now();
  let cases = 0;
  if (SECONDS > 0) {
    const base = Date.now();
    while (Date.now() - started < SECONDS * 1000) await check(random(base + cases++), cases);
  } else {
    for (let seed = 1; seed <= sliceCases; seed++, cases++) await check(random(seed), seed);
  }
  if (process.env.FUZZ_REPORT) {
    const line = { language: 'js', target: name, examples: cases, seconds: Math.round((Date.now() - started) / 100) / 10 };
    appendFileSync(process.env.FUZZ_REPORT, `${JSON.stringify(line)}\n`);
  }
}

const EDGE = [0, -1, 1, 2 ** 31, 2 ** 53, 2 ** 53 + 2, 1e300, -0, 0.5, null, true, false, '', '0', 'NaN', 'zstd', 'star-delta', 'none', '../x', '2024-01-01T00:00:00Z', '99999-01-01'];

/** A random JSON value, edge cases often. @param {Rng} rng @returns {any} */
function jsonValue(rng, depth = 0) {
  const roll = rng.int(depth > 2 ? 3 : 5);
  if (roll === 0) return rng.pick(EDGE);
  if (roll === 1) return rng.int(2 ** 31) - 2 ** 30;
  if (roll === 2) return String.fromCharCode(...Array.from({ length: rng.int(6) }, () => 32 + rng.int(90)));
  if (roll === 3) return Array.from({ length: rng.int(4) }, () => jsonValue(rng, depth + 1));
  return Object.fromEntries(Array.from({ length: rng.int(4) }, (_, i) => [`k${i}`, jsonValue(rng, depth + 1)]));
}

/** Every path into a JSON value (the first 16 members of each level). @param {any} doc @param {(string | number)[]} [prefix] */
function paths(doc, prefix = []) {
  const out = [prefix];
  if (doc && typeof doc === 'object') for (const [k, v] of Object.entries(doc).slice(0, 16)) out.push(...paths(v, [...prefix, Array.isArray(doc) ? Number(k) : k]));
  return out;
}

/** `doc` with a few places replaced, removed, nested deep or repeated; or its text damaged. @param {Rng} rng @param {any} doc */
function mutateDocument(rng, doc) {
  const out = structuredClone(doc);
  for (let i = 0, n = 1 + rng.int(3); i < n; i++) {
    const places = paths(out).filter((p) => p.length);
    if (!places.length) break;
    const place = rng.pick(places);
    const parent = place.slice(0, -1).reduce((/** @type {any} */ v, k) => v[k], out);
    const key = /** @type {string | number} */ (place.at(-1));
    const action = rng.pick(['replace', 'replace', 'replace', 'remove', 'deepen', 'grow']);
    if (action === 'remove') Array.isArray(parent) ? parent.splice(Number(key), 1) : delete parent[key];
    else if (action === 'deepen') {
      let value = parent[key];
      for (let d = 0, depth = rng.pick([2, 50, 70, 300]); d < depth; d++) value = [value];
      parent[key] = value;
    } else if (action === 'grow' && Array.isArray(parent[key])) parent[key] = Array.from({ length: rng.pick([2, 100]) }, () => parent[key]).flat();
    else parent[key] = jsonValue(rng);
  }
  let text = JSON.stringify(out);
  if (rng.int(8) === 0) {
    const at = rng.int(text.length);
    text = text.slice(0, at) + rng.pick(['Infinity', '{', ']', '"', '\u0000', '1e999', '']) + text.slice(at + rng.int(4));
  }
  return new TextEncoder().encode(text);
}

/** Every object of the store at `root`, by key. @param {string} root */
function storeObjects(root) {
  /** @type {Map<string, Uint8Array<ArrayBuffer>>} */
  const objects = new Map();
  const walk = (/** @type {string} */ d) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else objects.set(relative(root, path).split('\\').join('/'), new Uint8Array(readFileSync(path)));
    }
  };
  walk(root);
  return objects;
}

/** A fetch over a Map of objects, answering as a good static host does (200, 206, 404, 416). @param {Map<string, Uint8Array<ArrayBuffer>>} objects */
function memoryFetch(objects) {
  return asFetch(async (input, init = {}) => {
    const key = decodeURIComponent(new URL(String(input)).pathname.replace(/^\/s\//, ''));
    const body = objects.get(key);
    if (!body) return new Response(null, { status: 404 });
    if (init.method === 'HEAD') return new Response(null, { status: 200, headers: { 'Content-Length': String(body.length) } });
    const match = /^bytes=(\d*)-(\d*)$/.exec(init.headers?.Range ?? '');
    if (!match) return new Response(body, { status: 200, headers: { 'Content-Length': String(body.length) } });
    const start = match[1] === '' ? Math.max(0, body.length - Number(match[2])) : Number(match[1]);
    const end = match[1] === '' || match[2] === '' ? body.length - 1 : Math.min(Number(match[2]), body.length - 1);
    if (start >= body.length || start > end) return new Response(null, { status: 416, headers: { 'Content-Range': `bytes */${body.length}` } });
    return new Response(body.slice(start, end + 1), { status: 206, headers: { 'Content-Length': String(end - start + 1), 'Content-Range': `bytes ${start}-${end}/${body.length}` } });
  });
}

const BASES = Object.fromEntries(['star', 'sharded'].map((name) => [name, storeObjects(join(dir, 'bases', name))]));
const OURS = ['StoreError', 'FetchError'];

/**
 * Open, read the first and last timestep of the first cell of every level, and a mask: from the
 * objects over a memory fetch, or from a directory.
 * @param {Map<string, Uint8Array<ArrayBuffer>> | string} objects
 */
async function readEverything(objects) {
  let store;
  try {
    const options = { workers: 0, retryDelaysMs: [], timeoutMs: 2000 };
    store = typeof objects === 'string' ? await openStore(objects, options) : await openStore('http://fuzz.invalid/s', { ...options, fetch: memoryFetch(objects) });
    const n = store.times.length;
    for (const level of store.levels.slice(0, 3)) {
      if (!level.gridRows || !level.gridCols || !n) continue;
      for (const t of new Set([0, n - 1])) {
        const cell = await store.getCell(level.index, 0, 0, t);
        assert.ok(cell.data.length >= cell.width * cell.height);
      }
    }
  } catch (err) {
    if (err instanceof assert.AssertionError) throw err;
    const e = /** @type {Error | undefined} */ (err);
    assert.ok(OURS.includes(e?.name ?? ''), `${e?.name}: ${e?.message}\n${e?.stack}`);
  } finally {
    store?.close();
  }
}

test('fuzz: root documents', async () => {
  await run('js_root_documents', 60, async (rng) => {
    const base = BASES[rng.pick(['star', 'sharded'])];
    const root = JSON.parse(new TextDecoder().decode(base.get('zarr.json')));
    await readEverything(new Map([...base, ['zarr.json', mutateDocument(rng, root)]]));
  });
});

test('fuzz: array documents', async () => {
  await run('js_array_documents', 60, async (rng) => {
    const base = BASES[rng.pick(['star', 'sharded'])];
    const root = JSON.parse(new TextDecoder().decode(base.get('zarr.json')));
    const text = mutateDocument(rng, root.consolidated_metadata.metadata['0/data']);
    let doc;
    try {
      doc = JSON.parse(new TextDecoder().decode(text));
    } catch {
      doc = null; // text the parser refuses: the node's own document stays broken
    }
    root.consolidated_metadata.metadata['0/data'] = doc;
    await readEverything(new Map([...base, ['zarr.json', new TextEncoder().encode(JSON.stringify(root))], ['0/data/zarr.json', text]]));
  });
});

const RAW = new Uint8Array(readFileSync(join(dir, 'blosc', 'raw.bin')));
/** @type {Record<string, [import('../src/reader/codecs.js').CodecSpec, string]>} */
const CODECS = {
  zstd: [{ name: 'zstd' }, 'zstd.bin'],
  gzip: [{ name: 'gzip' }, 'gzip.bin'],
  'blosc-lz4-shuffle': [{ name: 'blosc', cname: 'lz4', shuffle: 'shuffle', itemSize: 2 }, 'lz4-shuffle.bin'],
  'blosc-zstd-noshuffle': [{ name: 'blosc', cname: 'zstd', shuffle: 'noshuffle', itemSize: 2 }, 'zstd-noshuffle.bin'],
};

/** `data` flipped, cut, grown, replaced by noise or emptied. @param {Rng} rng @param {Uint8Array} data */
function mutateBytes(rng, data) {
  const kind = rng.pick(['flip', 'flip', 'cut', 'insert', 'noise', 'empty']);
  if (kind === 'empty') return new Uint8Array(0);
  if (kind === 'noise') return Uint8Array.from({ length: rng.int(2 * data.length + 16) }, () => rng.int(256));
  if (kind === 'cut') return data.slice(0, rng.int(data.length));
  if (kind === 'insert') {
    const at = rng.int(data.length + 1);
    const extra = Uint8Array.from({ length: 1 + rng.int(64) }, () => rng.int(256));
    return Uint8Array.from([...data.subarray(0, at), ...extra, ...data.subarray(at)]);
  }
  const out = data.slice();
  for (let i = 0, n = 1 + rng.int(8); i < n; i++) out[rng.int(out.length)] ^= 1 + rng.int(255);
  return out;
}

test('fuzz: chunk bytes of every codec', async () => {
  const encoded = Object.fromEntries(Object.entries(CODECS).map(([name, [, file]]) => [name, new Uint8Array(readFileSync(join(dir, 'blosc', file)))]));
  await run('js_chunk_bytes', 200, async (rng) => {
    const name = rng.pick(Object.keys(CODECS));
    const data = mutateBytes(rng, encoded[name]);
    let out;
    try {
      out = await decodeBytes(CODECS[name][0], data, RAW.length, 'chunk');
    } catch (err) {
      assert.equal(/** @type {Error} */ (err).name, 'StoreError', `${name}: ${/** @type {Error} */ (err).message}`);
      return;
    }
    assert.equal(out.length, RAW.length);
  });
});

const EMPTY = 2n ** 64n - 1n;

/** Spec 7.2 checked pair by pair with BigInt: no code shared with shards.js. */
/** @param {bigint[][]} entries @param {bigint} first @param {bigint | null} end */
function oracle(entries, first, end) {
  /** @type {bigint[][]} */
  const stored = [];
  for (const [offset, length] of entries) {
    if ((offset === EMPTY) !== (length === EMPTY)) return false;
    if (offset === EMPTY) continue;
    // JS numbers hold offsets and lengths below 2^53 exactly; a shard is never larger
    if (length === 0n || offset >= 2n ** 53n || length >= 2n ** 53n || offset < first || (end != null && offset + length > end)) return false;
    stored.push([offset, offset + length]);
  }
  return stored.every(([a, b], i) => stored.slice(i + 1).every(([c, d]) => b <= c || d <= a));
}

test('fuzz: shard indexes against an independent check of spec 7.2', async () => {
  await run('js_shard_indexes', 300, async (rng) => {
    const n = 1 + rng.int(6);
    const entries = Array.from({ length: n }, () => {
      const roll = rng.int(6);
      if (roll === 0) return [EMPTY, EMPTY];
      if (roll === 1) return [rng.pick([0n, EMPTY, 2n ** 60n, 2n ** 53n - 1n, 2n ** 53n]), rng.pick([BigInt(rng.int(300)), 2n ** 53n - 1n, EMPTY])];
      return [BigInt(rng.int(400)), BigInt(rng.int(200))];
    });
    const atEnd = rng.int(2) === 0;
    const length = rng.int(3) === 0 ? null : 16 * n + 4 + rng.int(500);
    const raw = new Uint8Array(16 * n + 4);
    const view = new DataView(raw.buffer);
    entries.forEach(([o, l], i) => {
      view.setBigUint64(16 * i, o, true);
      view.setBigUint64(16 * i + 8, l, true);
    });
    view.setUint32(16 * n, crc32c(raw.subarray(0, 16 * n)), true);
    const info = /** @type {import('../src/reader/arrays.js').ArrayInfo} */ ({ chunksPerShard: n, indexBytes: 16 * n + 4, indexAtEnd: atEnd });
    const first = BigInt(atEnd ? 0 : 16 * n + 4);
    const end = length == null ? null : BigInt(atEnd ? length - 16 * n - 4 : length);
    let accepted = true;
    try {
      parseShardIndex(raw, info, length, 'shard');
    } catch (err) {
      assert.equal(/** @type {Error} */ (err).name, 'StoreError');
      accepted = false;
    }
    assert.equal(accepted, oracle(entries, first, end), `entries ${entries.join(' ')}, span ${first}-${end}`);
  });
});

/** The root document of a base, parsed. @param {Map<string, Uint8Array<ArrayBuffer>>} base @returns {any} */
const rootOf = (base) => JSON.parse(new TextDecoder().decode(base.get('zarr.json')));
const encodeJson = (/** @type {any} */ doc) => new TextEncoder().encode(JSON.stringify(doc));

test('fuzz: the time coordinate, read when the times mirror is absent', async () => {
  await run('js_time_coordinate', 60, async (rng) => {
    const base = BASES[rng.pick(['star', 'sharded'])];
    const root = rootOf(base);
    delete root.attributes.chronozarr.times;
    const objects = new Map([...base, ['zarr.json', encodeJson(root)]]);
    const kind = rng.pick(['bytes', 'bomb', 'document']);
    if (kind === 'bytes') objects.set('0/time/c/0', mutateBytes(rng, /** @type {Uint8Array} */ (base.get('0/time/c/0'))));
    else if (kind === 'bomb') objects.set('0/time/c/0', streamedZstd(2 ** 30));
    else {
      const text = mutateDocument(rng, root.consolidated_metadata.metadata['0/time']);
      root.consolidated_metadata.metadata['0/time'] = null; // the node's own document is read
      objects.set('zarr.json', encodeJson(root)).set('0/time/zarr.json', text);
    }
    const before = process.resourceUsage().maxRSS * 1024;
    await readEverything(objects);
    const grown = process.resourceUsage().maxRSS * 1024 - before;
    assert.ok(grown < 256 * 2 ** 20, `${kind}: peak memory grew ${grown} bytes`);
  });
});

test('fuzz: level shapes, with and without the levels mirror', async () => {
  const EXTENTS = [0, 1, 15, 16, 17, 2 ** 20, 2 ** 31, 2 ** 53];
  await run('js_level_shapes', 60, async (rng) => {
    const base = BASES[rng.pick(['star', 'sharded'])];
    const root = rootOf(base);
    const block = root.attributes.chronozarr;
    const level = rng.int(block.levels.length);
    const dim = rng.int(4);
    const extent = rng.int(2) ? rng.pick(EXTENTS) : rng.int(2 ** 40);
    const doc = root.consolidated_metadata.metadata[`${level}/data`];
    const mirrored = rng.int(2) === 0;
    const disagrees = doc.shape[dim] !== extent && !mirrored;
    doc.shape[dim] = extent;
    if (mirrored) block.levels[level].shape[dim] = extent;
    const objects = new Map([...base, ['zarr.json', encodeJson(root)], [`${level}/data/zarr.json`, encodeJson(doc)]]);
    if (disagrees) {
      await assert.rejects(openStore('http://fuzz.invalid/s', { fetch: memoryFetch(objects), workers: 0 }), (/** @type {Error} */ err) => err.name === 'StoreError');
    }
    await readEverything(objects);
  });
});

test('fuzz: keys that are directories on disk', async () => {
  await run('js_directory_keys', 12, async (rng) => {
    const base = BASES[rng.pick(['star', 'sharded'])];
    const root = mkdtempSync(join(tmpdir(), 'chronozarr-fuzz-dirs-'));
    try {
      for (const [key, data] of base) {
        mkdirSync(dirname(join(root, key)), { recursive: true });
        writeFileSync(join(root, key), data);
      }
      // a chunk (or shard) of cell (0, 0) at level 0: reading its timestep must name it, not read fill
      const key = rng.pick([...base.keys()].filter((k) => k.startsWith('0/data/c/') && k.endsWith('/0/0/0')).sort());
      rmSync(join(root, key));
      mkdirSync(join(root, key));
      writeFileSync(join(root, key, '0'), new Uint8Array(8));
      const store = await openStore(root, { workers: 0 });
      try {
        await assert.rejects(store.getCell(0, 0, 0, Number(key.split('/')[3])), (/** @type {Error} */ err) => err.name === 'StoreError' && err.message.includes(key));
      } finally {
        store.close();
      }
      await readEverything(root);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
