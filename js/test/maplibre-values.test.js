// @ts-check
// getValueAt's answer as the reference documents it: per band the stored and physical value and,
// for reflectance bands, the reflectance; NDVI, NDWI and the water call where the bands allow them.
// Expected numbers are worked by hand from the stored values put in the cell.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { valueAt } from '../maplibre/values.js';

const S2 = [
  { name: 'B02', common_name: 'blue', scale: 1e-4, offset: 0 },
  { name: 'B03', common_name: 'green', scale: 1e-4, offset: 0 },
  { name: 'B04', common_name: 'red', scale: 1e-4, offset: 0 },
  { name: 'B08', common_name: 'nir', scale: 1e-4, offset: 0 },
];
const CS = 4;

/**
 * A one-cell store whose pixel (1, 2) holds `pixel` (one stored value per band), and a placement
 * that takes lng/lat as level-0 pixel positions.
 * @param {{ name: string, common_name?: string, scale: number, offset: number, units?: string }[]} bands
 * @param {number[]} pixel @param {number | null} [nodata]
 */
function oneCell(bands, pixel, nodata = null) {
  const data = new Uint16Array(bands.length * CS * CS);
  pixel.forEach((v, b) => (data[b * CS * CS + 2 * CS + 1] = v));
  const store = {
    times: ['2024-01-01', '2024-02-01'],
    bands: bands.map((b) => b.name),
    attrs: { bands },
    nodata,
    levels: [{ width: CS, height: CS, chunkSize: CS, gridRows: 1, gridCols: 1 }],
    getCell: async () => ({ data, chunkWidth: CS, chunkHeight: CS, width: CS, height: CS }),
  };
  const place = { toPixel: (/** @type {number} */ lng, /** @type {number} */ lat) => ({ x: lng, y: lat }) };
  return { store: /** @type {any} */ (store), place: /** @type {any} */ (place) };
}

test('a Sentinel-2 pixel: reflectance per band, NDVI, NDWI and the water call', async () => {
  const { store, place } = oneCell(S2, [500, 1200, 800, 3000]);
  const v = await valueAt(store, place, [1.5, 2.5], 1, new AbortController().signal);
  assert.ok(v);
  assert.equal(v.time, '2024-02-01');
  assert.deepEqual(v.bands.map((b) => b.stored), [500, 1200, 800, 3000]);
  v.bands.forEach((b, i) => assert.ok(Math.abs(/** @type {number} */ (b.reflectance) - [0.05, 0.12, 0.08, 0.3][i]) < 1e-12));
  assert.ok(Math.abs(/** @type {number} */ (v.ndvi) - (0.3 - 0.08) / (0.3 + 0.08)) < 1e-12);
  assert.ok(Math.abs(/** @type {number} */ (v.ndwi) - (0.12 - 0.3) / (0.12 + 0.3)) < 1e-12);
  assert.equal(v.isWater, false);
});

test('green above nir is water', async () => {
  const { store, place } = oneCell(S2, [400, 900, 500, 200]);
  const v = await valueAt(store, place, { lng: 1.2, lat: 2.9 }, 0, new AbortController().signal);
  assert.equal(v?.isWater, true);
  assert.ok(Math.abs(/** @type {number} */ (v?.ndwi) - 7 / 11) < 1e-12);
});

test('bands without the roles, or not reflectance, give null indices and no reflectance', async () => {
  const dem = [{ name: 'elevation', scale: 0.1, offset: -100, units: 'm' }];
  const { store, place } = oneCell(dem, [1500]);
  const v = await valueAt(store, place, [1, 2], 0, new AbortController().signal);
  assert.equal(v?.bands[0].value, 50);
  assert.equal(v?.bands[0].reflectance, null);
  assert.deepEqual([v?.ndvi, v?.ndwi, v?.isWater], [null, null, null]);
});

test('an invalid (nodata) nir leaves the indices null', async () => {
  const { store, place } = oneCell(S2, [500, 1200, 800, 0], 0);
  const v = await valueAt(store, place, [1, 2], 0, new AbortController().signal);
  assert.equal(v?.valid, false);
  assert.deepEqual([v?.ndvi, v?.ndwi, v?.isWater], [null, null, null]);
});

test('outside the footprint there is no pixel', async () => {
  const { store, place } = oneCell(S2, [1, 1, 1, 1]);
  assert.equal(await valueAt(store, place, [CS + 1, 0], 0, new AbortController().signal), null);
});
