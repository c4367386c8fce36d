// @ts-check
// The first seconds of a link (issue 24), in Debian's Chromium on a throttled network (CDP): the
// chunks of the frame asked for go out before any of another timestep, a coarse picture is on
// screen before the complete frame, the loading indicator shows and then goes away, a scrub while
// the first frame loads moves the new timestep ahead of the old one's read-ahead, the WebGL context
// waits for the first reads and is sized once, and a host that is slow or fails some requests still
// ends in the complete frame, with the indicator saying so.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { skip } from './browser-stores.mjs';
import { viewerSuite } from './viewer-page.mjs';

// s2.zarr (make_stores.py): 150 x 200 px in 32 px chunks, star-delta with anchors every 4 dates.

/**
 * A chunk request of the store: its array, level, timestep (null for other objects).
 * @param {string} url
 */
function chunkOf(url) {
  const m = /s2\.zarr\/(\d+)\/(data|mask|coverage)\/c\/(\d+)\//.exec(url);
  return m ? { url, level: Number(m[1]), array: m[2], t: Number(m[3]) } : null;
}

/**
 * In the page, before its scripts: every fetch the page makes, in the order it is made (the
 * order the reader lets requests out, in the page's clock), and whether the loading indicator
 * was ever on screen.
 */
function recordInPage() {
  const w = /** @type {any} */ (window);
  const fetch = w.fetch.bind(w);
  w.__fetches = [];
  w.fetch = (/** @type {RequestInfo | URL} */ input, /** @type {RequestInit | undefined} */ init) => {
    w.__fetches.push({ at: performance.now(), url: String(input instanceof Request ? input.url : input) });
    return fetch(input, init);
  };
  const watch = () => {
    const bar = document.getElementById('loading');
    if (bar && !bar.hidden) w.__sawLoading = true;
    if (!w.__sawLoading) requestAnimationFrame(watch);
  };
  requestAnimationFrame(watch);
}

/**
 * In the page, before its scripts: the canvases' contexts asked for (a 2D one with whether it stays
 * in memory, willReadFrequently) and every size set on a canvas, in the page's clock.
 */
function recordCanvases() {
  const w = /** @type {any} */ (window);
  w.__canvases = [];
  const proto = HTMLCanvasElement.prototype;
  const getContext = proto.getContext;
  /** @type {any} */ (proto).getContext = function (/** @type {string} */ type, /** @type {any} */ settings) {
    w.__canvases.push({ at: performance.now(), what: type, id: this.id, value: type === '2d' ? Boolean(settings?.willReadFrequently) : null });
    return getContext.call(this, type, settings);
  };
  for (const what of ['width', 'height']) {
    const d = /** @type {PropertyDescriptor} */ (Object.getOwnPropertyDescriptor(proto, what));
    Object.defineProperty(proto, what, {
      get: d.get,
      set(/** @type {number} */ value) {
        w.__canvases.push({ at: performance.now(), what, id: this.id, value });
        d.set?.call(this, value);
      },
    });
  }
}

/** The page's fetches so far. @param {import('playwright-core').Page} page @returns {Promise<{ at: number, url: string }[]>} */
const fetches = (page) => page.evaluate(() => /** @type {any} */ (window).__fetches);

/**
 * A viewer page on a throttled network that records its fetches.
 * @param {import('playwright-core').Browser} browser
 * @param {{ mbit: number, rtt: number }} link
 */
async function throttledPage(browser, { mbit, rtt }) {
  const context = await browser.newContext({ viewport: { width: 800, height: 600 } });
  await context.addInitScript(recordInPage);
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: rtt, downloadThroughput: (mbit * 1e6) / 8, uploadThroughput: (mbit * 1e6) / 8 });
  return { context, page };
}

/** @param {import('playwright-core').Page} page */
const complete = (page) => page.waitForFunction(() => window.__chronozarrViewer?.firstCompleteAt != null, null, { timeout: 120_000 });

describe('the first seconds of a link', { skip, timeout: 300_000 }, () => {
  const suite = viewerSuite('first-seconds');
  const url = (/** @type {string} */ query) => `${suite.base}/viewer/?store=${suite.stores}/s2.zarr&z=1&${query}`;

  test('a cold open requests the picture, then every chunk of the frame, before any other timestep; a picture comes first', async () => {
    const { context, page } = await throttledPage(suite.browser, { mbit: 4, rtt: 60 });
    await page.goto(url('t=5'));
    await complete(page);
    const hook = await page.evaluate(() => {
      const h = window.__chronozarrViewer;
      return { first: h.firstFrameAt, complete: h.firstCompleteAt, reads: h.firstCompleteReads, firstLods: h.frames[0].cells.map((c) => c.lod), sawLoading: /** @type {any} */ (window).__sawLoading };
    });
    assert.ok(hook.sawLoading, 'the loading indicator was on screen before the frame was complete');
    const chunks = (await fetches(page)).map((f) => chunkOf(f.url)).filter((c) => c != null);
    // The picture (a coarser level, camera.js pictureLevel) is requested first and is on screen
    // before the complete frame.
    const picture = chunks[0].level;
    assert.ok(picture > 0, 'the first chunk requested is of a coarser level than the frame');
    assert.ok(hook.first != null && hook.complete != null && hook.first < hook.complete, JSON.stringify(hook));
    assert.ok(hook.firstLods.length > 0 && hook.firstLods.every((lod) => lod === picture), `first frame's levels ${hook.firstLods}`);
    // t = 5 is a delta timestep of anchor 4: its frame is residuals at 5 and anchors at 4 (and masks at 5).
    const frameTimes = new Set([4, 5]);
    const frame = chunks.filter((c) => c.level === 0 && frameTimes.has(c.t));
    assert.ok(frame.some((c) => c.t === 4) && frame.some((c) => c.t === 5 && c.array === 'mask'), 'anchors, residuals and masks');
    const lastFrame = chunks.lastIndexOf(frame[frame.length - 1]);
    const firstOther = chunks.findIndex((c) => !frameTimes.has(c.t));
    assert.ok(firstOther < 0 || lastFrame < firstOther, `a chunk of timestep ${chunks[firstOther]?.t} went out before the frame's last`);
    // Before the complete frame: the picture's and the frame's chunks, the root metadata, and no more than 2 others.
    const needed = new Set(chunks.filter((c) => frameTimes.has(c.t) && (c.level === 0 || c.level === picture)).map((c) => c.url));
    const made = hook.reads?.requests ?? Infinity;
    assert.ok(made <= needed.size + 2, `${made} requests before the complete frame, ${needed.size} needed`);
    await page.waitForFunction(() => document.getElementById('loading')?.hidden === true, null, { timeout: 30_000 });
    await context.close();
  });

  test('a cold open makes the WebGL context once its first chunks are asked for, sizes its buffer once, and no 2D canvas on the GPU', async () => {
    // 700 px wide: the bar wraps to two lines once it holds the store's products, so a buffer sized
    // before that is resized after (each a wait on the GPU process, as is a GPU-backed 2D canvas).
    const context = await suite.browser.newContext({ viewport: { width: 700, height: 600 } });
    await context.addInitScript(recordInPage);
    await context.addInitScript(recordCanvases);
    const page = await context.newPage();
    await page.goto(url('t=5'));
    await complete(page);
    const { log, first, size } = await page.evaluate(() => {
      const h = window.__chronozarrViewer;
      const map = /** @type {HTMLCanvasElement} */ (document.getElementById('map'));
      const w = /** @type {any} */ (window);
      return { log: /** @type {{ at: number, what: string, id: string, value: unknown }[]} */ (w.__canvases), first: h.firstCompleteAt ?? Infinity, size: [map.width, map.height, Math.round(map.clientWidth * devicePixelRatio), Math.round(map.clientHeight * devicePixelRatio)] };
    });
    const before = log.filter((e) => e.at <= first);
    const webgl = before.find((e) => e.what === 'webgl2');
    const firstChunk = (await fetches(page)).find((f) => chunkOf(f.url));
    assert.ok(webgl && firstChunk && firstChunk.at < webgl.at, `the context at ${webgl?.at}, the first chunk asked for at ${firstChunk?.at}`);
    const sized = before.filter((e) => e.id === 'map' && (e.what === 'width' || e.what === 'height'));
    assert.deepEqual(sized.map((e) => e.what).sort(), ['height', 'width'], `the map's buffer was set ${JSON.stringify(sized)}`);
    assert.deepEqual(size.slice(0, 2), size.slice(2), 'the buffer fits the canvas');
    const gpu2d = before.filter((e) => e.what === '2d' && !e.value);
    assert.deepEqual(gpu2d, [], 'a 2D canvas made on the GPU before the first complete frame');
    await context.close();
  });

  test('a scrub while the first frame loads puts the new timestep ahead of the old one', async () => {
    const { context, page } = await throttledPage(suite.browser, { mbit: 2, rtt: 60 });
    await page.goto(url('t=5'));
    await page.waitForFunction(() => window.__chronozarrViewer?.ready, null, { timeout: 60_000 });
    const asked = await page.evaluate(() => {
      const at = performance.now();
      window.__chronozarrViewer.api.setT(8); // an anchor: its frame is t = 8 alone
      return at;
    });
    await page.waitForFunction(() => window.__chronozarrViewer.api.state().settled, null, { timeout: 90_000 });
    const level0 = (await fetches(page)).filter((f) => f.at >= asked).map((f) => chunkOf(f.url)).filter((c) => c != null && c.level === 0);
    const firstOther = level0.findIndex((c) => c?.t !== 8);
    const first = level0.slice(0, firstOther < 0 ? level0.length : firstOther).map((c) => c?.url);
    const frame = new Set(level0.filter((c) => c?.t === 8 && c.array === 'data').map((c) => c?.url));
    assert.ok(frame.size > 0, 'the new frame was requested');
    for (const url of frame) assert.ok(first.includes(url), `after the scrub, level-0 chunks went out at ${level0.map((c) => c?.t).join(',')}`);
    await context.close();
  });

  test('a host that is slow or fails some requests still ends in the complete frame, and the indicator says so', async () => {
    const context = await suite.browser.newContext({ viewport: { width: 800, height: 600 } });
    const page = await context.newPage();
    /** @type {Map<string, number>} */
    const tries = new Map();
    // One cell fails its first 4 tries (the reader's attempt and its 3 retries), another answers late.
    await page.route('**/s2.zarr/0/data/c/8/0/1/1', async (route) => {
      const n = (tries.get('fail') ?? 0) + 1;
      tries.set('fail', n);
      if (n <= 4) await route.fulfill({ status: 503, body: 'busy' });
      else await route.continue();
    });
    await page.route('**/s2.zarr/0/data/c/8/0/2/2', async (route) => {
      await new Promise((r) => setTimeout(r, 1500));
      await route.continue();
    });
    await page.goto(url('t=8'));
    await page.waitForFunction(() => document.getElementById('loading')?.classList.contains('failed'), null, { timeout: 30_000 });
    const said = await page.evaluate(() => document.getElementById('loading')?.getAttribute('aria-valuetext'));
    assert.match(said ?? '', /could not be loaded/);
    await page.waitForFunction(() => window.__chronozarrViewer.api.state().settled, null, { timeout: 60_000 });
    assert.ok((tries.get('fail') ?? 0) >= 5, 'the failed cell was asked for again');
    await page.waitForFunction(() => document.getElementById('loading')?.hidden === true, null, { timeout: 10_000 });
    await context.close();
  });
});
