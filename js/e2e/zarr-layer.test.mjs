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
 * @typedef {{ crs: string, bounds: [number, number, number, number], proj4: string | null, t: number, band: number, clim: [number, number], lonlat_bbox: [[number, number], [number, number]], corners: [number, number][], inside: { x: number, y: number, lon: number, lat: number, value: number }[], outside: [number, number][] }} StoreFacts
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
   * A page with the layer on `name`'s store; returns the page and the console errors it logged.
   * @param {string} name @param {Partial<ZarrLayerOptions>} extra
   */
  async function draw(name, extra, viewport = { width: 640, height: 480 }) {
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
      source: `${stores}/${name}`,
      variable: 'data',
      zarrVersion: 3, // else it first asks for .zmetadata, .zattrs and .zgroup (404s)
      selector: { time: { selected: e.t, type: 'index' }, band: { selected: e.band, type: 'index' } },
      clim: e.clim,
      colormap: GREYS,
      ...extra,
    };
    await page.evaluate(([bbox, o]) => window.show(bbox, o), /** @type {const} */ ([e.lonlat_bbox, options]));
    // A layer that draws nothing (UTM without proj4) is given 3 s to show that it does not.
    const wait = options.proj4 || e.crs === 'EPSG:4326' ? 20_000 : 3000;
    await page.evaluate(([bg, ms]) => window.settled(bg, ms), /** @type {[number[], number]} */ ([BACKGROUND, wait]));
    return { page, errors };
  }

  /** The footprint's box on screen and the box of everything the layer drew. @param {Page} page @param {string} name */
  const boxes = (page, name) => page.evaluate(([corners, bg]) => /** @type {const} */ ([window.footprintBox(corners), window.drawnBox(bg)]), /** @type {[[number, number][], number[]]} */ ([expected[name].corners, BACKGROUND]));

  /** Every sampled pixel drawn (`dy` CSS px lower) as its stored value's grey. @param {Page} page @param {string} name */
  async function assertValuesDrawn(page, name, dy = 0) {
    const e = expected[name];
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
    const e = expected[name];
    const sample = e.inside.filter((_, i) => i % 7 === 0);
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
    const { page, errors } = await draw('utm', { proj4: e.proj4 ?? undefined, bounds: e.bounds, latIsAscending: false }, { width: 640, height: 1000 });
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

  test('UTM without proj4: nothing drawn and queryData empty (it reads neither proj:code nor spatial_ref)', async () => {
    const e = expected.utm;
    const { page } = await draw('utm', {});
    assert.equal((await boxes(page, 'utm'))[1], null, 'a UTM store without proj4 is drawn blank');
    const q = await page.evaluate(([lon, lat]) => window.zarrLayer.queryData({ type: 'Point', coordinates: [lon, lat] }), [e.inside[0].lon, e.inside[0].lat]);
    assert.deepEqual(q.data, []);
    await page.close();
  });
});

