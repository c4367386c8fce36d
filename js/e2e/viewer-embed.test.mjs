// @ts-check
// The viewer's embed API end to end: a host page on another origin with the viewer in an iframe,
// talking to it by postMessage (ready, set, time, view, click, get, errors), in Debian Chromium
// through playwright-core against `chronozarr serve`, on stores the Python writer makes.
// Run: cd js && node --test e2e/viewer-embed.test.mjs   (also part of `npm test`).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { skip, startBrowserStores } from './browser-stores.mjs';
import { viewerPages } from './viewer-page.mjs';

describe('viewer embed API', { skip, timeout: 300_000 }, () => {
  /** @type {string} */
  let tmp;
  /** @type {string} http://127.0.0.1:PORT */
  let base;
  /** @type {string} the same server as http://localhost:PORT: another origin */
  let other;
  /** @type {import('playwright-core').Browser} */
  let browser;
  /** @type {string} store URL */
  let s2;
  /** @type {() => Promise<void>} */
  let close;
  /** @type {string[]} */
  const consoleErrors = [];

  before(async () => {
    let stores;
    ({ tmp, base, browser, stores, close } = await startBrowserStores('viewer'));
    other = base.replace('127.0.0.1', 'localhost');
    s2 = `${stores}/s2.zarr`;
  });

  after(() => close?.());

  const pages = () => viewerPages(browser, base, consoleErrors);
  /** @type {ReturnType<typeof viewerPages>['watch']} */
  const watch = (page, allowErrors) => pages().watch(page, allowErrors);
  /**
   * A host page on `other` with the viewer in an iframe; returns { page, frame, messages() }.
   * @param {string} viewerQuery
   * @param {{ early?: Record<string, unknown>[], delayOpen?: number, allowErrors?: boolean }} [o]
   */
  async function host(viewerQuery, { early = [], delayOpen = 0, allowErrors = false } = {}) {
    const context = await browser.newContext({ viewport: { width: 700, height: 560 } });
    if (delayOpen) await context.route('**/zarr.json', async (route) => {
      await new Promise((r) => setTimeout(r, delayOpen));
      await route.continue();
    });
    const page = await context.newPage();
    watch(page, allowErrors);
    const src = `${base}/viewer/?${viewerQuery}`;
    await page.goto(`${other}/e2e/host.html?src=${encodeURIComponent(src)}&early=${encodeURIComponent(JSON.stringify(early))}`);
    const frame = () => {
      const found = page.frames().find((f) => f.url().startsWith(`${base}/viewer/`));
      assert.ok(found, 'the host page has the viewer frame');
      return found;
    };
    await page.waitForFunction(() => /** @type {HTMLIFrameElement} */ (document.getElementById('frame')).src);
    /** @returns {Promise<any[]>} the messages the viewer sent (JSON from the frame), each with the origin it came from */
    const messages = () => page.evaluate(() => window.messages.map((m) => ({ origin: m.origin, ...m.data })));
    const waitFor = (/** @type {string} */ type, n = 1) => page.waitForFunction(([type, n]) => window.messages.filter((m) => m.data.type === type).length >= n, /** @type {[string, number]} */ ([type, n]), { timeout: 20_000 });
    const send = (/** @type {Record<string, unknown>} */ msg) => page.evaluate((m) => window.send(m), msg);
    return { page, context, frame, messages, waitFor, send };
  }
  const embedQuery = (extra = '') => `store=${encodeURIComponent(s2)}&embed=1&origin=${encodeURIComponent(other)}${extra}`;

  test('embed: ready, merged early sets, time, view, click, get, bad_set, bad_message, v: 1', async () => {
    const h = await host(embedQuery('&t=1'), {
      early: [{ type: 'chronozarr:set', t: 3, product: 'ndwi' }, { v: 1, type: 'chronozarr:set', t: '2020-08-10' }],
      delayOpen: 600,
    });
    await h.waitFor('chronozarr:ready');
    await h.waitFor('chronozarr:time');
    let msgs = await h.messages();
    assert.ok(msgs.every((m) => m.v === 1 && m.origin === base));
    const ready = msgs.find((m) => m.type === 'chronozarr:ready');
    assert.equal(ready.times.length, 10);
    assert.equal(ready.state.t, 1);
    assert.equal(ready.store.crs, 'EPSG:32718');
    assert.deepEqual(ready.bands.map((/** @type {{ name: string }} */ b) => b.name), ['B02', 'B03', 'B04', 'B08']);
    assert.deepEqual(ready.products.map((/** @type {{ available: boolean }} */ p) => p.available), [true, true, true, true, true, true]);
    assert.equal(ready.levels.length, 4);
    assert.equal(typeof ready.state.center.lon, 'number');
    // The early sets were received before the store opened, merged (later t wins) and applied after ready.
    const log = await h.frame().evaluate(() => window.__chronozarrViewer.api.embedLog);
    assert.deepEqual(log.slice(0, 2).map((e) => e.opened), [false, false]);
    const time = msgs.find((m) => m.type === 'chronozarr:time');
    assert.deepEqual([time.t, time.time], [5, '2020-08-01T00:00:00Z']);
    assert.ok(msgs.indexOf(ready) < msgs.indexOf(time));
    let state = await h.frame().evaluate(() => window.__chronozarrViewer.api.state());
    assert.equal(state.product, 'ndwi');

    // set with camera: view follows.
    await h.send({ type: 'chronozarr:set', zoom: 2, center: { x: 501000, y: 8999250 } });
    await h.waitFor('chronozarr:view');
    msgs = await h.messages();
    const view = msgs.find((m) => m.type === 'chronozarr:view');
    assert.equal(view.zoom, 2);
    assert.ok(Math.abs(view.center.x - 501000) < 1e-6 && Math.abs(view.center.y - 8999250) < 1e-6);

    // A bad field: nothing applied, bad_set names it.
    await h.send({ type: 'chronozarr:set', t: 0, zoom: 'big' });
    await h.waitFor('chronozarr:error');
    msgs = await h.messages();
    let err = msgs.filter((m) => m.type === 'chronozarr:error').at(-1);
    assert.equal(err.code, 'bad_set');
    assert.match(err.message, /^zoom/);
    state = await h.frame().evaluate(() => window.__chronozarrViewer.api.state());
    assert.equal(state.t, 5);
    /** @type {[Record<string, unknown>, string][]} */
    const badSets = [[{ t: 10 }, 't'], [{ band: 'B99' }, 'band'], [{ product: 'nope' }, 'product'], [{ speed: -1 }, 'speed'], [{ playing: 'yes' }, 'playing'], [{ center: { x: 1 } }, 'center']];
    for (const [bad, field] of badSets) {
      const count = (await h.messages()).filter((m) => m.type === 'chronozarr:error').length;
      await h.send({ type: 'chronozarr:set', ...bad });
      await h.waitFor('chronozarr:error', count + 1);
      err = (await h.messages()).filter((m) => m.type === 'chronozarr:error').at(-1);
      assert.equal(err.code, 'bad_set');
      assert.ok(err.message.startsWith(field), err.message);
    }
    // Versions and types.
    let count = (await h.messages()).filter((m) => m.type === 'chronozarr:error').length;
    await h.send({ v: 2, type: 'chronozarr:get' });
    await h.waitFor('chronozarr:error', count + 1);
    assert.equal((await h.messages()).filter((m) => m.type === 'chronozarr:error').at(-1).code, 'bad_message');
    await h.send({ type: 'chronozarr:frobnicate' });
    await h.waitFor('chronozarr:error', count + 2);
    assert.equal((await h.messages()).filter((m) => m.type === 'chronozarr:error').at(-1).code, 'bad_message');
    // Its own types and foreign protocols are ignored.
    await h.send({ type: 'chronozarr:ready' });
    await h.send({ type: 'other:thing' });
    await h.send({ type: 'chronozarr:get' });
    await h.waitFor('chronozarr:ready', 2);
    msgs = await h.messages();
    assert.equal(msgs.filter((m) => m.type === 'chronozarr:error').length, count + 2);
    assert.equal(msgs.filter((m) => m.type === 'chronozarr:ready').at(-1).state.t, 5);
    assert.equal(msgs.filter((m) => m.type === 'chronozarr:ready').at(-1).state.zoom, 2);
    // A click is reported.
    await h.frame().waitForFunction(() => window.__chronozarrViewer.api.state().settled);
    await h.frame().evaluate(() => {
      const api = window.__chronozarrViewer.api;
      const s = api.screenOf(123.5, 77.5);
      api.click(s.px, s.py);
    });
    await h.waitFor('chronozarr:click');
    const click = (await h.messages()).find((m) => m.type === 'chronozarr:click');
    assert.deepEqual(click.pixel, { x: 123, y: 77 });
    assert.equal(click.t, 5);
    assert.equal(click.valid, true);
    assert.deepEqual(Object.keys(click.values), ['B02', 'B03', 'B04', 'B08']);
    // set playing / speed.
    await h.send({ type: 'chronozarr:set', speed: 23, playing: true });
    await h.frame().waitForFunction(() => window.__chronozarrViewer.api.state().playing || window.__chronozarrViewer.playback === 'stopped' && !/** @type {HTMLElement} */ (document.getElementById('toast')).hidden);
    assert.equal(await h.frame().evaluate(() => /** @type {HTMLElement} */ (document.getElementById('toast')).hidden ? '' : /** @type {HTMLElement} */ (document.getElementById('toast')).textContent), '', 'playback started');
    assert.equal((await h.frame().evaluate(() => window.__chronozarrViewer.api.state())).speed, 24);
    await h.send({ type: 'chronozarr:set', playing: false });
    await h.frame().waitForFunction(() => !window.__chronozarrViewer.api.state().playing);
    await h.context.close();
  });

  test('embed: the referrer gives the origin; controls=0 and theme=light', async () => {
    const h = await host(`store=${encodeURIComponent(s2)}&embed=1&controls=0&theme=light`);
    await h.waitFor('chronozarr:ready');
    const f = h.frame();
    assert.equal(await f.evaluate(() => /** @type {HTMLElement} */ (document.getElementById('viewer')).dataset.theme), 'light');
    assert.equal(await f.isVisible('.bar'), false);
    await f.waitForFunction(() => /** @type {HTMLElement} */ (document.getElementById('readout')).textContent === '2020-01-01');
    await h.context.close();
  });

  test('embed: a wrong origin gets no reply', async () => {
    // The viewer is told its host is 127.0.0.1 while it is framed by localhost.
    const h = await host(`store=${encodeURIComponent(s2)}&embed=1&origin=${encodeURIComponent(base)}`, { allowErrors: true });
    await h.frame().waitForFunction(() => window.__chronozarrViewer?.ready);
    await h.send({ type: 'chronozarr:get' });
    await h.send({ type: 'chronozarr:set', t: 2 });
    await h.page.waitForTimeout(800);
    assert.deepEqual(await h.messages(), []);
    assert.equal((await h.frame().evaluate(() => window.__chronozarrViewer.api.state())).t, 0);
    await h.context.close();
  });

  test('embed: error codes no_store, store_open_failed, chunk_load_failed, playback_failed', async () => {
    let h = await host(`embed=1&origin=${encodeURIComponent(other)}`);
    await h.waitFor('chronozarr:error');
    assert.equal((await h.messages())[0].code, 'no_store');
    await h.context.close();

    h = await host(`store=${encodeURIComponent(`${base}/nowhere.zarr`)}&embed=1&origin=${encodeURIComponent(other)}`, { allowErrors: true });
    await h.waitFor('chronozarr:error');
    assert.equal((await h.messages())[0].code, 'store_open_failed');
    await h.context.close();

    // A corrupt chunk of the frame on screen (the whole raster, at its finest level): decoding
    // fails, the viewer reports it and keeps going.
    const chunkDir = join(tmp, 's2.zarr', '0', 'data', 'c', '9', '0', '0');
    const victim = join(chunkDir, readdirSync(chunkDir)[0]);
    const good = readFileSync(victim);
    writeFileSync(victim, Buffer.from('not a zstd frame at all'));
    try {
      h = await host(embedQuery('&t=9&z=0.5'), { allowErrors: true });
      await h.waitFor('chronozarr:error');
      const e = (await h.messages()).find((m) => m.type === 'chronozarr:error');
      assert.equal(e.code, 'chunk_load_failed');
      await h.context.close();
    } finally {
      writeFileSync(victim, good);
    }

    h = await host(embedQuery());
    await h.waitFor('chronozarr:ready');
    await h.frame().evaluate(() => window.__chronozarrViewer.api.setPlaybackBudget(10));
    await h.send({ type: 'chronozarr:set', playing: true });
    await h.waitFor('chronozarr:error');
    assert.equal((await h.messages()).find((m) => m.type === 'chronozarr:error').code, 'playback_failed');
    await h.context.close();
  });

  test('no console errors', () => {
    assert.deepEqual(consoleErrors, []);
  });
});
