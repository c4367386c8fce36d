// @ts-check
// Open a viewer URL in Debian's Chromium and report what a person would see: whether the store
// opened and drew, its title, the values a click at one level-0 pixel reports, and every console error.
// Used by the Python tests of installed packages (tests/packaging/), which start the server.
// Usage: node e2e/page-check.mjs URL [X Y]   prints one JSON line; exit status 1 when the page failed.
import { chromium } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
const BACKGROUND = [9, 12, 18];

const [url, x, y] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
/** @type {string[]} */
const errors = [];
/** @type {{ url: string, errors: string[], error?: string | null, title?: string, drawn?: { on: number, drawn: number }, click?: unknown }} */
const report = { url, errors };
try {
  const page = await browser.newPage({ viewport: { width: 640, height: 480 } });
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(e.message));
  // A request the viewer aborts (a prefetch it no longer needs) is not a failure.
  page.on('requestfailed', (r) => r.failure()?.errorText !== 'net::ERR_ABORTED' && errors.push(`request failed: ${r.url()}: ${r.failure()?.errorText}`));
  await page.goto(url);
  await page.waitForFunction(() => window.__chronozarrViewer?.ready || window.__chronozarrViewer?.error, null, { timeout: 30_000 });
  report.error = await page.evaluate(() => window.__chronozarrViewer.error ?? null);
  report.title = await page.title();
  if (!report.error) {
    await page.waitForFunction(() => {
      const s = window.__chronozarrViewer.api.state();
      return s.settled && s.pending === 0;
    }, null, { timeout: 30_000 });
    // Level-0 pixels on a grid over the store's footprint, where it is on screen: how many of
    // them are drawn (not the background colour).
    report.drawn = await page.evaluate((bg) => {
      const api = window.__chronozarrViewer.api;
      const { height: h, width: w } = api.store.levels[0];
      const canvas = /** @type {HTMLElement} */ (document.querySelector('canvas')).getBoundingClientRect();
      let on = 0;
      let drawn = 0;
      for (let y = 0; y < h; y += Math.max(1, Math.floor(h / 16))) for (let x = 0; x < w; x += Math.max(1, Math.floor(w / 16))) {
        const s = api.screenOf(x + 0.5, y + 0.5);
        if (s.px < 1 || s.py < 1 || s.px > canvas.width - 1 || s.py > canvas.height - 1) continue;
        on++;
        const c = api.pixel(s.px, s.py);
        if (c[0] !== bg[0] || c[1] !== bg[1] || c[2] !== bg[2]) drawn++;
      }
      return { on, drawn };
    }, BACKGROUND);
    if (x !== undefined) {
      report.click = await page.evaluate(([x, y]) => {
        const api = window.__chronozarrViewer.api;
        const s = api.screenOf(x + 0.5, y + 0.5);
        return api.click(s.px, s.py);
      }, [Number(x), Number(y)]);
    }
  }
} catch (err) {
  report.error = String(err);
} finally {
  await browser.close();
}
console.log(JSON.stringify(report));
process.exit(report.error || errors.length ? 1 : 0);
