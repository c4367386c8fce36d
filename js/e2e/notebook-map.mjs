// @ts-check
// A notebook map widget's front end (leafmap's or geemap's maplibregl.Map after add_chronozarr) run
// in Debian's Chromium the way anywidget runs it: its module from a blob: URL, rendered with a model
// that holds the widget's state and hands over the queued calls once the map reports `_rendered`.
// Reports the messages the front end sent to Python, whether the store was drawn, and console errors.
// Usage: node e2e/notebook-map.mjs WIDGET.json   (esm, map_options, height, calls, queue, background, name)
// prints one JSON line; exit status 1 when the page failed.
import { readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';

const ARGS = ['--headless', '--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--disable-background-networking', '--no-first-run'];
const widget = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ARGS });
/** @type {string[]} */
const errors = [];
/** @type {Record<string, unknown>} */
const report = { errors };

/** Messages sent so far. @param {import('playwright-core').Page} page @returns {Promise<any[]>} */
const sent = (page) => page.evaluate(() => /** @type {any} */ (window).sent);
/**
 * Wait for a message with this event (and t, unless null), after `from` messages.
 * @param {import('playwright-core').Page} page @param {string} event @param {number | null} t
 */
const waitFor = (page, event, t, from = 0) => page.waitForFunction(
  ({ event, t, from }) => /** @type {any[]} */ (/** @type {any} */ (window).sent).slice(from).some((m) => m.event === event && (t === null || m.t === t)),
  { event, t, from }, { timeout: 60_000 },
);

/** Share of sampled map pixels (a 20 x 20 grid over the middle half) that are not the background. @param {import('playwright-core').Page} page */
async function drawnShare(page) {
  const png = (await page.locator('#root canvas').first().screenshot()).toString('base64');
  return page.evaluate(async ([png, bg]) => {
    const img = new Image();
    img.src = `data:image/png;base64,${png}`;
    await img.decode();
    const c = document.createElement('canvas');
    [c.width, c.height] = [img.width, img.height];
    const ctx = /** @type {CanvasRenderingContext2D} */ (c.getContext('2d'));
    ctx.drawImage(img, 0, 0);
    let drawn = 0;
    for (let i = 0; i < 20; i++) for (let j = 0; j < 20; j++) {
      const [r, g, b] = ctx.getImageData(Math.round(c.width * (0.25 + i / 40)), Math.round(c.height * (0.25 + j / 40)), 1, 1).data;
      if (Math.abs(r - bg[0]) + Math.abs(g - bg[1]) + Math.abs(b - bg[2]) > 6) drawn++;
    }
    return drawn / 400;
  }, /** @type {[string, number[]]} */ ([png, widget.background]));
}

try {
  const page = await browser.newPage({ viewport: { width: 800, height: 700 } });
  page.on('console', (m) => (m.type() === 'error' ? errors.push(m.text()) : process.env.DEBUG && console.error(m.text())));
  page.on('pageerror', (e) => errors.push(e.message));
  await page.setContent('<div id="root" style="width: 800px"></div>');
  await page.evaluate(async (w) => {
    const win = /** @type {any} */ (window);
    /** @type {Record<string, Function[]>} */
    const listeners = {};
    win.sent = [];
    /** @type {Record<string, any>} */
    const state = { map_options: w.map_options, calls: w.calls, height: w.height, _rendered: false };
    const custom = (/** @type {any} */ msg) => (listeners['msg:custom'] ?? []).forEach((fn) => fn(msg));
    const model = {
      get: (/** @type {string} */ k) => state[k],
      set(/** @type {string} */ k, /** @type {any} */ v) {
        state[k] = v;
        if (k === '_rendered' && v) setTimeout(() => custom({ msg: 'init', calls: w.queue })); // what MapWidget._on_rendered sends
      },
      save_changes() {},
      on: (/** @type {string} */ ev, /** @type {Function} */ fn) => (listeners[ev] ??= []).push(fn),
      off() {},
      send: (/** @type {any} */ m) => win.sent.push(m),
    };
    win.pushCalls = (/** @type {any[]} */ calls) => custom({ msg: 'custom call', calls });
    const module = await import(URL.createObjectURL(new Blob([w.esm], { type: 'text/javascript' })));
    await module.default.render({ model, el: document.getElementById('root') });
  }, widget);
  await waitFor(page, 'ready', 0);
  report.open = (await sent(page)).find((m) => m.event === 'open') ?? null;
  report.drawn = await drawnShare(page);
  report.slider = await page.locator('.chronozarr-time span').textContent();
  // the slider, as a person drags it
  let from = (await sent(page)).length;
  await page.locator('.chronozarr-time input').evaluate((input) => {
    /** @type {HTMLInputElement} */ (input).value = '2';
    input.dispatchEvent(new Event('input'));
  });
  await waitFor(page, 'ready', 2, from);
  report.afterSlider = { label: await page.locator('.chronozarr-time span').textContent(), drawn: await drawnShare(page) };
  // Python's set_time: the call MapLayer.set_time queues
  from = (await sent(page)).length;
  await page.evaluate((name) => /** @type {any} */ (window).pushCalls([['chronozarr', [name, 'setTime', 1]]]), widget.name);
  await waitFor(page, 'time', 1, from);
  from = (await sent(page)).length;
  await page.evaluate((name) => /** @type {any} */ (window).pushCalls([['chronozarr', [name, 'explode']]]), widget.name);
  await waitFor(page, 'error', null, from);
  report.sent = await sent(page);
} catch (err) {
  report.error = String(err);
  report.sent = await browser.contexts()[0]?.pages()[0]?.evaluate(() => /** @type {any} */ (window).sent).catch(() => null);
} finally {
  await browser.close();
}
console.log(JSON.stringify(report));
process.exit(report.error ? 1 : 0);
