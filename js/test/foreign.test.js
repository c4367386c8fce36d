// @ts-check
// Stores another implementation wrote (zarr-python from the spec text, tests/foreign_stores.py) read
// as numpy's true values, from disk, over HTTP and through a decode worker; layouts the reader
// cannot place, malformed metadata and corrupt objects are errors naming what is wrong, never
// wrong values.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { FetchError, StoreError, openStore } from '../src/index.js';
import { fileFetch } from '../src/reader/file-fetch.js';
import { asFetch, foreignStores, serve } from './helpers.js';

const fx = foreignStores();

/** @typedef {ReturnType<typeof fx.truth>} Truth numpy's values of every level of a store */
/** @typedef {(key: string, f: (doc: any) => void) => void} Edit rewrites one zarr.json through `f` */
/** @typedef {(edit: Edit, dir: string) => void} Change */
/** @typedef {[name: string, change: Change, pattern: RegExp]} Case a store, how it is changed, and the error that names it */

/**
 * The first pixel where (kind, lod, t, row, col) of the store differs from the truth, or null.
 * @param {ArrayLike<number>} got @param {Truth[number][string]} truth
 * @param {{ lod: number, t: number, row: number, col: number, cs: number, kind: string }} where
 */
function firstDifference(got, truth, { lod, t, row, col, cs, kind }) {
  const { values, shape } = truth;
  const banded = shape.length === 4;
  const [bands, height, width] = banded ? shape.slice(1) : [1, ...shape.slice(1)];
  for (let b = 0; b < bands; b++) {
    for (let y = row * cs; y < Math.min(height, (row + 1) * cs); y++) {
      for (let x = col * cs; x < Math.min(width, (col + 1) * cs); x++) {
        const want = values[((t * bands + b) * height + y) * width + x];
        const have = got[b * cs * cs + (y - row * cs) * cs + (x - col * cs)];
        if (!Object.is(have, want)) return `${kind} lod ${lod} t ${t} band ${b} pixel (${x}, ${y}): ${have}, expected ${want}`;
      }
    }
  }
  return null;
}

/** Every cell of every timestep at every level: data, mask and coverage equal the truth. @param {import('./helpers.js').Store} store @param {Truth} truth */
async function assertReadsExactly(store, truth) {
  assert.equal(store.levels.length, truth.length);
  for (const [lod, level] of truth.entries()) {
    const { gridRows, gridCols, chunkSize: cs } = store.levels[lod];
    assert.deepEqual([store.times.length, store.bands.length, store.levels[lod].height, store.levels[lod].width], level.data.shape);
    assert.equal(store.hasMask, Boolean(level.mask));
    assert.equal(store.hasCoverage, Boolean(level.coverage));
    for (let t = 0; t < store.times.length; t++) {
      for (let row = 0; row < gridRows; row++) {
        for (let col = 0; col < gridCols; col++) {
          const where = { lod, t, row, col, cs };
          const cell = await store.getCell(lod, row, col, t);
          assert.equal(firstDifference(cell.data, level.data, { ...where, kind: 'data' }), null);
          if (level.mask) {
            assert.ok(cell.mask, 'a store with a mask gives each cell its mask');
            assert.equal(firstDifference(cell.mask, level.mask, { ...where, kind: 'mask' }), null);
          }
          if (level.coverage) {
            const coverage = await store.getCoverage(lod, row, col, t);
            assert.ok(coverage, 'a store with coverage gives each cell its coverage');
            assert.equal(firstDifference(coverage.data, level.coverage, { ...where, kind: 'coverage' }), null);
          }
        }
      }
    }
  }
}

describe('foreign stores read exactly, from disk', () => {
  for (const name of fx.names) {
    test(name, async () => {
      const store = await openStore(join(fx.stores, name));
      try {
        await assertReadsExactly(store, fx.truth(name));
      } finally {
        store.close();
      }
    });
  }
});

describe('foreign stores over HTTP (chronozarr serve)', () => {
  /** @type {import('./helpers.js').Server} */
  let server;
  before(async () => {
    server = await serve(fx.stores);
  });
  after(async () => {
    await server?.stop();
  });
  for (const name of ['shard-time-without-shard-bytes', 'index-at-start', 'star-delta-3-sharded', 'reversed-keys', 'v01-root']) {
    test(name, async () => {
      const store = await openStore(`${server.url}/${name}`);
      try {
        await assertReadsExactly(store, fx.truth(name));
      } finally {
        store.close();
      }
    });
  }
});

test('foreign blosc lz4+shuffle and gzip stores read exactly through a decode worker', async () => {
  for (const name of ['blosc-lz4-shuffle', 'gzip']) {
    const store = await openStore(join(fx.stores, name), { workers: 1 });
    try {
      await assertReadsExactly(store, fx.truth(name));
    } finally {
      store.close();
    }
  }
});

/**
 * A copy of a foreign store, changed by `change(edit, dir)`; removed when the test ends.
 * @param {import('node:test').TestContext} t @param {string} name @param {Change} change
 */
function variant(t, name, change) {
  const parent = mkdtempSync(join(tmpdir(), 'chronozarr-foreign-'));
  t.after(() => rmSync(parent, { recursive: true, force: true }));
  const dir = join(parent, name);
  cpSync(join(fx.stores, name), dir, { recursive: true });
  /** Rewrite one zarr.json through `f`, which changes the document in place. @type {Edit} */
  const edit = (key, f) => {
    const path = join(dir, key, 'zarr.json');
    const doc = JSON.parse(readFileSync(path, 'utf8'));
    f(doc);
    writeFileSync(path, JSON.stringify(doc));
  };
  change(edit, dir);
  return dir;
}

/** An assert.rejects check: an error of `Type` whose message matches. @param {RegExp} pattern @param {new (...args: any[]) => Error} [Type] */
const refused = (pattern, Type = StoreError) => (/** @type {unknown} */ err) => {
  assert.ok(err instanceof Type, `${err}`);
  assert.match(err.message, pattern);
  return true;
};

/** Open and read the last timestep of cell (0, 0). @param {string} dir @param {import('../src/reader/settings.js').StoreOptions} [options] */
async function openAndRead(dir, options) {
  const store = await openStore(dir, { retryDelaysMs: [], ...options });
  try {
    return await store.getCell(0, 0, 0, store.times.length - 1);
  } finally {
    store.close();
  }
}

describe('chunk layouts the reader cannot place are refused at open, citing the spec', () => {
  /** @param {string} key @param {number[]} shape @returns {Change} */
  const chunking = (key, shape) => (edit) => edit(key, (doc) => (doc.chunk_grid.configuration.chunk_shape = shape));
  /** @type {Record<string, Case>} */
  const cases = {
    'a time chunk of 2': ['not-consolidated', chunking('0/data', [2, 2, 16, 16]), /0\/data: chunk shape \[2,2,16,16\] is not \[1, n_band, cs, cs\] .*\(spec 2\.1\)/],
    'a band chunk of 1': ['not-consolidated', chunking('0/data', [1, 1, 16, 16]), /chunk shape \[1,1,16,16\] is not \[1, n_band, cs, cs\]/],
    'non-square chunks': ['not-consolidated', chunking('0/data', [1, 2, 16, 32]), /chunk shape \[1,2,16,32\] is not \[1, n_band, cs, cs\]/],
    'a mask with another chunk size': ['mask-without-coverage', chunking('0/mask', [1, 8, 8]), /0\/mask: chunk shape \[1,8,8\] is not \[1, cs, cs\] with the data array's cs .*\(spec 2\.4\)/],
    'a shard spanning several cells': ['shard-time-without-shard-bytes', chunking('0/data', [2, 2, 32, 32]), /shard shape \[2,2,32,32\] must be \[shard_time, 2, 16, 16\] \(spec 7\.1\)/],
    'a level with fewer timesteps': ['not-consolidated', (edit) => edit('1/data', (doc) => (doc.shape[0] = 4)), /1\/data: shape \[4,2,20,18\] has n_time, n_band \[4, 2\]; level 0 has \[5, 2\]/],
    'a mask smaller than the data': ['mask-without-coverage', (edit) => edit('0/mask', (doc) => (doc.shape[1] = 32)), /0\/mask: shape \[5,32,36\] must be \[n_time, H, W\] = \[5,40,36\] \(spec 2\.4\)/],
  };
  for (const [label, [name, change, pattern]] of Object.entries(cases)) {
    test(label, async (t) => {
      const dir = variant(t, name, (edit, copy) => {
        edit('', (doc) => delete doc.consolidated_metadata);
        change(edit, copy);
      });
      await assert.rejects(openStore(dir), refused(pattern));
    });
  }
});

describe('fill_value', () => {
  /** The store with data fill_value `value` and its chunk (t 4, cell 0, 0) deleted. @param {import('node:test').TestContext} t @param {string} name @param {unknown} value */
  const withFill = (t, name, value) =>
    variant(t, name, (edit, dir) => {
      edit('', (doc) => delete doc.consolidated_metadata);
      edit('0/data', (doc) => (doc.fill_value = value));
      rmSync(join(dir, '0/data/c/4/0/0/0'));
    });

  for (const [value, expected] of [['NaN', NaN], ['Infinity', Infinity], ['-Infinity', -Infinity], ['0x3fc00000', 1.5], ['0xBF800000', -1]]) {
    test(`the Zarr v3 form ${JSON.stringify(value)} is a float32 fill of ${expected}`, async (t) => {
      const cell = await openAndRead(withFill(t, 'float32-no-nodata', value));
      assert.ok(cell.data.every((v) => Object.is(v, expected)), `${cell.data.slice(0, 4)}`);
    });
  }

  for (const value of ['zero', null, 70000, -1, 1.5, true, 'NaN']) {
    test(`${JSON.stringify(value)} is refused for uint16 at open`, async (t) => {
      await assert.rejects(openStore(withFill(t, 'not-consolidated', value)), refused(/0\/data: fill_value .* is not a uint16 value/));
    });
  }
});

describe('malformed root attributes are errors naming the field', () => {
  /** @param {string} name @param {(block: any, doc: any) => void} f @returns {[string, Change]} */
  const block = (name, f) => [name, (edit) => edit('', (doc) => f(doc.attributes.chronozarr, doc))];
  /** @type {Record<string, Case>} */
  const cases = {
    'nodata as a string': [...block('not-consolidated', (b) => (b.nodata = '0')), /chronozarr\.nodata must be a finite number or null, got "0"/],
    'shard_bytes not an object': [...block('shard-time-not-dividing', (b) => (b.shard_bytes = 'x')), /chronozarr\.shard_bytes must map level paths/],
    'shard_bytes with a level that is not an object': [...block('shard-time-not-dividing', (b) => (b.shard_bytes = { 0: 5 })), /shard_bytes .* entry "0" is 5/],
    'shard_bytes with a length that is not an integer': [...block('shard-time-not-dividing', (b) => (b.shard_bytes['0']['0/0/0'] = '957')), /shard_bytes .*\["0"\]\["0\/0\/0"\] is "957", not a byte length/],
    'bands as a string': [...block('not-consolidated', (b) => (b.bands = 'B0')), /chronozarr\.bands must be a list of band objects, got "B0"/],
    'times as numbers': [...block('not-consolidated', (b) => (b.times = [1, 2, 3, 4, 5])), /chronozarr\.times\[0\] must be an ISO-8601 timestamp string, got 1/],
    'times that are not dates': [...block('not-consolidated', (b) => (b.times[2] = 'March')), /chronozarr\.times\[2\] must be an ISO-8601 timestamp string, got "March"/],
    'anchor_indices not a list of integers': [...block('star-delta-3', (b) => (b.temporal.anchor_indices = [0, '3', 6])), /chronozarr\.temporal\.anchor_indices must be a list of timestep indices/],
    'a level transform that is not a list': [...block('not-consolidated', (b) => (b.levels[0].transform = 'abc')), /level 0 transform must have 6 numbers, got "abc"/],
    'a level resolution that is not a number': [...block('not-consolidated', (b) => (b.levels[1].resolution = 'ten')), /level 1 resolution must be a positive number, got "ten"/],
    'no levels mirror and no multiscales': [...block('not-consolidated', (b, doc) => {
      delete b.levels;
      delete doc.attributes.multiscales;
    }), /no chronozarr\.levels and no multiscales\[0\]\.datasets/],
    'storage transformers on the data array': ['not-consolidated', (edit) => edit('0/data', (doc) => (doc.storage_transformers = [{ name: 'other' }])), /0\/data: storage_transformers .* are not supported/],
    'an array zarr.json that is not JSON': ['not-consolidated', (edit, dir) => writeFileSync(join(dir, '0/data/zarr.json'), '{"zarr_format": 3,'), /0\/data\/zarr\.json is not valid JSON/],
    'a root zarr.json that is not JSON': ['not-consolidated', (edit, dir) => writeFileSync(join(dir, 'zarr.json'), '<html>not found</html>'), /zarr\.json is not valid JSON/],
  };
  for (const [label, [name, change, pattern]] of Object.entries(cases)) {
    test(label, async (t) => {
      await assert.rejects(openStore(variant(t, name, change)), refused(pattern));
    });
  }

  test('empty bands fall back to band_names; a consolidated entry that is not an object defers to the node document', async (t) => {
    const dir = variant(t, 'zstd-consolidated', (edit) =>
      edit('', (doc) => {
        doc.attributes.chronozarr.bands = [];
        doc.consolidated_metadata.metadata['0/data'] = 'not a document';
      }),
    );
    const store = await openStore(dir);
    try {
      assert.deepEqual([...store.bandNames], ['B0', 'B1']);
      await assertReadsExactly(store, fx.truth('zstd-consolidated'));
    } finally {
      store.close();
    }
  });
});

describe('corrupt objects are errors, never wrong values', () => {
  /** @param {string} key @param {number} by @returns {Change} */
  const truncate = (key, by) => (edit, dir) => truncateSync(join(dir, key), statSync(join(dir, key)).size - by);
  /** @param {string} key @param {number} from @returns {Change} */
  const flip = (key, from) => (edit, dir) => {
    const bytes = readFileSync(join(dir, key));
    bytes[from < 0 ? bytes.length + from : from] ^= 0xff;
    writeFileSync(join(dir, key), bytes);
  };
  const chunk = '0/data/c/4/0/0/0';
  const shard = '0/data/c/2/0/0/0';
  /** @type {Record<string, Case>} */
  const cases = {
    'a truncated zstd chunk': ['zstd-consolidated', truncate(chunk, 10), /c\/4\/0\/0\/0: chunk does not decode/],
    'a truncated gzip chunk': ['gzip', truncate(chunk, 1), /c\/4\/0\/0\/0: chunk does not decode \(unexpected end of file\)/],
    'a truncated blosc chunk': ['blosc-lz4-shuffle', truncate(chunk, 1), /chunk does not decode \(blosc header says \d+ compressed bytes, the chunk has \d+\)/],
    'a truncated int16 blosc chunk': ['int16-blosc', truncate(chunk, 10), /blosc header says \d+ compressed bytes/],
    // zstddec refuses the frame (its content checksum fails): corrupt, named with the chunk.
    'a zstd chunk failing its checksum': ['zstd-consolidated', flip(chunk, -1), /c\/4\/0\/0\/0: chunk does not decode \(the zstd frame is corrupt/],
    'a shard index failing its crc32c (shard_bytes)': ['shard-time-not-dividing', flip(shard, -2), /c\/2\/0\/0\/0: shard index checksum mismatch/],
    'a shard index failing its crc32c (suffix read)': ['shard-time-without-shard-bytes', flip(shard, -2), /shard index checksum mismatch/],
    'a shard index failing its crc32c (index at start)': ['index-at-start', flip(shard, 3), /shard index checksum mismatch/],
    'a shard shorter than shard_bytes says': ['shard-time-not-dividing', truncate(shard, 5), /Content-Range "bytes \d+-\d+\/\d+" to a request for bytes/],
  };
  for (const [label, [name, change, pattern]] of Object.entries(cases)) {
    test(label, async (t) => {
      const dir = variant(t, name, change);
      await assert.rejects(openAndRead(dir), refused(pattern, Error));
      await assert.rejects(openAndRead(dir, { workers: 1 }), refused(pattern, Error));
    });
  }
});

describe('HTTP answers to range requests on foreign sharded stores', () => {
  /** A file fetch whose answers to range requests go through `answer(response)`. @param {(response: Response) => Promise<Response>} answer */
  const ranged = (answer) => asFetch(async (url, init = {}) => {
    const response = await fileFetch(url, init);
    return init.headers?.Range ? answer(response) : response;
  });
  const whole = asFetch((url, init = {}) => fileFetch(url, { ...init, headers: {} }));
  const shifted = ranged(async (response) => {
    const body = new Uint8Array(await response.arrayBuffer());
    const range = /bytes (\d+)-(\d+)\/(\d+)/.exec(response.headers.get('content-range') ?? '');
    assert.ok(range, 'a range request is answered with a Content-Range');
    const [, start, end, total] = range.map(Number);
    return new Response(body, { status: 206, headers: { 'Content-Range': `bytes ${start + 1}-${end + 1}/${total}` } });
  });
  const forbidden = asFetch(async (url, init = {}) => (init.method === 'HEAD' ? new Response(null, { status: 403 }) : fileFetch(url, init)));

  for (const name of ['index-at-start', 'shard-time-without-shard-bytes', 'star-delta-3-sharded']) {
    test(`200 with the whole object is cut locally: ${name} reads exactly`, async () => {
      const store = await openStore(join(fx.stores, name), { fetch: whole });
      try {
        await assertReadsExactly(store, fx.truth(name));
        assert.ok(store.stats().rangeAnsweredWhole > 0);
      } finally {
        store.close();
      }
    });
  }

  for (const name of ['index-at-start', 'shard-time-without-shard-bytes', 'shard-time-not-dividing']) {
    test(`a Content-Range that is not the range asked for is an error: ${name}`, async () => {
      await assert.rejects(openAndRead(join(fx.stores, name), { fetch: shifted }), refused(/answered Content-Range .* to a request for bytes/, FetchError));
    });
  }

  test('403 to the HEAD of a shard shard_bytes does not list is an error, not fill', async () => {
    const dir = join(fx.stores, 'mask-and-coverage-sharded');
    const store = await openStore(dir, { fetch: forbidden, retryDelaysMs: [] });
    try {
      await assert.rejects(store.getMask(0, 0, 0, 0), (/** @type {unknown} */ err) => err instanceof FetchError && err.status === 403);
    } finally {
      store.close();
    }
  });
});
