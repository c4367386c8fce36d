// @ts-check
// The viewer's study tools as pure functions: round ticks, legends, the scale bar, the history CSV,
// the compare fields of the URL and of the embed API, the WebM duration patch.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { legendFor, positionOf, stretchDomain } from '../lib/legend-spec.js';
import { readParams, stateUrl } from '../viewer/params.js';
import { lookFor } from '../lib/products.js';
import { RAMPS, rampColor } from '../lib/ramps.js';
import { scaleFor } from '../viewer/scalebar.js';
import { validateSet } from '../viewer/setfields.js';
import { historyCaption, historyCsv, historySeries } from '../viewer/history-series.js';
import { keyName, shortcutTable } from '../viewer/shortcuts.js';
import { niceCeil, niceFloor, ticks } from '../lib/ticks.js';
import { withDuration } from '../viewer/webm-duration.js';

const reflectance = (/** @type {string} */ name, /** @type {string} */ common) => ({ name, common_name: common, scale: 1e-4, offset: 0, units: 'reflectance' });
const s2 = {
  bands: ['B02', 'B03', 'B04', 'B08'],
  bandNames: ['B02', 'B03', 'B04', 'B08'],
  attrs: { bands: [reflectance('B02', 'blue'), reflectance('B03', 'green'), reflectance('B04', 'red'), reflectance('B08', 'nir')] },
  dtype: 'uint16',
  nodata: 0,
  hasMask: false,
  crs: 'EPSG:32631',
  times: ['2020-01-01T00:00:00Z', '2020-02-01T00:00:00Z', '2020-03-01T00:00:00Z'],
  levels: [{ index: 0, path: '0', gridRows: 1, gridCols: 1, grid: [1, 1], shape: [3, 4, 100, 100], width: 100, height: 100, resolution: 10, transform: [10, 0, 500000, 0, -10, 5000000], chunkSize: 128, sharded: false }],
};

test('round numbers: 1, 2 or 5 times a power of ten, ticks inside the range', () => {
  assert.deepEqual([0.3, 7, 10, 19.9, 0.00049].map(niceFloor), [0.2, 5, 10, 10, 0.0002]);
  assert.deepEqual([0.3, 7, 10, 1.1, 0.00049].map(niceCeil), [0.5, 10, 10, 2, 0.0005]);
  assert.deepEqual(ticks(0, 0.3, 4), [0, 0.1, 0.2, 0.3]);
  assert.deepEqual(ticks(0.0494, 0.236, 5), [0.05, 0.1, 0.15, 0.2]);
  assert.deepEqual(ticks(-1, 1, 5), [-1, -0.5, 0, 0.5, 1]);
  assert.deepEqual(ticks(3, 3), [3]);
  assert.deepEqual(ticks(0.0323, 0.45, 5), [0.1, 0.2, 0.3, 0.4]);
});

test('legends: index ramps over -1..1 in the shader colours, a band stretch in its units, the water classes', () => {
  const ndvi = legendFor(s2, lookFor(s2, { product: 'ndvi', band: 0, range: null, auto: null }), { product: 'ndvi', band: 0 });
  assert.equal(ndvi.kind, 'ramp');
  assert.deepEqual(ndvi.domain, [-1, 1]);
  assert.deepEqual(ndvi.color(0.45), [...RAMPS.ndvi.colors[2]]);
  assert.deepEqual(ndvi.color(-1), [...RAMPS.ndvi.colors[0]]);
  // Halfway between the stops 0.15 and 0.45: the mean of their colours.
  ndvi.color(0.3).forEach((c, i) => assert.ok(Math.abs(c - (RAMPS.ndvi.colors[1][i] + RAMPS.ndvi.colors[2][i]) / 2) < 1e-12));
  assert.deepEqual(rampColor(RAMPS.ndwi, 5), [...RAMPS.ndwi.colors[3]]);

  const look = lookFor(s2, { product: 'band', band: 3, range: null, auto: [0.05, 0.25] });
  assert.equal(look.mode, 'linear', 'a single reflectance band is stretched, not tone mapped');
  const band = legendFor(s2, look, { product: 'band', band: 3, extent: [0.01, 0.3] });
  assert.equal(band.kind, 'ramp');
  assert.deepEqual([band.title, band.units, band.domain, band.stretch], ['B08', 'reflectance', [0.01, 0.3], [0.05, 0.25]]);
  band.color(0.15).forEach((c) => assert.ok(Math.abs(c - 0.5) < 1e-12));
  assert.deepEqual(band.color(0), [0, 0, 0]);
  assert.equal(positionOf(band, 0.155), 0.5);
  assert.deepEqual(stretchDomain([0, 10], null), [-1, 11]);

  const tc = legendFor(s2, lookFor(s2, { product: 'true_color', band: 0, range: null, auto: null }), { product: 'true_color', band: 0 });
  assert.equal(tc.kind, 'ramp');
  assert.deepEqual([tc.title, tc.units, tc.domain, tc.stretch], ['B04 / B03 / B02', 'reflectance', [0, 0.3], null]);

  const water = legendFor(s2, lookFor(s2, { product: 'water', band: 0, range: null, auto: null }), { product: 'water', band: 0 });
  assert.equal(water.kind, 'classes');
  assert.deepEqual(water.items.map((i) => i.label), ['Water: NDWI above 0', 'Land: B08 reflectance 0 to 0.3']);
});

test('the scale bar: grid metres for UTM, cos(lat) for EPSG:3857, degrees with their ground length for EPSG:4326', () => {
  const utm = scaleFor(s2, { cx: 50, cy: 50, zoom: 4 });
  assert.deepEqual([utm.length, utm.px, utm.units, utm.label], [200, 80, 'm', '200 m']);
  assert.equal(scaleFor(s2, { cx: 50, cy: 50, zoom: 0.01 }).label, '100 km');
  // EPSG:3857 at 60 degrees north: a projected metre is half a ground metre.
  const y60 = 6378137 * Math.log(Math.tan(Math.PI / 4 + Math.PI / 6));
  const merc = scaleFor({ crs: 'EPSG:3857', levels: [{ transform: [10, 0, 0, 0, -10, y60 + 500] }] }, { cx: 0, cy: 50, zoom: 1 });
  assert.equal(merc.length, 500);
  assert.ok(Math.abs(merc.px - 100) < 1e-6, String(merc.px));
  const geo = scaleFor({ crs: 'EPSG:4326', levels: [{ transform: [0.001, 0, 10, 0, -0.001, 0.5] }] }, { cx: 0, cy: 500, zoom: 8 });
  assert.deepEqual([geo.length, geo.units, geo.px], [0.01, 'deg', 80]);
  assert.equal(geo.label, '0.01° ≈ 1.11 km east–west at 0° N');
  assert.equal(scaleFor({ crs: null, levels: [{ transform: [1, 0, 0, 0, -1, 0] }] }, { cx: 0, cy: 0, zoom: 1 }).label, '100 pixels');
});

test('the history CSV: one row per pixel, date and band, physical empty where invalid, coverage as given', () => {
  const v = (/** @type {number[]} */ stored, /** @type {number[]} */ valid) => ({ valid: valid.every(Boolean), bands: s2.attrs.bands.map((b, i) => ({ name: b.name, stored: stored[i], valid: valid[i] === 1, value: valid[i] ? stored[i] * b.scale : null })) });
  const pixel = { id: 1, color: '#fff', lod: 1, x: 2, y: 3, x0: 5, y0: 7, got: [v([1, 2, 3, 4], [1, 1, 1, 1]), v([0, 0, 0, 0], [0, 0, 0, 0]), null] };
  const lines = historyCsv(s2, [pixel], [[2, 0, null]]).trim().split('\n');
  assert.equal(lines[0], 'pixel,x,y,level,level_x,level_y,lon,lat,time,band,stored,physical,valid,coverage');
  assert.equal(lines.length, 1 + 3 * 4);
  assert.match(lines[1], /^1,5,7,1,2,3,[\d.]+,[\d.]+,2020-01-01T00:00:00Z,B02,1,0.0001,true,2$/);
  assert.match(lines[5], /,2020-02-01T00:00:00Z,B02,0,,false,0$/);
  assert.match(lines[9], /,2020-03-01T00:00:00Z,B02,,,,$/);
  const series = historySeries(s2, [pixel, { ...pixel, id: 2, color: '#000' }], { product: 'ndvi', band: 0 });
  const [nir, red] = [4 * 1e-4, 3 * 1e-4];
  const ndvi = (nir - red) / (nir + red);
  assert.deepEqual(series.series.map((s) => [s.label, s.color, s.values]), [['#1 NDVI', '#fff', [ndvi, null, null]], ['#2 NDVI', '#000', [ndvi, null, null]]]);
  const how = 'Click the chart to jump to a date, drag across it to zoom in time.';
  assert.equal(historyCaption(3, [pixel, { ...pixel, id: 2 }], series), `NDVI (index) over time · 2 pixels. ${how}`);
  const one = historySeries(s2, [pixel], { product: 'ndvi', band: 0 });
  assert.equal(historyCaption(3, [pixel], one), `NDVI (index) over time · level 1 · 2 gaps. ${how}`);
  const reading = { ...pixel, lod: 0, got: [pixel.got[0], undefined, undefined] };
  assert.equal(historyCaption(3, [reading], historySeries(s2, [reading], { product: 'ndvi', band: 0 })), `NDVI (index) over time · level 0 · 1 of 3 dates read. ${how}`);
});

test('compare in the URL and in a set: B and the divider, validated, written back, dropped when off', () => {
  const p = readParams('?store=s&t=1&compare=2&split=0.3');
  assert.deepEqual([p.compare, p.split], [2, 0.3]);
  assert.deepEqual([readParams('?compare=-1&split=2').compare, readParams('?split=2').split], [null, null]);
  const href = stateUrl('http://h/viewer/?store=s&compare=9', { t: 1, product: 'ndvi', band: 'B02', zoom: 1, center: [0, 0], compare: { t: 2, split: 0.123456 } });
  assert.deepEqual([new URL(href).searchParams.get('compare'), new URL(href).searchParams.get('split')], ['2', '0.1235']);
  assert.doesNotMatch(stateUrl(href, { t: 1, product: 'ndvi', band: 'B02', zoom: 1, center: [0, 0], compare: null }), /compare|split/);
  const ctx = { store: s2, products: [], geoOk: true };
  assert.deepEqual(validateSet({ compare: { t: '2020-02-10' } }, ctx), { ok: true, values: { compare: { t: 1, split: 0.5 } } });
  assert.deepEqual(validateSet({ compare: null }, ctx), { ok: true, values: { compare: null } });
  const past = validateSet({ compare: { t: 3 } }, ctx);
  assert.equal(past.ok, false);
  assert.equal(past.field, 'compare');
  const split = validateSet({ compare: { t: 0, split: 1.5 } }, ctx);
  assert.equal(split.ok, false);
  assert.match(split.message, /^compare: split must be a number from 0 to 1/);
});

test('shortcuts: one table, keys named as the handler matches them', () => {
  /** @type {unknown[][]} */
  const calls = [];
  const actions = /** @type {import('../viewer/shortcuts.js').Actions} */ (new Proxy({}, { get: (_, name) => (/** @type {unknown[]} */ ...args) => calls.push([name, ...args]) }));
  const table = shortcutTable(actions);
  /** @param {string} key */
  const run = (key) => {
    const shortcut = table.find((s) => s.keys.includes(key));
    assert.ok(shortcut, `a shortcut for ${key}`);
    shortcut.run(key);
  };
  run('Shift+ArrowLeft');
  run('End');
  run(']');
  assert.deepEqual(calls, [['pan', 80, 0], ['jump', 'last'], ['divider', 0.05]]);
  assert.equal(new Set(table.flatMap((s) => s.keys)).size, table.flatMap((s) => s.keys).length, 'no key twice');
  // keyName reads only key and shiftKey: Node has no KeyboardEvent to make.
  const press = (/** @type {string} */ key) => /** @type {KeyboardEvent} */ ({ key, shiftKey: true });
  assert.equal(keyName(press('ArrowLeft')), 'Shift+ArrowLeft');
  assert.equal(keyName(press('?')), '?');
});

test('the WebM duration: written into Info, or replaced in place', () => {
  const vint = (/** @type {number} */ n) => [0x80 | n];
  const info = [0x2a, 0xd7, 0xb1, ...vint(3), 0x0f, 0x42, 0x40];
  const segment = [0x15, 0x49, 0xa9, 0x66, ...vint(info.length), ...info, 0x1f, 0x43, 0xb6, 0x75, 0x81, 0x00];
  const file = Uint8Array.from([0x1a, 0x45, 0xdf, 0xa3, 0x80, 0x18, 0x53, 0x80, 0x67, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, ...segment]);
  const out = withDuration(file, 1500);
  assert.ok(out, 'a WebM file gets its duration');
  const at = out.indexOf(0x89, 20) - 1;
  assert.deepEqual([out[at], out[at + 1], out[at + 2]], [0x44, 0x89, 0x88]);
  assert.equal(new DataView(out.buffer).getFloat64(at + 3), 1500);
  assert.equal(out[21], 0x80 | (info.length + 11), 'the Info size grew by the element');
  const again = withDuration(out, 2000);
  assert.ok(again, 'a duration already written is replaced');
  assert.equal(again.length, out.length);
  assert.equal(new DataView(again.buffer).getFloat64(at + 3), 2000);
  assert.equal(withDuration(Uint8Array.from([1, 2, 3]), 10), null);
});
