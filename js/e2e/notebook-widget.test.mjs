// @ts-check
// The notebook widget's front end (viewer/notebook-widget.js) in Debian Chromium: a page on
// another origin stands in for the notebook, with a model that records what the widget sends to
// Python. Checked: the iframe opens the viewer with the embed API for that origin, the sets Python
// sent before display are applied at ready, Python's later sets reach the viewer, and the viewer's
// ready, time and click messages come back to Python as the contract writes them.
// Run: cd js && node --test e2e/notebook-widget.test.mjs
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { skip, startBrowserStores } from './browser-stores.mjs';

describe('notebook widget', { skip, timeout: 240_000 }, () => {
  /** @type {string} */ let base;
  /** @type {import('playwright-core').Browser} */ let browser;
  /** @type {string} */ let stores;
  /** @type {() => Promise<void>} */ let close;

  before(async () => {
    ({ base, browser, stores, close } = await startBrowserStores('widget'));
  });
  after(() => close?.());

  test('Python\'s sets reach the viewer and its ready, time and click messages reach Python', async () => {
    const other = base.replace('127.0.0.1', 'localhost');
    const url = `${base}/viewer/?store=${encodeURIComponent(`${stores}/s2.zarr`)}`;
    // what Python's set(t=3, product='ndwi') leaves in the traits before the widget is displayed
    const state = { url, height: 420, _asked: { t: 3, product: 'ndwi' }, t: 3, product: 'ndwi', band: '' };
    const page = await browser.newPage({ viewport: { width: 720, height: 520 } });
    const errors = /** @type {string[]} */ ([]);
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    await page.goto(`${other}/e2e/widget-host.html?state=${encodeURIComponent(JSON.stringify(state))}`);
    await page.waitForFunction(() => window.hostReady);
    const src = await page.evaluate(() => /** @type {HTMLIFrameElement} */ (document.querySelector('iframe')).src);
    const params = new URL(src).searchParams;
    assert.deepEqual([params.get('embed'), params.get('origin'), params.get('store')], ['1', other, `${stores}/s2.zarr`]);
    const sent = () => page.evaluate(() => window.sent);
    /** Until the widget has sent Python a message of this type (and this t). @param {string} type @param {number | null} [t] */
    const waitFor = (type, t = null) => page.waitForFunction(
      ([type, t]) => window.sent.some((m) => m.type === type && (t == null || m.t === t)), /** @type {[string, number | null]} */ ([type, t]), { timeout: 30_000 });

    await waitFor('chronozarr:ready');
    await waitFor('chronozarr:time', 3);
    const frame = page.frames().find((f) => f.url().startsWith(`${base}/viewer/`));
    assert.ok(frame, 'the viewer frame');
    let shown = await frame.evaluate(() => window.__chronozarrViewer.api.state());
    assert.deepEqual([shown.t, shown.product], [3, 'ndwi']);
    const ready = (await sent()).find((/** @type {any} */ m) => m.type === 'chronozarr:ready');
    assert.equal(ready.v, 1);
    assert.equal(ready.times.length, 10);

    // a later set from Python: a date, the nearest timestep wins (2020-08-10 is timestep 5)
    await page.evaluate(() => window.emit({ v: 1, type: 'chronozarr:set', t: '2020-08-10', product: 'ndvi' }));
    await waitFor('chronozarr:time', 5);
    shown = await frame.evaluate(() => window.__chronozarrViewer.api.state());
    assert.deepEqual([shown.t, shown.product], [5, 'ndvi']);
    const time = (await sent()).find((/** @type {any} */ m) => m.type === 'chronozarr:time' && m.t === 5);
    assert.equal(time.time, '2020-08-01T00:00:00Z');

    // a click in the viewer reaches Python with the pixel and the values of the frame on screen
    await frame.waitForFunction(() => window.__chronozarrViewer.api.state().settled);
    await frame.evaluate(() => {
      const api = window.__chronozarrViewer.api;
      const s = api.screenOf(40.5, 30.5);
      api.click(s.px, s.py);
    });
    await waitFor('chronozarr:click');
    const click = (await sent()).find((/** @type {any} */ m) => m.type === 'chronozarr:click');
    assert.deepEqual(click.pixel, { x: 40, y: 30 });
    assert.equal(click.t, 5);
    assert.deepEqual(Object.keys(click.values), ['B02', 'B03', 'B04', 'B08']);
    // a get from Python is answered with a ready whose state is current
    const readies = (await sent()).filter((/** @type {any} */ m) => m.type === 'chronozarr:ready').length;
    await page.evaluate(() => window.emit({ v: 1, type: 'chronozarr:get' }));
    await page.waitForFunction((n) => window.sent.filter((/** @type {any} */ m) => m.type === 'chronozarr:ready').length > n, readies);
    assert.equal((await sent()).filter((/** @type {any} */ m) => m.type === 'chronozarr:ready').at(-1).state.t, 5);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
