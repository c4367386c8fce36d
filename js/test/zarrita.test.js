// @ts-check
// zarrita (the Zarr reader zarr-layer and most JS apps use) on chronozarr `none` stores written by
// the Python writer: level 0 through its own API, pixel values compared with the writer's input.
// docs/interop.md reports this result.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as zarr from 'zarrita';
import { FileSystemStore } from '@zarrita/storage';
import { python, repo } from './helpers.js';

const VERSION = JSON.parse(readFileSync(join(repo, 'js/node_modules/zarrita/package.json'), 'utf8')).version;

describe(`zarrita ${VERSION}`, () => {
  /** @type {string} */
  let dir;
  /** @type {Record<string, { crs: string, t: number, band: number, inside: { x: number, y: number, value: number }[] }>} */
  let expected;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'chronozarr-zarrita-'));
    const run = spawnSync(python, [join(repo, 'js/e2e/zarr_layer_stores.py'), dir], { encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
    if (run.status !== 0) throw new Error(run.stderr);
    expected = JSON.parse(run.stdout);
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const name of ['utm', 'lonlat']) {
    test(`reads level 0 of the ${name} store exactly, with dimension names and the CRS attributes`, async () => {
      const e = expected[name];
      const root = zarr.root(new FileSystemStore(join(dir, name)));
      const data = await zarr.open.v3(root.resolve('0/data'), { kind: 'array' });
      assert.deepEqual(data.dimensionNames, ['time', 'band', 'y', 'x']);
      assert.equal(data.attrs['proj:code'], e.crs);
      assert.equal(data.attrs.grid_mapping, 'spatial_ref');
      const plane = await zarr.get(data, [e.t, e.band, null, null]);
      const width = plane.shape[1];
      const values = /** @type {ArrayLike<unknown>} */ (plane.data);
      for (const p of e.inside) assert.equal(values[p.y * width + p.x], p.value, `pixel ${p.x},${p.y}`);
      const ref = await zarr.open.v3(root.resolve('0/spatial_ref'), { kind: 'array' });
      assert.deepEqual(ref.shape, []);
      assert.match(String(ref.attrs.crs_wkt), e.crs === 'EPSG:4326' ? /WGS 84/ : /UTM zone 31N/);
    });
  }
});

test(`zarrita ${VERSION} reads a store written with --checksum (the crc32c codec after zstd)`, async () => {
  const { hostileStores } = await import('./helpers.js');
  const { openStore } = await import('../src/index.js');
  const { dir } = hostileStores();
  const root = zarr.root(new FileSystemStore(join(dir, 'checksum', 'honest')));
  const data = await zarr.open.v3(root.resolve('0/data'), { kind: 'array' });
  const plane = await zarr.get(data, [2, 0, null, null]);
  const store = await openStore(join(dir, 'checksum', 'honest'), { workers: 0 });
  try {
    const cell = await store.getCell(0, 0, 0, 2);
    const width = plane.shape[1];
    const values = /** @type {ArrayLike<number>} */ (plane.data);
    for (let y = 0; y < cell.height; y++) for (let x = 0; x < cell.width; x++) assert.equal(values[y * width + x], cell.data[y * cell.chunkWidth + x]);
  } finally {
    store.close();
  }
});

describe(`zarrita ${VERSION} and the history array`, () => {
  /** @type {ReturnType<import('./helpers.js').historyStores>} */
  let hx;
  before(async () => {
    const { historyStores } = await import('./helpers.js');
    hx = historyStores();
  });

  // writer-*: version 1.2 (blosc zstd with bit shuffle, crc32c after it in writer-star);
  // none-one-block and star-blocks: version 1.0 arrays written with level 0's codecs.
  for (const name of ['writer-star', 'writer-none-blocks', 'none-one-block', 'star-blocks']) {
    test(`reads a pixel's whole history from the history array exactly: ${name}`, async () => {
      const { index } = hx;
      const root = zarr.root(new FileSystemStore(join(hx.stores, name)));
      const history = await zarr.open.v3(root.resolve('history'), { kind: 'array' });
      assert.deepEqual(history.dimensionNames, ['time', 'band', 'y', 'x']);
      for (const pixel of /** @type {{ y: number, x: number, values: number[][] }[]} */ (index[name].pixels)) {
        const got = await zarr.get(history, [null, null, pixel.y, pixel.x]);
        const bands = got.shape[1];
        const values = Array.from(/** @type {ArrayLike<number>} */ (got.data));
        const rows = pixel.values.map((_, t) => values.slice(t * bands, (t + 1) * bands));
        assert.deepEqual(rows, pixel.values, `pixel ${pixel.y},${pixel.x}`);
      }
    });
  }

  test('the writer declares version 1.2 with blosc bit shuffle inside the shard', () => {
    const doc = JSON.parse(readFileSync(join(hx.stores, 'writer-star', 'history', 'zarr.json'), 'utf8'));
    const inner = doc.codecs[0].configuration.codecs;
    assert.deepEqual(inner.map((/** @type {{ name: string }} */ c) => c.name), ['bytes', 'blosc', 'crc32c']);
    assert.equal(inner[1].configuration.shuffle, 'bitshuffle');
    assert.equal(hx.index['writer-star'].history.version, '1.2');
  });
});
