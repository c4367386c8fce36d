// @ts-check
// @carbonplan/zarr-layer (the newest version the npm registry serves) drawing chronozarr `none`
// stores in MapLibre, in Debian's Chromium: what it needs, what it draws, what queryData returns.
// The stores and the expected drawing come from e2e/zarr_layer_stores.py (pyproj on the input
// grid); docs/interop.md reports these results. Run: cd js && node --test e2e/zarr-layer.test.mjs
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { build } from 'esbuild';
import { jsDir, skip, startBrowserStores } from './browser-stores.mjs';

const VERSION = JSON.parse(readFileSync(join(jsDir, 'node_modules/@carbonplan/zarr-layer/package.json'), 'utf8')).version;
const BACKGROUND = [0, 0, 255, 255];
// 256 greys: the colormap is a texture sampled between texel centres, so value u in [0, 1] of
// clim is drawn as grey u * 256 - 0.5 (two colours would span only the middle half of clim).
const GREYS = Array.from({ length: 256 }, (_, i) => [i, i, i]);

/** @typedef {import('@carbonplan/zarr-layer').ZarrLayerOptions} ZarrLayerOptions */
/**
 * What zarr_layer_stores.py prints for each store: its CRS, bounds, time and band drawn, and
 * positions from pyproj (the map's fit, the footprint's corners, sampled pixels inside).
 * @typedef {{ store: string, crs: string, bounds: [number, number, number, number], size: [number, number], proj4: string | null, t: number, band: number, clim: [number, number], lonlat_bbox: [[number, number], [number, number]], corners: [number, number][], inside: { x: number, y: number, lon: number, lat: number, value: number }[], outside: [number, number][] }} StoreFacts
 */
/** @typedef {import('playwright-core').Page} Page */

describe(`@carbonplan/zarr-layer ${VERSION} on chronozarr stores`, { skip, timeout: 300_000 }, () => {
  /** @type {string} */
  let base;
  /** @type {import('playwright-core').Browser} */
  let browser;
  /** @type {string} */
  let stores;
  /** @type {Record<string, StoreFacts>} */
  let expected;
  /** @type {string} */
  let bundle;
  /** @type {() => Promise<void>} */
  let close;

  before(async () => {
    let tmp;
    let made;
    ({ tmp, base, browser, stores, made, close } = await startBrowserStores('zarr-layer', { script: 'zarr_layer_stores.py' }));
    expected = JSON.parse(made);
    // zarr-layer ships bare imports (zarrita, proj4, ...): a page needs a bundler, as an app has.
    await build({
      stdin: { contents: "export { ZarrLayer } from '@carbonplan/zarr-layer';", resolveDir: jsDir },
      bundle: true, format: 'esm', external: ['maplibre-gl'], outfile: join(tmp, 'zarr-layer.js'), logLevel: 'error',
    });
    bundle = `${base}/${relative(jsDir, tmp)}/zarr-layer.js`;
  });

  after(() => close?.());

  /**
   * A page with the layer on the store of `name`'s facts, the map fitted to where they place it;
   * returns the page and the console errors it logged.
   * @param {string} name @param {Partial<ZarrLayerOptions>} extra
   * @param {{ viewport?: { width: number, height: number }, wait?: number }} [o] how long to wait for a drawing that does not come
   */
  async function draw(name, extra, { viewport = { width: 640, height: 480 }, wait = 20_000 } = {}) {
    const e = expected[name];
    const page = await browser.newPage({ viewport });
    /** @type {string[]} */
    const errors = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('pageerror', (err) => errors.push(err.message));
    await page.goto(`${base}/e2e/zarr-layer-host.html?bundle=${encodeURIComponent(bundle)}`);
    await page.waitForFunction(() => window.ready);
    /** @type {ZarrLayerOptions} */
    const options = {
      id: 'chronozarr',
      source: `${stores}/${e.store}`,
      variable: 'data',
      zarrVersion: 3, // else it first asks for .zmetadata, .zattrs and .zgroup (404s)
      selector: { time: { selected: e.t, type: 'index' }, band: { selected: e.band, type: 'index' } },
      clim: e.clim,
      colormap: GREYS,
      ...extra,
    };
    await page.evaluate(([bbox, o]) => window.show(bbox, o), /** @type {const} */ ([e.lonlat_bbox, options]));
    await page.evaluate(([bg, ms]) => window.settled(bg, ms), /** @type {[number[], number]} */ ([BACKGROUND, wait]));
    return { page, errors };
  }

  /** The footprint's box on screen and the box of everything the layer drew. @param {Page} page @param {string} name */
  const boxes = (page, name) => page.evaluate(([corners, bg]) => /** @type {const} */ ([window.footprintBox(corners), window.drawnBox(bg)]), /** @type {[[number, number][], number[]]} */ ([expected[name].corners, BACKGROUND]));

  /**
   * Every sampled pixel (that `which` keeps) drawn (`dy` CSS px lower) as its stored value's grey.
   * @param {Page} page @param {string} name @param {(p: { x: number, y: number }) => boolean} [which]
   */
  async function assertValuesDrawn(page, name, dy = 0, which = () => true) {
    const e = { ...expected[name], inside: expected[name].inside.filter(which) };
    assert.ok(e.inside.length >= 5);
    const inside = await page.evaluate(([pts, dy]) => window.colours(pts, dy), /** @type {[[number, number][], number]} */ ([e.inside.map((p) => [p.lon, p.lat]), dy]));
    const [lo, hi] = e.clim;
    e.inside.forEach((p, i) => {
      const [r, g, b] = inside[i];
      const grey = Math.min(255, Math.max(0, ((p.value - lo) / (hi - lo)) * 256 - 0.5));
      assert.ok(r === g && g === b && Math.abs(r - grey) <= 1.5, `pixel ${p.x},${p.y} (stored ${p.value}): drew ${inside[i]}, expected grey ${grey.toFixed(1)}`);
    });
  }

  /** queryData at sampled pixel centres gives their stored values. @param {Page} page @param {string} name */
  async function assertQueriesExact(page, name) {
    const sample = expected[name].inside.filter((_, i) => i % 7 === 0);
    const got = await page.evaluate((pts) => Promise.all(pts.map(([lon, lat]) => window.zarrLayer.queryData({ type: 'Point', coordinates: [lon, lat] }).then((q) => q.data))), sample.map((p) => [p.lon, p.lat]));
    sample.forEach((p, i) => assert.deepEqual(got[i], [p.value], `queryData at pixel ${p.x},${p.y}`));
    assert.ok(sample.length >= 5);
  }

  test('EPSG:4326: drawn where the store is, in its values, with exact queryData (options: bounds, latIsAscending)', async () => {
    const e = expected.lonlat;
    const { page, errors } = await draw('lonlat', { bounds: e.bounds, latIsAscending: false });
    const [footprint, drawn] = await boxes(page, 'lonlat');
    assert.ok(drawn, 'the layer drew something');
    footprint.forEach((v, i) => assert.ok(Math.abs(drawn[i] - v) <= 1, `drawn box ${drawn} against the footprint ${footprint}`));
    await assertValuesDrawn(page, 'lonlat');
    await assertQueriesExact(page, 'lonlat');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('UTM: drawn in its values and exact queryData (options: proj4, bounds, latIsAscending), but displaced south', async () => {
    const e = expected.utm;
    // Tall enough that the displaced drawing stays on screen.
    const { page, errors } = await draw('utm', { proj4: e.proj4 ?? undefined, bounds: e.bounds, latIsAscending: false }, { viewport: { width: 640, height: 1000 } });
    const [footprint, drawn] = await boxes(page, 'utm');
    assert.ok(drawn, 'the layer drew something');
    const dy = drawn[1] - footprint[1];
    const metres = (dy / (footprint[3] - footprint[1])) * (e.bounds[3] - e.bounds[1]);
    // The footprint's width and height are kept, its west and east edges too; the whole drawing
    // sits about 146 m (36 % of the store's height) south of the store at 45 N.
    for (const i of [0, 2]) assert.ok(Math.abs(drawn[i] - footprint[i]) <= 1.5, `drawn box ${drawn} against the footprint ${footprint}`);
    assert.ok(Math.abs(drawn[3] - drawn[1] - (footprint[3] - footprint[1])) <= 3, `drawn box ${drawn} against the footprint ${footprint}`);
    assert.ok(metres > 100 && metres < 200, `displaced ${metres.toFixed(1)} m south`);
    await assertValuesDrawn(page, 'utm', dy);
    await assertQueriesExact(page, 'utm');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('UTM without proj4: nothing where the store is, queryData there empty (it reads neither proj:code nor spatial_ref)', async () => {
    const e = expected.utm;
    // Given 3 s to draw nothing over the store's footprint.
    const { page } = await draw('utm', {}, { wait: 3000 });
    assert.equal((await boxes(page, 'utm'))[1], null, 'nothing drawn over the footprint of a UTM store without proj4');
    const q = await page.evaluate(([lon, lat]) => window.zarrLayer.queryData({ type: 'Point', coordinates: [lon, lat] }), [e.inside[0].lon, e.inside[0].lat]);
    assert.deepEqual(q.data, []);
    await page.close();
  });

  test('UTM without proj4: drawn elsewhere, its metres read as Web Mercator ones, and only its south-west chunk', async () => {
    // utm_as_3857 places the store's pixels where pyproj puts their x, y read as EPSG:3857 (what
    // zarr-layer assumes of coordinates above 360 without proj4): about 4 degrees south and 1.5 east
    // of the store at 45 N. Of the 3 x 4 chunks (interop_stores.py writes chunks of 16), 0.5.0 draws
    // only the last row's first one (in this view), in its place and values there.
    const CHUNK = 16;
    const e = expected.utm_as_3857;
    const [[, south], [east]] = expected.utm.lonlat_bbox;
    assert.ok(e.lonlat_bbox[1][1] < south - 3 && e.lonlat_bbox[0][0] > east, `${JSON.stringify(e.lonlat_bbox)} is south-east of the store`);
    const { page } = await draw('utm_as_3857', {});
    const [footprint, drawn] = await boxes(page, 'utm_as_3857');
    assert.ok(drawn, 'the layer drew something');
    const [w, h] = e.size;
    const rows = h - CHUNK * Math.floor((h - 1) / CHUNK);  // the height of the last row of chunks
    const px = (footprint[2] - footprint[0]) / w;
    const chunk = [footprint[0], footprint[3] - rows * px, footprint[0] + CHUNK * px, footprint[3]];
    chunk.forEach((v, i) => assert.ok(Math.abs(drawn[i] - v) <= 2.5, `drawn box ${drawn} against the south-west chunk's ${chunk}`));
    await assertValuesDrawn(page, 'utm_as_3857', 0, (p) => p.x < CHUNK && p.y >= h - rows);
    // queryData, though, reads the whole store there: every pixel's stored value at its Web Mercator place.
    await assertQueriesExact(page, 'utm_as_3857');
    await page.close();
  });
});
