// @ts-check
// The screenshots of docs/viewer.md, made from the demo store in Debian Chromium:
//   cd js && node e2e/docs-screenshots.mjs        (writes docs/images/viewer-*.png, maplibre-demo.png)
// Not a test: it regenerates the pictures after a change to the viewer's look.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PY, jsDir, repo, run } from './browser-stores.mjs';
import { clickPixel } from './viewer-page.mjs';

const OUT = join(repo, 'docs', 'images');
const ARGS = ['--headless', '--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'];

/**
 * `chronozarr serve DIR` on a free port; resolves with its base URL and the process.
 * @param {string} dir
 * @returns {Promise<{ base: string, server: import('node:child_process').ChildProcess }>}
 */
function serve(dir) {
  const server = spawn(join(repo, '.venv', 'bin', 'chronozarr'), ['serve', dir, '--port', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let text = '';
    server.stderr.on('data', (d) => {
      text += d;
      const m = /at (http:\/\/127\.0\.0\.1:\d+)\//.exec(text);
      if (m) resolve({ base: m[1], server });
    });
    server.on('exit', (code) => reject(new Error(`server exited ${code}: ${text}`)));
  });
}

const tmp = mkdtempSync(join(tmpdir(), 'cz-shots-'));
const servers = [];
let browser;
try {
  await run(PY, ['-m', 'chronozarr.demo', tmp], { cwd: repo });
  const js = await serve(jsDir);
  const data = await serve(tmp);
  servers.push(js.server, data.server);
  const store = `${data.base}/demo.zarr`;
  const { chromium } = await import('playwright-core');
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ARGS });
  const context = await browser.newContext({ viewport: { width: 1000, height: 620 }, acceptDownloads: true });

  /** A viewer page once its view has settled. @param {string} query */
  async function viewer(query) {
    const page = await context.newPage();
    await page.goto(`${js.base}/viewer/?store=${store}&${query}`);
    await page.waitForFunction(() => window.__chronozarrViewer?.ready, null, { timeout: 60_000 });
    await settle(page);
    return page;
  }
  const settle = (/** @type {import('./viewer-page.mjs').Page} */ page) => page.waitForFunction(() => {
    const { api } = window.__chronozarrViewer;
    const c = api.compare.scene;
    return api.state().settled && api.state().pending === 0 && (!c || c.settled);
  }, null, { timeout: 60_000 }).then(() => page.waitForTimeout(400));
  const shot = (/** @type {import('./viewer-page.mjs').Page} */ page, /** @type {string} */ name) => page.screenshot({ path: join(OUT, name) });
  /** Move the mouse over level-0 position (x, y). @param {import('./viewer-page.mjs').Page} page @param {number} x @param {number} y */
  const mouseAt = async (page, x, y) => {
    const s = await page.evaluate(([x, y]) => {
      const box = /** @type {HTMLElement} */ (document.getElementById('map')).getBoundingClientRect();
      const c = window.__chronozarrViewer.api.screenOf(x, y);
      return { x: box.left + c.px, y: box.top + c.py };
    }, [x, y]);
    await page.mouse.move(s.x, s.y);
    await page.waitForTimeout(300);
  };
  const click = clickPixel;

  let page = await viewer('t=40&p=true_color');
  await mouseAt(page, 430, 300);
  await shot(page, 'viewer-overview.png');
  await page.close();

  page = await viewer('t=40&p=ndvi');
  await shot(page, 'viewer-legend-ndvi.png');
  await page.close();

  page = await viewer('t=40&p=band&b=B08');
  await shot(page, 'viewer-legend-band.png');
  await page.close();

  page = await viewer('t=60&p=ndvi');
  await click(page, 300, 330);
  await click(page, 470, 290, true);
  await click(page, 640, 420, true);
  await page.waitForTimeout(2500);
  await shot(page, 'viewer-history.png');
  await page.close();

  page = await viewer('t=0&compare=119&split=0.45&p=false_color');
  await shot(page, 'viewer-compare.png');
  await page.keyboard.press('v');
  await page.selectOption('.video-from', '0');
  await page.selectOption('.video-to', '23');
  await shot(page, 'viewer-video.png');
  await page.keyboard.press('Escape');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export')]);
  await download.saveAs(join(OUT, 'viewer-export.png'));
  await page.keyboard.press('?');
  await shot(page, 'viewer-shortcuts.png');
  await page.close();

  page = await context.newPage();
  await page.setViewportSize({ width: 640, height: 420 });
  await page.goto(`${js.base}/viewer/?store=${store}&t=80&p=ndwi&embed=1`);
  await page.waitForFunction(() => window.__chronozarrViewer?.ready, null, { timeout: 60_000 });
  await settle(page);
  await shot(page, 'viewer-embed.png');
  await page.close();

  page = await context.newPage();
  await page.goto(`${js.base}/maplibre/?store=${encodeURIComponent(store)}&t=40&product=ndvi`);
  await page.waitForFunction(() => window.__chronozarrMap?.layer.stats?.settled && /** @type {HTMLElement} */ (document.getElementById('status')).textContent === '', null, { timeout: 60_000 });
  await page.waitForTimeout(1500);
  await page.mouse.move(520, 330);
  await page.waitForTimeout(300);
  await shot(page, 'maplibre-demo.png');
  await page.close();
} finally {
  await browser?.close();
  for (const s of servers) s.kill();
  rmSync(tmp, { recursive: true, force: true });
}
