// @ts-check
// Regions in the viewer (issue 39), in Debian's Chromium: a box drawn with the pointer (the Box
// tool, and Shift+drag on the map) and a polygon clicked corner by corner chart the series of the
// band on screen, and those numbers are the numpy oracle's (e2e/region_stores.py, from the arrays
// the store was written from); the hover readout and a click on the chart; the CSV and PNG; the
// permalink reopened gives the same regions and numbers; the keyboard moves and deletes a region;
// a host page receives `chronozarr:region` with the series, and sends `set.region`.
// Run: cd js && node --test e2e/viewer-region.test.mjs
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { py, skip, startBrowserStores } from './browser-stores.mjs';
import { axeViolations, downloadOf, settled, viewerPages } from './viewer-page.mjs';

/** @typedef {{ region_pixels: number, valid_pixels: number[], mean: (number | null)[], std: (number | null)[], min: (number | null)[], max: (number | null)[] }} Oracle */
/** @typedef {{ regionPixels: number, validPixels: number[][], mean: (number | null)[][], std: (number | null)[][], min: (number | null)[][], max: (number | null)[][], level: number, bands: string[] }} Series */

/** The viewer's series equal the oracle's: counts exactly, statistics to float64 rounding. @param {Series} got @param {Oracle} want */
function sameAsOracle(got, want) {
  assert.deepEqual([got.level, got.bands, got.regionPixels], [0, ['B04'], want.region_pixels]);
  assert.deepEqual(got.validPixels.map((v) => v[0]), want.valid_pixels);
  assert.ok(want.valid_pixels.some((n) => n < want.region_pixels), 'some dates have invalid pixels');
  for (const k of /** @type {const} */ (['mean', 'std', 'min', 'max'])) {
    got[k].forEach((v, t) => {
      const w = want[k][t];
      if (w == null) assert.equal(v[0], null, `${k}[${t}]`);
      else assert.ok(v[0] != null && Math.abs(v[0] - w) <= 1e-9 * Math.max(1, Math.abs(w)), `${k}[${t}]: ${v[0]} vs ${w}`);
    });
  }
}

/** A region's shape as the oracle takes it: a box, or a polygon's corners. @param {any} shape */
const oracleShape = (shape) => (shape.kind === 'box' ? shape.box : shape.ring);

describe('viewer regions', { skip, timeout: 300_000 }, () => {
  /** @type {Awaited<ReturnType<typeof startBrowserStores>>} */
  let s;
  /** @type {string[]} */
  const consoleErrors = [];
  /** @type {ReturnType<typeof viewerPages>} */
  let pages;
  const view = '&t=0&p=band&b=B04&z=4&c=500640,8999520';

  before(async () => {
    s = await startBrowserStores('viewer-region', { script: 'region_stores.py' });
    pages = viewerPages(s.browser, s.base, consoleErrors);
  });
  after(() => s?.close());

  /** @param {any} shape @returns {Promise<Oracle>} */
  const oracle = (shape) => py('region_stores.py', ['--oracle', JSON.stringify(oracleShape(shape)), 'B04']);

  /** The CSS point of store coordinates (X, Y) on the page. @param {import('playwright-core').Page} page @param {number} X @param {number} Y */
  const at = (page, X, Y) => page.evaluate(([X, Y]) => {
    const p = window.__chronozarrViewer.api.screenOf((X - 500000) / 10, (9000000 - Y) / 10);
    const box = document.getElementById('map')?.getBoundingClientRect();
    return { x: (box?.left ?? 0) + p.px, y: (box?.top ?? 0) + p.py };
  }, [X, Y]);

  /** Press at a, move to b in steps, release. @param {import('playwright-core').Page} page @param {{ x: number, y: number }} a @param {{ x: number, y: number }} b */
  async function drag(page, a, b) {
    await page.mouse.move(a.x, a.y);
    await page.mouse.down();
    await page.mouse.move(b.x, b.y, { steps: 6 });
    await page.mouse.up();
  }
  /** @param {import('playwright-core').Page} page */
  const complete = (page) => page.waitForFunction(() => document.getElementById('regions')?.dataset.complete === 'true', null, { timeout: 60_000 });
  /** The regions the viewer holds, with their series (any: the tests read their fields). @param {import('playwright-core').Page} page @returns {Promise<any[]>} */
  const held = (page) => page.evaluate(() => {
    const r = window.__chronozarrViewer.api.regions;
    return r.regions.map((x) => ({ id: x.id, shape: x.shape, series: r.panel.series(x.id) }));
  });

  for (const name of ['reg.zarr', 'reg-none.zarr']) {
    test(`a box drawn with the Box tool charts the oracle's numbers; hover, click, CSV, PNG, permalink: ${name}`, async () => {
      const page = await pages.openViewer(`store=${s.stores}/${name}${view}`, { downloads: true });
      await settled(page);
      await page.click('#region-box');
      assert.equal(await page.getAttribute('#region-box', 'aria-pressed'), 'true');
      await drag(page, await at(page, 500203, 8999797), await at(page, 500598, 8999402));
      await complete(page);
      const [one] = await held(page);
      assert.equal(one.shape.kind, 'box');
      const want = await oracle(one.shape);
      assert.ok(Math.abs(want.region_pixels - 1600) <= 200, `about 40 x 40 pixels: ${want.region_pixels}`);
      sameAsOracle(one.series, want);
      if (name === 'reg.zarr') assert.equal(one.series.source, 'history');
      // The chart: a point per date with a valid pixel, as opaque as the valid share.
      const points = await page.$$eval('.region-chart .region-point', (c) => c.map((e) => Number(e.getAttribute('fill-opacity'))));
      assert.equal(points.length, want.valid_pixels.filter((n) => n > 0).length);
      assert.ok(Math.abs(points[0] - want.valid_pixels[0] / want.region_pixels) < 1e-3);

      // Hover a date: the readout gives its statistics; a click jumps the map to it.
      const t = 30;
      const x = await page.$eval('.region-chart', (svg, t) => {
        const c = svg.querySelector(`.region-point[data-t="${t}"]`);
        const box = svg.getBoundingClientRect();
        return box.left + (Number(c?.getAttribute('cx')) / 300) * box.width;
      }, t);
      const chartBox = await page.$eval('.region-chart', (e) => e.getBoundingClientRect().toJSON());
      await page.mouse.move(x, chartBox.top + chartBox.height / 2);
      const readout = await page.textContent('.region-readout');
      assert.match(String(readout), new RegExp(`^2017-07-01: #1 B04: mean ${String(want.mean[t]).slice(0, 5)}`));
      assert.match(String(readout), new RegExp(`${want.valid_pixels[t]} of ${want.region_pixels} valid pixels`));
      await page.mouse.down();
      await page.mouse.up();
      await page.waitForFunction((t) => window.__chronozarrViewer.api.state().t === t, t);
      if (name === 'reg.zarr') assert.deepEqual(await axeViolations(page), [], 'the regions on the map and their panel');

      // CSV: one row per date, the oracle's numbers; an empty cell where nothing is valid.
      const csv = readFileSync(String(await (await downloadOf(page, () => page.click('.region-csv'))).path()), 'utf8').trim().split('\n');
      assert.equal(csv[0], 'region,time,band,level,valid_pixels,mean,std,min,max');
      const rows = csv.slice(1).map((l) => l.split(','));
      assert.equal(rows.length, want.valid_pixels.length);
      rows.forEach((r, i) => {
        assert.deepEqual(r.slice(0, 5), ['1', `${2015 + Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, '0')}-01T00:00:00Z`, 'B04', '0', String(want.valid_pixels[i])]);
        ['mean', 'std', 'min', 'max'].forEach((k, j) => assert.ok(Math.abs(Number(r[5 + j]) - Number(/** @type {any} */ (want)[k][i])) < 1e-12, `row ${i} ${k}`));
      });
      const png = readFileSync(String(await (await downloadOf(page, () => page.click('.region-png'))).path()));
      assert.deepEqual([...png.subarray(1, 4)], [...Buffer.from('PNG')]);

      // The permalink reopens the same region, with the same numbers.
      await page.waitForFunction(() => /[?&]region=bbox:/.test(window.__chronozarrViewer.permalink ?? ''));
      const link = await page.evaluate(() => window.__chronozarrViewer.permalink ?? '');
      const again = await pages.openViewer(link.slice(link.indexOf('?') + 1));
      await complete(again);
      const [back] = await held(again);
      assert.equal(back.shape.kind, 'box');
      back.shape.box.forEach((/** @type {number} */ v, /** @type {number} */ i) => assert.ok(Math.abs(v - one.shape.box[i]) < 1e-3, `${v} vs ${one.shape.box[i]}`));
      assert.deepEqual(back.series.validPixels, one.series.validPixels);
      sameAsOracle(back.series, want);
      assert.deepEqual(consoleErrors, []);
      await again.close();
      await page.context().close();
    });
  }

  test('Shift+drag draws a box, clicks draw a polygon; arrows move and Delete removes a region; a finger draws a box', async () => {
    const page = await s.browser.newPage({ viewport: { width: 800, height: 600 }, hasTouch: true });
    pages.watch(page);
    await page.goto(`${s.base}/viewer/?store=${s.stores}/reg.zarr${view}`);
    await page.waitForFunction(() => window.__chronozarrViewer?.ready, null, { timeout: 20_000 });
    await settled(page);
    await page.keyboard.down('Shift');
    await drag(page, await at(page, 500105, 8999895), await at(page, 500305, 8999705));
    await page.keyboard.up('Shift');
    // A polygon: the tool's key, four corners, a click on the first closes it.
    await page.focus('#map');
    await page.keyboard.press('g');
    const corners = [[500700, 8999850], [501150, 8999800], [501100, 8999300], [500750, 8999350]];
    for (const [X, Y] of [...corners, corners[0]]) {
      const p = await at(page, X, Y);
      await page.mouse.click(p.x, p.y);
    }
    await complete(page);
    const [box, poly] = await held(page);
    assert.equal(box.shape.kind, 'box');
    assert.equal(poly.shape.kind, 'polygon');
    assert.equal(poly.shape.ring.length, 4);
    sameAsOracle(box.series, await oracle(box.shape));
    sameAsOracle(poly.series, await oracle(poly.shape));
    assert.equal(await page.$$eval('.region-list li', (l) => l.length), 2);

    // The keyboard: Tab reaches a region; an arrow moves it 10 CSS pixels (2.5 pixels at zoom 4).
    await page.focus('.regions-layer [data-region="1"]');
    await page.keyboard.press('ArrowRight');
    const [moved] = await held(page);
    assert.ok(Math.abs(moved.shape.box[0] - box.shape.box[0] - 25) < 1e-6, `moved 25 m east: ${moved.shape.box[0]}`);
    assert.equal(await page.evaluate(() => window.__chronozarrViewer.api.state().t), 0, 'the arrow moved the region, not the date');
    await complete(page);
    sameAsOracle((await held(page))[0].series, await oracle(moved.shape));
    await page.keyboard.press('Delete');
    const left = await held(page);
    assert.deepEqual(left.map((r) => r.shape.kind), ['polygon']);

    // Touch: the Box tool, then a finger's drag (touch events become pointer events of type touch),
    // below the polygon and clear of the panel at the top left.
    await page.click('#region-box');
    const [a, b] = [await at(page, 501010, 8999160), await at(page, 501210, 8999050)];
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x: a.x, y: a.y }] });
    for (let i = 1; i <= 5; i++) await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [{ x: a.x + ((b.x - a.x) * i) / 5, y: a.y + ((b.y - a.y) * i) / 5 }] });
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    await complete(page);
    const touched = (await held(page)).at(-1);
    assert.equal(touched.shape.kind, 'box');
    assert.ok(Math.abs(touched.shape.box[0] - 501010) < 3 && Math.abs(touched.shape.box[2] - 501210) < 3, JSON.stringify(touched.shape));
    assert.equal(touched.series.regionPixels, 20 * 11, 'centres 501015 to 501205 east, 8999055 to 8999155 north');
    assert.deepEqual(consoleErrors, []);
    await page.close();
  });

  test('embedded: set.region from the host, and chronozarr:region with the series', async () => {
    const other = s.base.replace('127.0.0.1', 'localhost');
    const context = await s.browser.newContext({ viewport: { width: 700, height: 560 } });
    const page = await context.newPage();
    pages.watch(page);
    const src = `${s.base}/viewer/?store=${encodeURIComponent(`${s.stores}/reg.zarr`)}&embed=1&origin=${encodeURIComponent(other)}${view}&region=bbox:500200,8999400,500600,8999800`;
    await page.goto(`${other}/e2e/host.html?src=${encodeURIComponent(src)}`);
    const regionMessages = () => page.evaluate(() => window.messages.filter((m) => m.data.type === 'chronozarr:region').map((m) => ({ origin: m.origin, ...m.data })));
    await page.waitForFunction(() => window.messages.some((m) => m.data.type === 'chronozarr:region'), null, { timeout: 60_000 });
    let [msg] = await regionMessages();
    assert.equal(msg.origin, s.base);
    assert.deepEqual([msg.v, msg.id, msg.region, msg.times.length], [1, 1, 'bbox:500200,8999400,500600,8999800', 120]);
    sameAsOracle(msg, await oracle({ kind: 'box', box: [500200, 8999400, 500600, 8999800] }));

    const ring = [[500700, 8999850], [501150, 8999800], [501100, 8999300], [500750, 8999350]];
    await page.evaluate((ring) => window.send({ type: 'chronozarr:set', region: [{ type: 'Polygon', coordinates: [[...ring, ring[0]]] }] }), ring);
    await page.waitForFunction(() => window.messages.filter((m) => m.data.type === 'chronozarr:region').length >= 2, null, { timeout: 60_000 });
    msg = (await regionMessages())[1];
    assert.equal(msg.region, `poly:${ring.flat().join(',')}`);
    sameAsOracle(msg, await oracle({ kind: 'polygon', ring }));
    await page.evaluate(() => window.send({ type: 'chronozarr:set', region: 'bbox:1,2' }));
    await page.waitForFunction(() => window.messages.some((m) => m.data.type === 'chronozarr:error'));
    const err = await page.evaluate(() => window.messages.find((m) => m.data.type === 'chronozarr:error')?.data);
    assert.equal(err.code, 'bad_set');
    assert.match(err.message, /^region: a box is four numbers/);
    assert.deepEqual(consoleErrors, []);
    await context.close();
  });
});
