// @ts-check
// readRegionSeries against Python's read_region_series on stores the Python writer made
// (region_series.py): the same pixels, level and valid counts exactly, the statistics to float64
// rounding (the two languages add a piece's values in different orders), null where Python has NaN.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { toLonLat } from '../lib/geo.js';
import { ChronozarrLayer } from '../maplibre/layer.js';
import { openStore } from '../src/index.js';
import { areaOf, holds } from '../src/reader/region.js';
import { python, repo } from './helpers.js';

const work = mkdtempSync(join(tmpdir(), 'chronozarr-region-'));
const run = spawnSync(python, [join(repo, 'js/test/region_series.py'), work], { encoding: 'utf8', env: { ...process.env, PYTHONPATH: join(repo, 'src') } });
if (run.status !== 0) throw new Error(run.stderr);
const cases = JSON.parse(run.stdout);

/** @param {(number | null)[][]} got @param {(number | null)[][]} want @param {string} what */
function close(got, want, what) {
  got.forEach((row, t) => row.forEach((v, b) => {
    const w = want[t][b];
    if (w == null) assert.equal(v, null, `${what}[${t}][${b}]`);
    else assert.ok(v != null && Math.abs(v - w) <= 1e-9 * Math.max(1, Math.abs(w)), `${what}[${t}][${b}]: ${v} vs ${w}`);
  }));
}

for (const [name, { path, series }] of Object.entries(cases).filter(([k]) => k !== 'pixels')) {
  test(`readRegionSeries gives Python's numbers: ${name}`, async () => {
    const store = await openStore(path, { workers: 0 });
    try {
      for (const [i, want] of series.entries()) {
        const what = `${want.label} ${JSON.stringify(want.bands)}`;
        const before = store.stats().requests;
        const got = await store.readRegionSeries(want.geometry, { lod: want.lod ?? undefined, bands: want.bands ?? undefined });
        // Cold, the first area from the history array costs what it costs Python: an index and a
        // range per shard (the chunk path's counts differ: Python does not count a missing key).
        if (i === 0 && want.source === 'history') assert.equal(store.stats().requests - before, want.requests, `${what} requests`);
        if (i === 0 && name.endsWith('coarse-first')) assert.deepEqual([want.level, want.source, want.requests], [1, 'history', 2], 'level 1 from its history');
        assert.equal(got.level, want.level, what);
        assert.equal(got.source, want.source, what);
        assert.equal(got.regionPixels, want.regionPixels, what);
        assert.deepEqual(got.validPixels, want.validPixels, what);
        for (const k of ['mean', 'std', 'min', 'max']) close(/** @type {any} */ (got)[k], want[k], `${what} ${k}`);
        if (want.waterKm2) close(got.waterKm2, want.waterKm2, `${what} waterKm2`);
      }
      await assert.rejects(store.readRegionSeries([0, 0, 10, 10]), /outside the store/);
      await assert.rejects(store.readRegionSeries([500000, 4999950, 500050, 5000000], { bands: ['B99'] }), /cannot give "B99"/);
      await assert.rejects(store.readRegionSeries([500000, 4999950, 500050, 5000000], { lod: 9 }), /level 9 does not exist/);
    } finally {
      store.close();
    }
  });
}

test('a centre on a slanted edge or a hole edge is inside, as in Python', () => {
  const level = { index: 0, width: 30, height: 20, chunkSize: 16, transform: [1, 0, -0.5, 0, -1, 0.5] };
  const tri = holds(areaOf({ type: 'Polygon', coordinates: [[[0, 0], [8, 0], [0, -8], [0, 0]]] }), level, [0, 20], [0, 30]);
  for (let y = 0; y < 20; y++) for (let x = 0; x < 30; x++) assert.equal(tri[y * 30 + x], +(x + y <= 8), `(${x}, ${y})`);
  assert.throws(() => areaOf({ type: 'Polygon', coordinates: [[[0, 0], [4, -4], [4, 0], [0, -4], [0, 0]]] }), /crosses itself/);
});

test("the MapLibre layer's queryRegion takes lon/lat and gives the reader's numbers", async () => {
  const { path, series } = cases['mask-none'];
  const want = series.find((/** @type {any} */ s) => s.label === 'polygon-hole' && s.bands == null);
  const lonLat = want.geometry.coordinates.map((/** @type {number[][]} */ ring) => ring.map(([x, y]) => {
    const p = /** @type {{ lon: number, lat: number }} */ (toLonLat('EPSG:32631', x, y));
    return [p.lon, p.lat];
  }));
  // The layer's scene paints on animation frames, which node has not: timers stand in for them.
  const g = /** @type {any} */ (globalThis);
  g.requestAnimationFrame ??= (/** @type {() => void} */ run) => setTimeout(run, 16);
  g.cancelAnimationFrame ??= (/** @type {any} */ h) => clearTimeout(h);
  const layer = new ChronozarrLayer({ url: path, storeOptions: { workers: 0 } });
  try {
    const got = await layer.queryRegion({ type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: lonLat } });
    assert.equal(got.regionPixels, want.regionPixels); // edges 2 m or more from any centre: the round trip cannot move a pixel
    assert.deepEqual(got.validPixels, want.validPixels);
    for (const k of ['mean', 'std', 'min', 'max']) close(/** @type {any} */ (got)[k], want[k], k);
  } finally {
    layer.onRemove();
  }
});

test('random polygons with corners on and off centres hold exactly the pixels Python gives them', () => {
  const level = { index: 0, width: 50, height: 40, chunkSize: 16, transform: [10, 0, 500000, 0, -10, 5000000] };
  assert.ok(cases.pixels.length >= 20);
  for (const { geometry, held } of cases.pixels) {
    const got = holds(areaOf(geometry), level, [0, 40], [0, 50]);
    assert.deepEqual([...got], held, JSON.stringify(geometry));
  }
});
