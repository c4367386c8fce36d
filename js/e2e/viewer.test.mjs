// @ts-check
// Browser viewer (issue 7) end to end (the embed API is in viewer-embed.test.mjs): Debian Chromium through playwright-core against
// `chronozarr serve`, on stores this test writes with the Python writer.
// Run: cd js && node --test e2e/viewer.test.mjs   (also part of `npm test`).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readExpected, skip, startBrowserStores } from './browser-stores.mjs';
import { colourAt, settled, viewerPages } from './viewer-page.mjs';

const BACKGROUND = [9, 12, 18];


describe('viewer', { skip, timeout: 300_000 }, () => {
  /** @type {string} */
  let tmp;
  /** @type {string} http://127.0.0.1:PORT */
  let base;
  /** @type {import('playwright-core').Browser} */
  let browser;
  /** @type {string} store URL */
  let s2;
  /** @type {string} */
  let rgb;
  /** @type {() => Promise<void>} */
  let close;
  /** @type {string[]} */
  const consoleErrors = [];

  before(async () => {
    let stores;
    ({ tmp, base, browser, stores, close } = await startBrowserStores('viewer'));
    s2 = `${stores}/s2.zarr`;
    rgb = `${stores}/rgb.zarr`;
  });

  after(() => close?.());

  const pages = () => viewerPages(browser, base, consoleErrors);
  /** @type {ReturnType<typeof viewerPages>['openViewer']} */
  const openViewer = (query, o) => pages().openViewer(query, o);
  /** @type {ReturnType<typeof viewerPages>['watch']} */
  const watch = (page, allowErrors) => pages().watch(page, allowErrors);
  test('a fixed-range band product draws the colours computed from stored values; masked pixels draw the background', async () => {
    const lo = 0.03;
    const hi = 0.25;
    // Level-0 pixel 100,75 at the centre, 4 CSS px per pixel: level 0 is drawn.
    const page = await openViewer(`store=${s2}&t=6&p=band&b=B08&z=4&c=501005,8999245&range=${lo},${hi}`);
    await settled(page);
    const state = await page.evaluate(() => window.__chronozarrViewer.api.state());
    assert.equal(state.lod, 0);
    assert.equal(state.shownT, 6);
    /** @type {number[][]} */
    const pts = [];
    for (let y = 30; y < 120; y += 7) for (let x = 25; x < 175; x += 9) pts.push([x, y]);
    pts.push([50, 20], [62, 25]); // inside the masked block
    const exp = await readExpected(join(tmp, 's2.zarr'), 0, 6, pts);
    let checked = 0;
    for (const p of exp.pixels) {
      const c = await colourAt(page, p.x, p.y);
      if (p.mask === 0) {
        assert.deepEqual(c.slice(0, 3), BACKGROUND, `masked pixel ${p.x},${p.y}`);
        continue;
      }
      const v = p.stored[3] * exp.scale[3] + exp.offset[3];
      const g = Math.round(Math.min(1, Math.max(0, (v - lo) / (hi - lo))) * 255);
      for (const ch of c.slice(0, 3)) assert.ok(Math.abs(ch - g) <= 1, `pixel ${p.x},${p.y}: drew ${c}, expected grey ${g}`);
      checked++;
    }
    assert.ok(checked > 100);
    await page.close();
  });

  test('a star-delta delta timestep is reconstructed in the shader from stored anchor and residual textures', async () => {
    const lo = 0.04;
    const hi = 0.22;
    // t = 5 decodes through anchor 4; the view spans several 32-pixel cells of level 0.
    const page = await openViewer(`store=${s2}&t=5&p=band&b=B03&z=3&c=500950,8999300&range=${lo},${hi}`);
    await settled(page);
    const info = await page.evaluate(() => {
      const { scene, store, state } = window.__chronozarrViewer.api;
      const s = state();
      const stored = store.getCell(s.lod, 2, 3, 5, { stored: true });
      return stored.then((c) => ({ lod: s.lod, shownT: s.shownT, shaderDelta: scene.shaderDelta, anchors: scene.anchorTextures, anchorOf5: store.referenceOf(5), cellAnchor: c.anchor }));
    });
    assert.equal(info.lod, 0);
    assert.equal(info.shownT, 5);
    assert.equal(info.shaderDelta, true);
    assert.equal(info.anchorOf5, 4);
    assert.equal(info.cellAnchor, 4);
    assert.ok(info.anchors >= 4, `anchor textures ${info.anchors}`);
    const pts = [];
    for (let y = 3; y < 150; y += 6) for (let x = 2; x < 200; x += 7) pts.push([x, y]);
    const exp = await readExpected(join(tmp, 's2.zarr'), 0, 5, pts);
    let checked = 0;
    for (const p of exp.pixels) {
      const s = await page.evaluate(([x, y]) => window.__chronozarrViewer.api.screenOf(x + 0.5, y + 0.5), [p.x, p.y]);
      if (s.px < 1 || s.py < 1 || s.px > 799 || s.py > 599) continue;
      const c = await colourAt(page, p.x, p.y);
      if (p.mask === 0) {
        assert.deepEqual(c.slice(0, 3), BACKGROUND, `masked pixel ${p.x},${p.y}`);
        continue;
      }
      const v = p.stored[1] * exp.scale[1] + exp.offset[1];
      const g = Math.round(Math.min(1, Math.max(0, (v - lo) / (hi - lo))) * 255);
      for (const ch of c.slice(0, 3)) assert.ok(Math.abs(ch - g) <= 1, `pixel ${p.x},${p.y}: drew ${c}, expected grey ${g} (stored ${p.stored[1]})`);
      checked++;
    }
    assert.ok(checked > 300, `checked ${checked}`);
    await page.close();
  });

  test('an 8-bit RGB store with scale 1 is drawn as stored', async () => {
    const page = await openViewer(`store=${rgb}&t=3&z=5`);
    await settled(page);
    const look = await page.evaluate(() => window.__chronozarrViewer.api.look());
    assert.equal(look.mode, 'stored8');
    const pts = [];
    for (let y = 2; y < 60; y += 5) for (let x = 3; x < 80; x += 6) pts.push([x, y]);
    const exp = await readExpected(join(tmp, 'rgb.zarr'), 0, 3, pts);
    for (const p of exp.pixels) {
      const c = await colourAt(page, p.x, p.y);
      assert.deepEqual(c.slice(0, 3), p.stored, `pixel ${p.x},${p.y}`);
    }
    const buttons = await page.$$eval('#product-buttons button', (bs) => bs.map((b) => [/** @type {HTMLButtonElement} */ (b).dataset.product, /** @type {HTMLButtonElement} */ (b).disabled]));
    assert.deepEqual(Object.fromEntries(buttons), { true_color: false, false_color: true, ndvi: true, ndwi: true, water: true, band: false });
    await page.close();
  });

  test('a click reports the values read_point gives, with validity, coverage and level', async () => {
    const page = await openViewer(`store=${s2}&t=6&z=4&c=501005,8999245`);
    await settled(page);
    const exp = await readExpected(join(tmp, 's2.zarr'), 0, 6, [[123, 77], [50, 20]]);
    for (const p of exp.pixels) {
      const click = await page.evaluate(([x, y]) => {
        const api = window.__chronozarrViewer.api;
        const s = api.screenOf(x + 0.5, y + 0.5);
        return api.click(s.px, s.py);
      }, [p.x, p.y]);
      assert.ok(click, 'the click lands on the store');
      const { lat, lon, values } = click;
      assert.ok(lat !== null && lon !== null && values, 'the click has a place and values');
      assert.deepEqual(click.pixel, { x: p.x, y: p.y });
      assert.equal(click.level, 0);
      assert.equal(click.t, 6);
      assert.deepEqual(click.stored, p.stored);
      assert.equal(click.valid, p.mask === 1);
      exp.bands.forEach((b, i) => {
        const value = values[b];
        if (p.mask === 1) assert.ok(value !== null && Math.abs(value - (p.stored[i] * exp.scale[i] + exp.offset[i])) < 1e-9, `${b}: ${value}`);
        else assert.equal(value, null);
      });
      assert.ok(lat < 0 && lat > -10 && lon > -76 && lon < -74, `lon/lat ${lon},${lat}`);
      await page.waitForFunction((n) => /** @type {HTMLElement | null} */ (document.querySelector('.insp-coverage'))?.dataset.coverage === String(n), p.coverage);
      const text = await page.textContent('.insp-coverage');
      assert.equal(text, p.coverage === 0 ? 'No valid observation (gap-filled)' : `Observed by ${p.coverage} scene${p.coverage === 1 ? '' : 's'}`);
      assert.equal(await page.textContent('.insp-level'), 'Level 0 (full resolution)');
    }
    // The chart: one point per valid date, the masked pixel's history drawn with breaks.
    await page.waitForFunction(() => document.querySelector('.hist-chart + .chart-caption'));
    const circles = await page.$$eval('.hist-chart .chart circle', (c) => c.length);
    const historyMask = exp.pixels[1].history_mask;
    assert.ok(historyMask, 'the store has a mask');
    assert.equal(circles, historyMask.filter((m) => m === 1).length * 3);
    await page.close();
  });

  test('URL state round trip', async () => {
    const page = await openViewer(`store=${s2}`);
    await settled(page);
    await page.evaluate(() => window.__chronozarrViewer.api.setT(4));
    await page.click('#product-buttons button[data-product="ndvi"]');
    await page.focus('#map');
    await page.keyboard.press('+');
    await page.keyboard.press('Shift+ArrowLeft');
    await page.waitForFunction(() => /[?&]p=ndvi/.test(location.search) && /[?&]t=4/.test(location.search));
    await page.waitForTimeout(300);
    const url = page.url();
    const before = await page.evaluate(() => window.__chronozarrViewer.api.state());
    const again = await openViewer(new URL(url).search.slice(1));
    const after = await again.evaluate(() => window.__chronozarrViewer.api.state());
    assert.equal(after.t, 4);
    assert.equal(after.product, 'ndvi');
    assert.ok(Math.abs(after.cam.zoom / before.cam.zoom - 1) < 1e-3);
    assert.ok(Math.abs(after.cam.cx - before.cam.cx) < 0.05 && Math.abs(after.cam.cy - before.cam.cy) < 0.05);
    assert.equal(again.url(), url);
    await page.close();
    await again.close();
  });

  test('playback shows every step in order and never a frame with mixed timesteps', async () => {
    const page = await openViewer(`store=${s2}&t=7&z=3`);
    await settled(page);
    // Buffering is the scene's read-ahead of the loop, not a second reader of it: no chunk is read
    // twice (a read-ahead that a newer one superseded may abort a request, which is then asked again).
    /** @type {string[]} */
    const chunkGets = [];
    page.on('requestfinished', (r) => /\/s2\.zarr\/.*\/c\//.test(r.url()) && chunkGets.push(`${r.url()} ${r.headers().range ?? ''}`));
    const start = await page.evaluate(() => {
      const h = window.__chronozarrViewer;
      h.api.setSpeed(30);
      h.api.play();
      return h.frames.length;
    });
    await page.waitForFunction(() => window.__chronozarrViewer.playback === 'playing', null, { timeout: 20_000 });
    // Two full loops.
    await page.waitForFunction((from) => {
      const ts = window.__chronozarrViewer.frames.slice(from).map((f) => f.t);
      return ts.filter((t, i) => i === 0 || t !== ts[i - 1]).length >= 21;
    }, start, { timeout: 30_000 });
    await page.evaluate(() => window.__chronozarrViewer.api.stop());
    const frames = await page.evaluate((from) => window.__chronozarrViewer.frames.slice(from), start);
    const steps = frames.map((f) => f.t).filter((t, i, a) => i === 0 || t !== a[i - 1]);
    assert.ok(steps.every((t) => t !== null), 'every played frame shows a timestep');
    assert.equal(steps[0], 8); // 7 was on screen before play
    for (let i = 1; i < steps.length; i++) assert.equal(steps[i], (steps[i - 1] + 1) % 10, `step ${i}: ${steps.join(',')}`);
    const all = await page.evaluate(() => window.__chronozarrViewer.frames);
    for (const f of all) {
      for (const c of f.cells) assert.equal(c.t, f.t, `frame ${f.n} mixes timesteps`);
      if (f.t !== 7 || f.n > frames[0].n) assert.ok(f.complete || f.n <= frames[0].n, `frame ${f.n} during playback is incomplete`);
    }
    assert.ok(frames.every((f) => f.cells.length >= 4));
    const twice = chunkGets.filter((g, i) => chunkGets.indexOf(g) !== i);
    assert.deepEqual(twice, [], `chunks read more than once while buffering and playing (${chunkGets.length} reads)`);
    await page.close();
  });

  test('once the view has settled, a step to either neighbouring timestep swaps the frame within the step', async () => {
    const page = await openViewer(`store=${s2}&t=5&z=3`);
    await settled(page);
    // The neighbours (4 and 6) go to the GPU after the frame is complete.
    await page.waitForFunction(() => window.__chronozarrViewer.api.scene.pending === 0);
    const shown = await page.evaluate(() => {
      const { api } = window.__chronozarrViewer;
      const after = (/** @type {number} */ t) => {
        api.setT(t);
        return api.state().shownT; // read in the same task as the step
      };
      return { forward: after(6), back: after(5), twoAhead: after(7 + 1) };
    });
    assert.equal(shown.forward, 6);
    assert.equal(shown.back, 5);
    // Two steps from 5 was not loaded ahead: the frame keeps 5 until 8 arrives.
    assert.equal(shown.twoAhead, 5);
    await page.waitForFunction(() => window.__chronozarrViewer.api.state().shownT === 8);
    await page.close();
  });

  test('while a view loads, frames painted for arriving cells come at least 120 ms apart', async () => {
    const page = await browser.newPage({ viewport: { width: 800, height: 600 } });
    watch(page, false);
    // Chunks answered one after another, 25 ms apart, as over a slow link.
    let nth = 0;
    await page.route(/\/s2\.zarr\/.*\/c\//, (route) => setTimeout(() => route.continue(), 25 * ++nth));
    await page.goto(`${base}/viewer/?store=${s2}&t=2&z=3`);
    await page.waitForFunction(() => window.__chronozarrViewer?.firstCompleteAt != null, null, { timeout: 60_000 });
    const frames = await page.evaluate(() => window.__chronozarrViewer.frames.map((f) => ({ at: f.at, complete: f.complete, cells: f.cells.length })));
    const partial = frames.slice(0, frames.findIndex((f) => f.complete));
    assert.ok(partial.length >= 1, `the slow link shows progress before the complete frame: ${JSON.stringify(frames)}`);
    for (let i = 1; i < partial.length; i++) assert.ok(partial[i].at - partial[i - 1].at >= 119, `progress frames ${i - 1} and ${i} are ${partial[i].at - partial[i - 1].at} ms apart`);
    await page.close();
  });

  test('playback pauses with a message when the loop cannot be buffered', async () => {
    const page = await openViewer(`store=${s2}&z=3`);
    await settled(page);
    await page.evaluate(() => {
      window.__chronozarrViewer.api.setPlaybackBudget(1000);
      window.__chronozarrViewer.api.play();
    });
    await page.waitForFunction(() => !/** @type {HTMLElement} */ (document.getElementById('toast')).hidden);
    assert.match(await page.textContent('#toast') ?? '', /Paused: the loop needs/);
    assert.equal((await page.evaluate(() => window.__chronozarrViewer.api.state())).playing, false);
    await page.close();
  });

  test('the layout reflows to 320 px; below 700 px the products are a select', async () => {
    const page = await openViewer(`store=${s2}`, { width: 320, height: 480 });
    assert.equal(await page.isVisible('#product-select'), true);
    assert.equal(await page.isVisible('#product-buttons'), false);
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 320));
    await page.selectOption('#product-select', 'ndwi');
    await page.waitForFunction(() => window.__chronozarrViewer.api.state().product === 'ndwi');
    await page.setViewportSize({ width: 900, height: 600 });
    assert.equal(await page.isVisible('#product-buttons'), true);
    assert.equal(await page.getAttribute('#timeline', 'role'), 'slider');
    await page.close();
  });

  // ---- embedding --------------------------------------------------------------------------

  test('no console errors', () => {
    assert.deepEqual(consoleErrors, []);
  });
});
