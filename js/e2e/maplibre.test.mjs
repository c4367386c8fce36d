// @ts-check
// The MapLibre custom layer end to end: a real MapLibre map (blank style, fixed view) in Debian
// Chromium through playwright-core, against `chronozarr serve`, on stores the Python writer makes
// during the run. Where a pixel lands is computed here with pyproj (e2e/lonlat.py) and this file's
// own Web Mercator formulas, not with the layer's code.
// Run: cd js && node --test e2e/maplibre.test.mjs   (also part of `npm test`).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lonLats, readExpected, skip, startBrowserStores } from './browser-stores.mjs';

const BACKGROUND = [16, 32, 48];
const BG_CSS = 'rgb(16, 32, 48)';
const W = 800;
const H = 600;

/** Web Mercator of lon/lat in 0..1 (y down), as MapLibre places the world at zoom 0 in 512 px. @param {number} lon @param {number} lat */
function mercator(lon, lat) {
  const phi = (lat * Math.PI) / 180;
  return { x: (lon + 180) / 360, y: (1 - Math.log(Math.tan(phi) + 1 / Math.cos(phi)) / Math.PI) / 2 };
}

/**
 * CSS pixel of lon/lat on a W x H map centred on `center` at `zoom`, bearing and pitch 0.
 * @param {[number, number]} lonLat @param {[number, number]} center @param {number} zoom
 */
function screenOf([lon, lat], center, zoom) {
  const world = 512 * 2 ** zoom;
  const c = mercator(center[0], center[1]);
  const p = mercator(lon, lat);
  return { x: W / 2 + (p.x - c.x) * world, y: H / 2 + (p.y - c.y) * world };
}

describe('MapLibre layer', { skip, timeout: 120_000 }, () => {
  /** @type {string} */
  let tmp;
  /** @type {string} */
  let base;
  /** @type {import('playwright-core').Browser} */
  let browser;
  /** @type {string} */
  let s2;
  /** @type {string} */
  let rgb;
  /** @type {string[]} */
  const consoleErrors = [];
  /** @type {() => Promise<void>} */
  let close;

  before(async () => {
    let stores;
    ({ tmp, base, browser, stores, close } = await startBrowserStores('maplibre'));
    s2 = `${stores}/s2.zarr`;
    rgb = `${stores}/rgb.zarr`;
  });

  after(() => close?.());

  /** Collect the page's console errors and uncaught exceptions. @param {import('playwright-core').Page} page */
  function watch(page) {
    page.on('console', (m) => m.type() === 'error' && consoleErrors.push(`${page.url()}: ${m.text()}`));
    page.on('pageerror', (e) => consoleErrors.push(`${page.url()}: ${e.message}`));
  }

  /**
   * A host page with a map at a fixed view and the layer on it, once the layer is ready.
   * @param {{ center: [number, number], zoom: number, layer: import('../maplibre/options.js').LayerOptions, requests?: string[] }} o
   *   requests: filled as the page's requests go out ('sent URL') and their responses end ('done URL'), in that order
   */
  async function openMap({ center, zoom, layer, requests }) {
    const page = await browser.newPage({ viewport: { width: W, height: H } });
    watch(page);
    if (requests) {
      page.on('request', (r) => requests.push(`sent ${r.url()}`));
      page.on('requestfinished', (r) => requests.push(`done ${r.url()}`));
    }
    // Every decode worker the page starts, and whether it was terminated.
    await page.addInitScript(() => {
      const Native = window.Worker;
      window.workerLog = [];
      window.Worker = class extends Native {
        /** @param {string | URL} url @param {WorkerOptions} [options] */
        constructor(url, options) {
          super(url, options);
          this.entry = { url: String(url), terminated: false };
          window.workerLog.push(this.entry);
        }
        terminate() {
          this.entry.terminated = true;
          super.terminate();
        }
      };
    });
    await page.goto(`${base}/e2e/maplibre-host.html`);
    await page.waitForFunction(() => window.hostReady);
    await page.evaluate(({ center, zoom, background }) => window.makeMap({ center, zoom, background }), { center, zoom, background: BG_CSS });
    await page.evaluate((options) => window.addLayer(options), layer);
    await page.evaluate(() => window.nextRender());
    return page;
  }

  const grey = (/** @type {number} */ v, /** @type {number} */ lo, /** @type {number} */ hi) => Math.round(Math.min(1, Math.max(0, (v - lo) / (hi - lo))) * 255);

  /**
   * Draws a fixed-range band product and compares every sampled pixel centre with the grey its
   * stored value gives (invalid pixels: the map background). Returns how many were checked.
   * @param {import('playwright-core').Page} page @param {string} store
   * @param {{ t: number, band: number, lo: number, hi: number, center: [number, number], zoom: number, pixels: number[][] }} o
   */
  async function checkColours(page, store, { t, band, lo, hi, center, zoom, pixels }) {
    const exp = await readExpected(store, 0, t, pixels);
    const where = await lonLats(store, pixels);
    const screen = where.map((ll) => screenOf(ll, center, zoom));
    const inside = screen.map((s) => s.x >= 1 && s.y >= 1 && s.x < W - 1 && s.y < H - 1);
    const colours = await page.evaluate((pts) => window.pixelsAt(pts), screen.map((s) => /** @type {[number, number]} */ ([s.x, s.y])));
    let checked = 0;
    let masked = 0;
    exp.pixels.forEach((p, i) => {
      if (!inside[i]) return;
      const c = colours[i];
      if (p.mask === 0) {
        assert.deepEqual(c.slice(0, 3), BACKGROUND, `masked pixel ${p.x},${p.y} at ${screen[i].x},${screen[i].y}: drew ${c}`);
        masked++;
        return;
      }
      const g = grey(p.stored[band] * exp.scale[band] + exp.offset[band], lo, hi);
      for (const ch of c.slice(0, 3)) assert.ok(Math.abs(ch - g) <= 1, `pixel ${p.x},${p.y} at ${screen[i].x.toFixed(2)},${screen[i].y.toFixed(2)}: drew ${c}, expected grey ${g} (stored ${p.stored[band]})`);
      checked++;
    });
    return { checked, masked };
  }

  test('UTM store: a fixed-range band product draws the colours of the stored values where pyproj puts them; masked pixels show the map', async () => {
    const store = join(tmp, 's2.zarr');
    const [center] = await lonLats(store, [[100, 60]]);
    const zoom = 15.5; // about 6 CSS px per 10 m texel: level 0
    const lo = 0.03;
    const hi = 0.25;
    const page = await openMap({ center, zoom, layer: { url: s2, t: 6, product: 'band', band: 'B08', range: [lo, hi] } });
    const state = await page.evaluate(() => ({ lod: window.layer.lod, stats: window.layer.stats, frame: window.layer.frames.at(-1) }));
    assert.equal(state.lod, 0);
    assert.equal(state.stats?.shownT, 6);
    assert.ok(state.frame?.complete && state.frame.cells.every((c) => c.lod === 0 && c.t === 6));
    /** @type {number[][]} */
    const pixels = [];
    for (let y = 12; y < 110; y += 7) for (let x = 36; x < 166; x += 9) pixels.push([x, y]);
    pixels.push([50, 20], [62, 25], [41, 11], [69, 29]); // inside the masked block
    const { checked, masked } = await checkColours(page, store, { t: 6, band: 3, lo, hi, center, zoom, pixels });
    assert.ok(checked > 150, `checked ${checked}`);
    assert.ok(masked >= 4, `masked ${masked}`);
    await page.close();
  });

  test('EPSG:3857 store: colours match at known pixels, and the map shows outside the footprint', async () => {
    const store = join(tmp, 'rgb.zarr');
    const [center] = await lonLats(store, [[40, 30]]);
    const zoom = 18.5; // about 4.7 CSS px per 1 m texel
    const lo = 20;
    const hi = 230;
    const page = await openMap({ center, zoom, layer: { url: rgb, t: 3, product: 'band', band: 'red', range: [lo, hi] } });
    assert.equal(await page.evaluate(() => window.layer.lod), 0);
    /** @type {number[][]} */
    const pixels = [];
    for (let y = 2; y < 60; y += 5) for (let x = 3; x < 80; x += 6) pixels.push([x, y]);
    const { checked } = await checkColours(page, store, { t: 3, band: 0, lo, hi, center, zoom, pixels });
    assert.equal(checked, pixels.length);
    // Two texels beyond each edge of the 80 x 60 footprint.
    const outside = (await lonLats(store, [[-2, 30], [81, 30], [40, -2], [40, 61]])).map((ll) => screenOf(ll, center, zoom));
    const colours = await page.evaluate((pts) => window.pixelsAt(pts), outside.map((s) => /** @type {[number, number]} */ ([s.x, s.y])));
    for (const c of colours) assert.deepEqual(c.slice(0, 3), BACKGROUND);
    const bounds = await page.evaluate(() => window.layer.bounds);
    assert.ok(bounds && bounds[0][0] < center[0] && center[0] < bounds[1][0] && bounds[0][1] < center[1] && center[1] < bounds[1][1]);
    await page.close();
  });

  test('setTime keeps the shown timestep until every visible cell has the new one, and does not refetch cached ones', async () => {
    const store = join(tmp, 's2.zarr');
    const [center] = await lonLats(store, [[100, 60]]);
    const page = await openMap({ center, zoom: 15.5, layer: { url: s2, t: 5, product: 'band', band: 'B03', range: [0.04, 0.22] } });
    // The scene also loads the timesteps either side of the one shown; let those finish first.
    const idle = () => page.waitForFunction(() => window.layer.stats?.pending === 0 && window.layer.stats.settled);
    await idle();
    // Hold every request of timestep 7; they are let through one at a time below.
    /** @type {import('playwright-core').Route[]} */
    const held = [];
    /** @type {string[]} */
    const chunkRequests = [];
    page.on('request', (r) => /\/c\/\d+\//.test(r.url()) && chunkRequests.push(r.url()));
    await page.route(/\/c\/7\//, (route) => held.push(route));
    const before = await page.evaluate(() => ({ stats: window.layer.stats, n: window.layer.frames.length, cells: window.layer.frames.at(-1)?.cells.length ?? 0 }));
    assert.equal(before.stats?.shownT, 5);
    assert.ok(before.cells >= 8, `visible cells ${before.cells}`);
    await page.evaluate(() => window.layer.setTime(7));
    let released = 0;
    for (;;) {
      const s = await page.evaluate(() => window.nextRender().then(() => window.layer.stats));
      // Switched means every visible cell of the asked level has t = 7 (settled); else 5 stays.
      if (s?.shownT === 7) {
        assert.ok(s.settled, 'switched to 7 before every visible cell had it');
        break;
      }
      assert.equal(s?.shownT, 5);
      assert.ok(released < 500, 'the new timestep never arrived');
      const next = held.shift();
      if (next) {
        await next.continue();
        released++;
      } else await new Promise((r) => setTimeout(r, 20));
    }
    // Each visible cell needed at least its residual chunk of t = 7, all of them held.
    assert.ok(released >= before.cells, `switched after ${released} of the held requests`);
    await page.unroute(/\/c\/7\//);
    await page.evaluate(() => window.nextRender());
    const frames = await page.evaluate((n) => window.layer.frames.slice(n), before.n);
    for (const f of frames) for (const c of f.cells) assert.equal(c.t, f.t, `frame ${f.n} mixes timesteps`);
    const first7 = frames.find((f) => f.t === 7);
    assert.ok(first7, 'no frame of t = 7 was drawn');
    assert.ok(first7.complete && first7.cells.length === before.cells, `first t = 7 frame: ${JSON.stringify(first7)}`);
    assert.ok(frames.slice(0, frames.indexOf(first7)).every((f) => f.t === 5));
    // Back to a timestep on the GPU: shown at once, no request.
    await idle();
    const count = chunkRequests.length;
    const back = await page.evaluate(() => {
      window.layer.setTime(5);
      return window.layer.stats;
    });
    assert.equal(back?.shownT, 5);
    await page.evaluate(() => window.nextRender());
    await idle();
    assert.deepEqual(chunkRequests.slice(count), []);
    await page.close();
  });

  /**
   * What a W x H map at `center`/`zoom` should show of an EPSG:3857 store, from its zarr.json and
   * Web Mercator alone: the level whose texels are nearest one CSS pixel (in log2), and that
   * level's chunks the view overlaps, as 'row/col'.
   * @param {string} store @param {[number, number]} center @param {number} zoom
   */
  function expectedView(store, center, zoom) {
    const R = 40075016.686; // the Web Mercator world's width in metres
    const world = 512 * 2 ** zoom;
    const levels = JSON.parse(readFileSync(join(store, 'zarr.json'), 'utf8')).attributes.chronozarr.levels;
    const off = levels.map((/** @type {{ transform: number[] }} */ l) => Math.abs(Math.log2((l.transform[0] * world) / R)));
    const lod = off.indexOf(Math.min(...off));
    const [a, , c, , e, f] = levels[lod].transform;
    const { shape, chunk_grid: grid } = JSON.parse(readFileSync(join(store, String(lod), 'data', 'zarr.json'), 'utf8'));
    const chunk = grid.configuration.chunk_shape.at(-1);
    const m = mercator(center[0], center[1]);
    const px = (/** @type {number} */ dx) => ((m.x + dx / world) * R - R / 2 - c) / a;
    const py = (/** @type {number} */ dy) => (R / 2 - (m.y + dy / world) * R - f) / e;
    const span = (/** @type {number} */ lo, /** @type {number} */ hi, /** @type {number} */ n) => {
      const out = [];
      for (let i = Math.floor(Math.max(0, lo) / chunk); i * chunk < Math.min(n, hi); i++) out.push(i);
      return out;
    };
    const cells = span(py(-H / 2), py(H / 2), shape.at(-2)).flatMap((row) => span(px(-W / 2), px(W / 2), shape.at(-1)).map((col) => `${row}/${col}`));
    return { lod, cells };
  }

  /** The chunk an event of the request log ('sent URL' or 'done URL') of rgb.zarr's data array is for. @param {string} event */
  const rgbChunk = (event) => {
    const m = /^(sent|done) .*rgb\.zarr\/(\d+)\/data\/c\/(\d+)\/\d+\/(\d+\/\d+)$/.exec(event);
    return m ? { sent: m[1] === 'sent', lod: Number(m[2]), t: Number(m[3]), cell: m[4] } : null;
  };

  test('cold open: the level nearest one CSS px per texel, only the chunks in view, and no read-ahead on the wire until the frame has arrived', async () => {
    const store = join(tmp, 'rgb.zarr');
    const [center] = await lonLats(store, [[40, 30]]);
    // About 20 CSS px per level-0 texel (part of the footprint in view), then about 0.5 (all of it, at level 1).
    for (const zoom of [20.58, 15.25]) {
      const want = expectedView(store, center, zoom);
      /** @type {string[]} */
      const requests = [];
      const page = await openMap({ center, zoom, requests, layer: { url: rgb, t: 2, product: 'band', band: 'red', range: [20, 230], prefetch: true } });
      const state = await page.evaluate(() => ({ lod: window.layer.lod, frame: window.layer.frames.at(-1) }));
      assert.equal(state.lod, want.lod, `zoom ${zoom}`);
      assert.ok(state.frame?.complete, `zoom ${zoom}: the ready frame is not complete`);
      assert.deepEqual(state.frame.cells.filter((c) => c.lod === want.lod).map((c) => `${c.row}/${c.col}`).sort(), [...want.cells].sort());
      // Let the read-ahead go out too, then read the log in the order things happened.
      await page.evaluate(() => new Promise((r) => setTimeout(r, 300)));
      const log = requests.map(rgbChunk).filter((c) => c != null);
      const isFrame = (/** @type {NonNullable<ReturnType<typeof rgbChunk>>} */ c) => c.t === 2 && c.lod === want.lod;
      const isPicture = (/** @type {NonNullable<ReturnType<typeof rgbChunk>>} */ c) => c.t === 2 && c.lod > want.lod;
      const frame = log.filter((c) => c.sent && isFrame(c));
      assert.deepEqual(frame.map((c) => c.cell).sort(), [...want.cells].sort(), `zoom ${zoom}: the frame's chunks, each once`);
      // Until the last of the frame's responses ends, nothing but the frame and a coarse picture
      // of the same timestep is asked for, and the frame goes out once the picture is in.
      const frameDone = log.findLastIndex((c) => !c.sent && isFrame(c));
      const early = log.slice(0, frameDone).filter((c) => c.sent && !isFrame(c));
      assert.deepEqual(early.filter((c) => !isPicture(c)), [], `zoom ${zoom}: ${JSON.stringify(log)}`);
      const pictureDone = log.findLastIndex((c) => !c.sent && isPicture(c));
      assert.ok(log.findIndex((c) => c.sent && isFrame(c)) > pictureDone, `zoom ${zoom}: a frame chunk went out before the picture was in`);
      assert.ok(log.slice(frameDone).some((c) => c.sent && c.t !== 2), `zoom ${zoom}: no read-ahead followed (prefetch is on)`);
      await page.close();
    }
  });

  test('getValueAt gives the stored and physical values of the level-0 pixel, as the Python reader reads them', async () => {
    const store = join(tmp, 's2.zarr');
    const pixels = [[123, 77], [50, 20], [3, 140], [199, 0]];
    const where = await lonLats(store, pixels);
    const page = await openMap({ center: where[0], zoom: 13, layer: { url: s2, t: 6 } });
    const exp = await readExpected(store, 0, 6, pixels);
    for (const [i, p] of exp.pixels.entries()) {
      const v = await page.evaluate((ll) => window.layer.getValueAt({ lng: ll[0], lat: ll[1] }), where[i]);
      assert.ok(v, `a value at ${p.x},${p.y}`);
      assert.deepEqual([v.x, v.y, v.t], [p.x, p.y, 6]);
      /** @type {{ stored: number, value: number | null }[]} */
      const bands = v.bands;
      assert.deepEqual(bands.map((b) => b.stored), p.stored);
      assert.equal(v.valid, p.mask === 1);
      bands.forEach((b, k) => {
        if (p.mask === 1) assert.ok(b.value !== null && Math.abs(b.value - (p.stored[k] * exp.scale[k] + exp.offset[k])) < 1e-12);
        else assert.equal(b.value, null);
      });
    }
    assert.equal(await page.evaluate(() => window.layer.getValueAt([0, 0])), null);
    await page.close();
  });

  test('remove takes the layer off the map and ends the decode workers; a missing matrix is reported', async () => {
    const store = join(tmp, 's2.zarr');
    const [center] = await lonLats(store, [[100, 75]]);
    const page = await openMap({ center, zoom: 14, layer: { url: s2 } });
    const message = await page.evaluate(() => new Promise((resolve) => {
      window.layer.on('error', (e) => resolve(e.error.message));
      // @ts-expect-error no GL context and no matrix: the call this checks is refused
      window.layer.render(null, {});
    }));
    assert.match(message, /MapLibre GL JS 5 or later.*defaultProjectionData\.mainMatrix/);
    const started = await page.evaluate(() => window.workerLog.filter((w) => w.url.includes('decode-worker')).length);
    assert.ok(started > 0, 'the reader started no decode worker');
    const after = await page.evaluate(async () => {
      window.layer.remove();
      await window.nextRender();
      return {
        layer: Boolean(window.map.getLayer('chronozarr')),
        workers: window.workerLog.filter((w) => w.url.includes('decode-worker')),
        stats: window.layer.stats,
        alive: window.layer.store.stats().workers,
      };
    });
    assert.equal(after.layer, false);
    assert.ok(after.workers.every((w) => w.terminated), JSON.stringify(after.workers));
    assert.equal(after.stats, null);
    assert.equal(after.alive, 0);
    await page.close();
  });

  test('the demo page opens ?store=, fits it, and its slider, product select and click readout work', async () => {
    const page = await browser.newPage({ viewport: { width: W, height: H } });
    watch(page);
    await page.goto(`${base}/maplibre/?store=${encodeURIComponent(s2)}&t=2`);
    await page.waitForFunction(() => window.__chronozarrMap?.layer.stats?.settled && /** @type {HTMLElement} */ (document.getElementById('status')).textContent === '', null, { timeout: 20_000 });
    await page.evaluate(() => {
      const slider = /** @type {HTMLInputElement} */ (document.getElementById('time'));
      slider.value = '4';
      slider.dispatchEvent(new Event('input'));
    });
    await page.selectOption('#product', 'ndvi');
    const state = await page.evaluate(() => ({ t: window.__chronozarrMap.layer.t, product: window.__chronozarrMap.layer.product, date: /** @type {HTMLElement} */ (document.getElementById('date')).textContent }));
    assert.deepEqual(state, { t: 4, product: 'ndvi', date: '2020-05-01 (5/10)' });
    await page.mouse.click(W / 2, H / 2);
    await page.waitForFunction(() => /** @type {HTMLElement} */ (document.getElementById('readout')).textContent.startsWith('pixel'));
    assert.match(await page.textContent('#readout') ?? '', /^pixel \d+, \d+ {2}2020-05-01/);
    await page.close();
  });

  test('the demo page shows the legend, a scale bar and a cursor readout of the frame on the map, without requests', async () => {
    const store = join(tmp, 's2.zarr');
    const pixels = [[123, 77], [140, 85]];
    const where = await lonLats(store, pixels);
    const exp = await readExpected(store, 0, 6, pixels);
    const page = await browser.newPage({ viewport: { width: W, height: H } });
    watch(page);
    await page.goto(`${base}/maplibre/?store=${encodeURIComponent(s2)}&t=6&product=ndvi`);
    const ready = () => page.waitForFunction(() => window.__chronozarrMap?.layer.stats?.settled && window.__chronozarrMap.layer.stats.pending === 0, null, { timeout: 20_000 });
    await ready();
    await page.waitForFunction(() => document.querySelectorAll('#legend .lg-tick').length === 5);
    assert.deepEqual(await page.$$eval('#legend .lg-tick', (t) => t.map((x) => Number(/** @type {HTMLElement} */ (x).dataset.value))), [-1, -0.5, 0, 0.5, 1]);
    // The labels stand apart along the bar (the legend's styles apply on this page), never run together.
    const boxes = await page.$$eval('#legend .lg-tick', (t) => t.map((x) => x.getBoundingClientRect()).map((r) => [r.left, r.right]));
    for (let i = 1; i < boxes.length; i++) assert.ok(boxes[i][0] >= boxes[i - 1][1], `tick ${i} overlaps tick ${i - 1}: ${JSON.stringify(boxes)}`);
    assert.ok(boxes[boxes.length - 1][1] - boxes[0][0] > 150, `ticks span ${JSON.stringify(boxes)}`);
    assert.equal(await page.isVisible('#legend .lg-range'), false);
    assert.match(await page.textContent('.maplibregl-ctrl-scale') ?? '', /^\d+\s+k?m$/);
    // Zoomed in until level 0 is drawn: the readout's values are the level-0 pixel's.
    await page.evaluate((c) => window.__chronozarrMap.map.jumpTo({ center: c, zoom: 16 }), where[0]);
    await page.waitForFunction(() => window.__chronozarrMap.layer.lod === 0);
    await ready();
    /** @type {string[]} */
    const requests = [];
    page.on('request', (r) => requests.push(r.url()));
    for (const [i, p] of exp.pixels.entries()) {
      const s = await page.evaluate((ll) => window.__chronozarrMap.map.project(ll), where[i]);
      await page.mouse.move(s.x, s.y);
      await page.waitForFunction(([x, y]) => /** @type {HTMLElement} */ (document.getElementById('cursor')).dataset.col === String(x) && /** @type {HTMLElement} */ (document.getElementById('cursor')).dataset.row === String(y), [p.x, p.y]);
      assert.deepEqual((await page.evaluate(() => /** @type {HTMLElement} */ (document.getElementById('cursor')).dataset.stored ?? '')).split(',').map(Number), p.stored);
    }
    // The demo prefetches other dates in the background; nothing of the date on the map is read again.
    assert.deepEqual(requests.filter((u) => /\/c\/6\//.test(u)), []);
    // A single band: the legend has the stretch controls, and they set the layer's range.
    await page.selectOption('#product', 'band');
    await page.waitForSelector('#legend .lg-range:not([hidden])');
    await page.fill('#legend .lg-range input[data-end="0"]', '0.05');
    await page.fill('#legend .lg-range input[data-end="1"]', '0.2');
    await page.dispatchEvent('#legend .lg-range input[data-end="1"]', 'change');
    await page.waitForFunction(() => window.__chronozarrMap.layer.look?.range?.join() === '0.05,0.2');
    await page.close();
  });

  test('no console errors', () => {
    assert.deepEqual(consoleErrors, []);
  });
});
