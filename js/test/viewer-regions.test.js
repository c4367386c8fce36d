// @ts-check
// The viewer's regions as data (viewer/region-shapes.js): the address's compact form both ways,
// what a host's set.region may send, the reader's geometry, a move on screen, and the CSV rows;
// expected values written out by hand.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readParams, stateUrl, storeUrl } from '../viewer/params.js';
import { boxShape, decodeRegions, encodeRegions, mapShape, readerGeometry, regionCsv, regionsOfSet } from '../viewer/region-shapes.js';
import { validateSet } from '../viewer/setfields.js';

test('a box and a polygon go into the address and come back the same', () => {
  /** @type {import('../viewer/region-shapes.js').RegionShape[]} */
  const shapes = [
    { kind: 'box', box: [500200.25, 8999400, 500600, 8999800.125] },
    { kind: 'polygon', ring: [[-74.52, -8.31], [-74.5, -8.31], [-74.51, -8.29]] },
  ];
  const text = encodeRegions(shapes);
  assert.equal(text, 'bbox:500200.25,8999400,500600,8999800.125;poly:-74.52,-8.31,-74.5,-8.31,-74.51,-8.29');
  assert.deepEqual(decodeRegions(text), { shapes, bad: [] });
  assert.equal(encodeRegions([]), null);
  // Ten significant digits: a tenth of a millimetre in UTM metres.
  assert.equal(encodeRegions([{ kind: 'box', box: [500200.123456789, 1, 500300, 2] }]), 'bbox:500200.1235,1,500300,2');
});

test('the address: corners in any order make the box; a closing corner is dropped; bad parts are named and left out', () => {
  assert.deepEqual(decodeRegions('bbox:10,20,0,5').shapes, [{ kind: 'box', box: [0, 5, 10, 20] }]);
  assert.deepEqual(decodeRegions('poly:0,0,4,0,4,3,0,0').shapes, [{ kind: 'polygon', ring: [[0, 0], [4, 0], [4, 3]]}]);
  const { shapes, bad } = decodeRegions('bbox:1,2,3;circle:1,2;poly:0,0,1,1;bbox:0,0,1,1;poly:0,0,1');
  assert.deepEqual(shapes, [{ kind: 'box', box: [0, 0, 1, 1] }]);
  assert.equal(bad.length, 4);
  assert.match(bad[0], /four numbers/);
  assert.match(bad[1], /bbox:west,south,east,north or poly:/);
  assert.match(bad[2], /at least three corners; got 2/);
  assert.match(bad[3], /x,y pairs; got 3 numbers/);
  assert.match(decodeRegions('bbox:0,0,0,1').bad[0], /west < east/);
  assert.equal(decodeRegions(Array(8).fill('bbox:0,0,1,1').join(';')).shapes.length, 6);
  assert.deepEqual(decodeRegions(null), { shapes: [], bad: [] });
});

test('the region parameter is read, written after the view, and dropped for another store', () => {
  assert.equal(readParams('?store=s&region=bbox:1,2,3,4').region, 'bbox:1,2,3,4');
  assert.equal(readParams('?store=s').region, null);
  const view = { t: 1, product: 'band', band: 'B04', zoom: 2, center: /** @type {[number, number]} */ ([5, 6]) };
  const href = stateUrl('http://h/viewer/?store=s', { ...view, region: 'bbox:1,2,3,4;poly:0,0,1,0,1,1' });
  assert.equal(new URL(href).search, '?store=s&t=1&p=band&b=B04&z=2&c=5%2C6&region=bbox:1,2,3,4;poly:0,0,1,0,1,1');
  assert.equal(readParams(new URL(href).search).region, 'bbox:1,2,3,4;poly:0,0,1,0,1,1');
  assert.doesNotMatch(stateUrl(href, { ...view, region: null }), /region/);
  assert.doesNotMatch(storeUrl(href, 'other'), /region/);
});

test('set.region: a box, a GeoJSON polygon or Feature, the address text, a list, or null to clear', () => {
  const ring = [[0, 0], [4, 0], [4, 3], [0, 0]];
  assert.deepEqual(regionsOfSet([1, 2, 3, 4]), [{ kind: 'box', box: [1, 2, 3, 4] }]);
  assert.deepEqual(regionsOfSet({ type: 'Polygon', coordinates: [ring] }), [{ kind: 'polygon', ring: [[0, 0], [4, 0], [4, 3]] }]);
  assert.deepEqual(regionsOfSet([{ type: 'Feature', geometry: { type: 'Polygon', coordinates: [ring] } }, 'bbox:0,0,1,1']), [
    { kind: 'polygon', ring: [[0, 0], [4, 0], [4, 3]] },
    { kind: 'box', box: [0, 0, 1, 1] },
  ]);
  assert.deepEqual(regionsOfSet(null), []);
  assert.deepEqual(regionsOfSet([]), []);
  assert.match(String(regionsOfSet({ type: 'Polygon', coordinates: [ring, ring] })), /one ring/);
  assert.match(String(regionsOfSet({ type: 'Point', coordinates: [0, 0] })), /GeoJSON Polygon/);
  assert.match(String(regionsOfSet(Array(7).fill([0, 0, 1, 1]))), /at most 6 regions, got 7/);
  const ctx = { store: { times: ['2020-01-01T00:00:00Z'], bandNames: ['B04'], crs: 'EPSG:32718' }, products: [], geoOk: true };
  assert.deepEqual(validateSet({ region: [0, 0, 2, 2] }, ctx), { ok: true, values: { regions: [{ kind: 'box', box: [0, 0, 2, 2] }] } });
  const bad = validateSet({ region: 'bbox:1' }, ctx);
  assert.equal(bad.ok, false);
  assert.match(bad.ok ? '' : bad.message, /^region: a box is four numbers west, south, east, north; got \[1\]\.$/);
});

test("the reader's geometry: a box as [w, s, e, n], a polygon as a closed GeoJSON ring", () => {
  assert.deepEqual(readerGeometry({ kind: 'box', box: [1, 2, 3, 4] }), [1, 2, 3, 4]);
  assert.deepEqual(readerGeometry({ kind: 'polygon', ring: [[0, 0], [4, 0], [4, 3]] }), { type: 'Polygon', coordinates: [[[0, 0], [4, 0], [4, 3], [0, 0]]] });
});

test('a move maps every corner; a box that a move flips stays a box', () => {
  const shift = (/** @type {[number, number]} */ [x, y]) => /** @type {[number, number]} */ ([x + 10, y - 5]);
  assert.deepEqual(mapShape({ kind: 'box', box: [0, 0, 2, 1] }, shift), { kind: 'box', box: [10, -5, 12, -4] });
  assert.deepEqual(mapShape({ kind: 'polygon', ring: [[0, 0], [1, 0], [0, 1]] }, shift), { kind: 'polygon', ring: [[10, -5], [11, -5], [10, -4]] });
  assert.deepEqual(mapShape({ kind: 'box', box: [1, 1, 2, 3] }, ([x, y]) => [-x, -y]), { kind: 'box', box: [-2, -3, -1, -1] });
  assert.deepEqual(boxShape([0, 0, 1]), 'a box is four numbers west, south, east, north; got [0,0,1]');
});

test('the CSV: one row per region, date and band; empty statistics where no pixel is valid', () => {
  const series = {
    level: 1, pixelSize: 20, regionPixels: 4, bands: ['ndvi', 'B04'],
    validPixels: [[4, 3], [0, 0]],
    mean: [[0.5, 0.125], [null, null]], std: [[0.25, 0], [null, null]], min: [[0.1, 0.125], [null, null]], max: [[0.9, 0.125], [null, null]],
  };
  const csv = regionCsv(['2020-01-01T00:00:00Z', '2020-02-01T00:00:00Z'], [{ id: 2, series }]);
  assert.equal(csv, [
    'region,time,band,level,valid_pixels,mean,std,min,max',
    '2,2020-01-01T00:00:00Z,ndvi,1,4,0.5,0.25,0.1,0.9',
    '2,2020-01-01T00:00:00Z,B04,1,3,0.125,0,0.125,0.125',
    '2,2020-02-01T00:00:00Z,ndvi,1,0,,,,',
    '2,2020-02-01T00:00:00Z,B04,1,0,,,,',
    '',
  ].join('\n'));
});

test('the chart: a point per date with a valid pixel, as opaque as the valid share; the readout names every statistic', async () => {
  const { readoutText, regionChartMarkup } = await import('../viewer/region-chart.js');
  const series = {
    level: 0, pixelSize: 10, regionPixels: 8, bands: ['B04'],
    validPixels: [[8], [0], [2]],
    mean: [[0.5], [null], [0.25]], std: [[0.1], [null], [0]], min: [[0.25], [null], [0.25]], max: [[0.75], [null], [0.25]],
  };
  const d = { title: 'mean of B04 per date', times: ['2020-01-01T00:00:00Z', '2020-02-01T00:00:00Z', '2020-03-01T00:00:00Z'], t: 0, stat: /** @type {const} */ ('mean'), regions: [{ id: 1, color: '#ff6b6b', series }] };
  const { html, xs } = regionChartMarkup(d);
  const points = [...html.matchAll(/<circle class="region-point" data-t="(\d+)"[^>]* fill-opacity="([\d.]+)"/g)].map((m) => [Number(m[1]), Number(m[2])]);
  assert.deepEqual(points, [[0, 1], [2, 0.25]]);
  assert.equal(xs.length, 3);
  assert.ok(xs[0] < xs[1] && xs[1] < xs[2]);
  assert.equal(readoutText(d, 2), '2020-03-01: #1 B04: mean 0.25 · std 0 · min 0.25 · max 0.25 · 2 of 8 valid pixels');
  assert.equal(readoutText(d, 1), '2020-02-01: #1 B04: mean – · std – · min – · max – · 0 of 8 valid pixels');
  assert.equal(readoutText({ ...d, regions: [{ id: 3, color: '#fff', series: null }] }, 0), '2020-01-01: #3 reading…');
});

test('a series still filling in: the chart draws the dates read, the valid line stops there, the readout waits for the rest', async () => {
  const { readoutText, regionChartMarkup } = await import('../viewer/region-chart.js');
  const series = {
    level: 1, pixelSize: 20, regionPixels: 4, bands: ['B04'], dates: 2,
    validPixels: [[4], [2], [0]],
    mean: [[0.5], [0.25], [null]], std: [[0], [0], [null]], min: [[0.5], [0.25], [null]], max: [[0.5], [0.25], [null]],
  };
  const d = { title: 't', times: ['2020-01-01T00:00:00Z', '2020-02-01T00:00:00Z', '2020-03-01T00:00:00Z'], t: 0, stat: /** @type {const} */ ('mean'), regions: [{ id: 2, color: '#0f0', series }] };
  const { html } = regionChartMarkup(d);
  assert.deepEqual([...html.matchAll(/data-t="(\d+)"/g)].map((m) => Number(m[1])), [0, 1]);
  const valid = /class="region-valid" d="([^"]*)"/.exec(html)?.[1] ?? '';
  assert.equal((valid.match(/[ML]/g) ?? []).length, 2, `the valid share is drawn for the two dates read only: ${valid}`);
  assert.equal(readoutText(d, 2), '2020-03-01: #2 reading…');
  assert.match(readoutText(d, 1), /^2020-02-01: #2 B04: mean 0.25 /);
});

test('a region read from the per-date chunks: each batch of dates reaches the panel, then the complete series', async () => {
  const { createLoads, shown } = await import('../viewer/region-panel.js');
  const full = { level: 0, pixelSize: 10, regionPixels: 1, bands: ['B04'], validPixels: [[1], [1]], mean: [[1], [2]], std: [[0], [0]], min: [[1], [2]], max: [[1], [2]], source: 'chunks', dates: 2 };
  /** @type {(v: unknown) => void} */
  let finish = () => {};
  /** @type {any} */
  let asked;
  const store = { readRegionSeries: (/** @type {unknown} */ _g, /** @type {any} */ o) => ((asked = o), new Promise((resolve) => (finish = resolve))) };
  const events = /** @type {string[]} */ ([]);
  const loads = createLoads(/** @type {any} */ (store), (_r, load) => void events.push(`done ${load.series?.dates}`), () => void events.push('progress'));
  loads.sync([/** @type {any} */ ({ id: 1, color: '#f00', shape: { kind: 'box', box: [0, 0, 10, 10] } })], ['B04']);
  assert.equal(asked.priority, 'ahead');
  assert.equal(shown(loads.get(1)), null);
  asked.onProgress({ ...full, dates: 1, validPixels: [[1], [0]], mean: [[1], [null]] });
  assert.deepEqual(events, ['progress']);
  assert.equal(shown(loads.get(1))?.dates, 1);
  assert.equal(loads.get(1)?.series, null);
  finish(full);
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.deepEqual(events, ['progress', 'done 2']);
  assert.equal(shown(loads.get(1))?.dates, 2);
  asked.onProgress({ ...full, dates: 1 }); // a late call after the end changes nothing
  assert.deepEqual(events, ['progress', 'done 2']);
  loads.stop();
});
