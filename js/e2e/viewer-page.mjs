// What the viewer's browser tests share: a page on the viewer with its console errors collected,
// waiting for the view to settle, and the colour drawn at a level-0 pixel.

/**
 * @param {import('playwright-core').Browser} browser
 * @param {string} base http://127.0.0.1:PORT serving js/
 * @param {string[]} consoleErrors where a page's console errors go (unless allowErrors)
 */
export function viewerPages(browser, base, consoleErrors) {
  function watch(page, allowErrors = false) {
    if (allowErrors) return;
    page.on('console', (m) => m.type() === 'error' && consoleErrors.push(`${page.url()}: ${m.text()}`));
    page.on('pageerror', (e) => consoleErrors.push(`${page.url()}: ${e.message}`));
  }
  /** A page on the viewer with `query`, once it is ready (or failed). */
  async function openViewer(query, { width = 800, height = 600, allowErrors = false, downloads = false } = {}) {
    const context = downloads ? await browser.newContext({ viewport: { width, height }, acceptDownloads: true }) : null;
    const page = context ? await context.newPage() : await browser.newPage({ viewport: { width, height } });
    watch(page, allowErrors);
    await page.goto(`${base}/viewer/?${query}`);
    await page.waitForFunction(() => window.__chronozarrViewer?.ready || window.__chronozarrViewer?.error, null, { timeout: 20_000 });
    return page;
  }
  return { watch, openViewer };
}

/** Every visible cell of the asked level drawn at the asked timestep, nothing loading. */
export const settled = (page) => page.waitForFunction(() => {
  const s = window.__chronozarrViewer.api.state();
  return s.settled && s.pending === 0;
}, null, { timeout: 20_000 });

/** RGBA on the canvas at the centre of level-0 pixel (x, y). */
export const colourAt = (page, x, y) => page.evaluate(([x, y]) => {
  const api = window.__chronozarrViewer.api;
  const p = api.screenOf(x + 0.5, y + 0.5);
  return api.pixel(p.px, p.py);
}, [x, y]);

/** The text of a download the action starts. */
export async function downloadOf(page, action) {
  const [download] = await Promise.all([page.waitForEvent('download', { timeout: 120_000 }), action()]);
  return download;
}
