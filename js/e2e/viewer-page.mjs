// @ts-check
// What the viewer's browser tests share: a page on the viewer with its console errors collected,
// waiting for the view to settle, and the colour drawn at a level-0 pixel.
import { createRequire } from 'node:module';
import { after, before } from 'node:test';
import { startBrowserStores } from './browser-stores.mjs';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/**
 * @param {import('playwright-core').Browser} browser
 * @param {string} base http://127.0.0.1:PORT serving js/
 * @param {string[]} consoleErrors where a page's console errors go (unless allowErrors)
 */
export function viewerPages(browser, base, consoleErrors) {
  /** Collect the page's console errors and uncaught exceptions, unless `allowErrors`. @param {Page} page */
  function watch(page, allowErrors = false) {
    if (allowErrors) return;
    page.on('console', (m) => m.type() === 'error' && consoleErrors.push(`${page.url()}: ${m.text()}`));
    page.on('pageerror', (e) => consoleErrors.push(`${page.url()}: ${e.message}`));
  }
  /**
   * A page on the viewer with `query`, once it is ready (or failed); `onPage` sees the page before
   * it loads (to log every request from the first).
   * @param {string} query
   * @param {{ width?: number, height?: number, allowErrors?: boolean, downloads?: boolean, onPage?: (page: Page) => void }} [o]
   */
  async function openViewer(query, { width = 800, height = 600, allowErrors = false, downloads = false, onPage = undefined } = {}) {
    const context = downloads ? await browser.newContext({ viewport: { width, height }, acceptDownloads: true }) : null;
    const page = context ? await context.newPage() : await browser.newPage({ viewport: { width, height } });
    watch(page, allowErrors);
    onPage?.(page);
    await page.goto(`${base}/viewer/?${query}`);
    await page.waitForFunction(() => window.__chronozarrViewer?.ready || window.__chronozarrViewer?.error, null, { timeout: 20_000 });
    return page;
  }
  return { watch, openViewer };
}

/** @typedef {import('playwright-core').Page} Page */

/** Every visible cell of the asked level drawn at the asked timestep, nothing loading. @param {Page} page */
export const settled = (page) => page.waitForFunction(() => {
  const s = window.__chronozarrViewer.api.state();
  return s.settled && s.pending === 0;
}, null, { timeout: 20_000 });

/**
 * The viewer's warm-up of the history's shard indexes under the view is done (it starts after the
 * first complete frame; a store without the history array has none). @param {Page} page
 */
export const historyWarmed = (page) => page.waitForFunction(() => {
  const h = window.__chronozarrViewer;
  return !h.api.store.hasHistory || h.historyWarm?.state === 'done';
}, null, { timeout: 60_000 });

/** Nothing read, queued or read ahead: the network is quiet. @param {Page} page */
export const quiet = (page) => page.waitForFunction(() => {
  const stats = window.__chronozarrViewer.api.store.stats();
  return stats.inFlight === 0 && stats.queued === 0 && !stats.prefetching;
}, null, { timeout: 60_000 });

/** RGBA on the canvas at the centre of level-0 pixel (x, y). @param {Page} page @param {number} x @param {number} y */
export const colourAt = (page, x, y) => page.evaluate(([x, y]) => {
  const api = window.__chronozarrViewer.api;
  const p = api.screenOf(x + 0.5, y + 0.5);
  return api.pixel(p.px, p.py);
}, [x, y]);

/**
 * Click level-0 pixel (x, y) through the viewer's hook, as a click on its centre; returns what the
 * click reported (null off the raster).
 * @param {Page} page @param {number} x @param {number} y
 */
export const clickPixel = (page, x, y, shift = false) => page.evaluate(([x, y, shift]) => {
  const api = window.__chronozarrViewer.api;
  const s = api.screenOf(x + 0.5, y + 0.5);
  return api.click(s.px, s.py, { shift });
}, /** @type {[number, number, boolean]} */ ([x, y, shift]));

/** The download the action starts. @param {Page} page @param {() => Promise<unknown>} action */
export async function downloadOf(page, action) {
  const [download] = await Promise.all([page.waitForEvent('download', { timeout: 120_000 }), action()]);
  return download;
}

/**
 * The stores, server and browser of a describe block (browser-stores.mjs), started before its tests
 * and closed after them; the fields are there once the tests run.
 * @param {string} prefix
 */
export function viewerSuite(prefix) {
  /** @type {Awaited<ReturnType<typeof startBrowserStores>> & { consoleErrors: string[], other: string, pages: ReturnType<typeof viewerPages> }} */
  const suite = /** @type {any} */ ({ consoleErrors: [] });
  before(async () => {
    const s = await startBrowserStores(prefix);
    Object.assign(suite, s, { other: s.base.replace('127.0.0.1', 'localhost'), pages: viewerPages(s.browser, s.base, suite.consoleErrors) });
  });
  after(() => suite.close?.());
  return suite;
}

/** Serious and critical axe-core violations of the page as it is now, one line each. @param {Page} page */
export async function axeViolations(page) {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: AXE });
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}
