// @ts-check
// Open a water store in the viewer (headless Debian Chromium, software WebGL) and check what a user
// sees: only the single-band product is offered, with the bands ndwi and water; a click on a water
// and a land pixel at level 0 and on a pixel of level 1 shows, in the inspector, the stored values
// that check_water_stack.py --picks read with zarr-python. Run from js/ (playwright-core is there):
//
//   cd js && node ../examples/water_masks/viewer_check.mjs STORE PICKS_JSON
//
// `chronozarr serve` (from PATH, or $CHRONOZARR) serves the store's folder and the viewer. Prints
// one line per check and exits 1 on the first mismatch.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--disable-background-networking', '--disable-component-update', '--no-first-run'];

/** @param {boolean} ok @param {string} what */
function expect(ok, what) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) throw Object.assign(new Error(what), { printed: true });
}

/** `chronozarr serve DIR --port 0`, resolved with its base URL. @param {string} dir */
function serve(dir) {
  const child = spawn(process.env.CHRONOZARR ?? 'chronozarr', ['serve', dir, '--port', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((done, fail) => {
    let text = '';
    child.stderr.on('data', (d) => {
      text += d;
      const m = /(http:\/\/127\.0\.0\.1:\d+)\//.exec(text);
      if (m) done({ child, base: m[1] });
    });
    child.on('exit', (code) => fail(new Error(`chronozarr serve exited ${code}: ${text}`)));
  });
}

/** The inspector's rows as [band, value text, stored text]. @param {import('playwright-core').Page} page */
const rows = (page) => page.$$eval('.insp-values tbody tr', (trs) => trs.map((tr) => [...tr.children].map((c) => (c.textContent ?? '').trim())));

/**
 * Click a pixel (of its level) and compare what the click and the inspector say with `pick`.
 * @param {import('playwright-core').Page} page
 * @param {string} name
 * @param {{ lod: number, x: number, y: number, stored: number[] }} pick
 * @param {string[]} bands
 */
async function clickAndRead(page, name, pick, bands) {
  const s = 2 ** pick.lod;
  const click = await page.evaluate(([x, y]) => {
    const api = window.__chronozarrViewer.api;
    const p = api.screenOf(x, y);
    return api.click(p.px, p.py);
  }, [(pick.x + 0.5) * s, (pick.y + 0.5) * s]);
  expect(click && click.level === pick.lod, `${name}: the click lands on level ${pick.lod} (got ${click?.level})`);
  expect(JSON.stringify(click.stored) === JSON.stringify(pick.stored), `${name} pixel ${pick.x}, ${pick.y}: stored ${JSON.stringify(click.stored)}, expected ${JSON.stringify(pick.stored)}`);
  await page.waitForFunction((lod) => document.querySelector('.insp-level')?.getAttribute('data-level') === String(lod), pick.lod);
  const shown = await rows(page);
  const level = await page.textContent('.insp-level');
  expect(shown.length === bands.length && shown.every((r, i) => r[0] === bands[i] && Number(r[2]) === pick.stored[i]),
    `${name}: the inspector (${level}) shows ${shown.map((r) => `${r[0]} ${r[1]} (stored ${r[2]})`).join(', ')}`);
  const water = shown.find((r) => r[0] === 'water');
  expect(!!water && water[1].endsWith('fraction') && Math.abs(parseFloat(water[1]) - pick.stored[1] / 10000) < 5e-4, `${name}: water reads ${water?.[1]}`);
}

async function main() {
  const [storeArg, picksArg] = process.argv.slice(2);
  if (!storeArg || !picksArg) throw new Error('usage: node viewer_check.mjs STORE PICKS_JSON');
  const store = resolve(storeArg);
  const picks = JSON.parse(readFileSync(picksArg, 'utf8'));
  const { chromium } = createRequire(join(process.cwd(), 'package.json'))('playwright-core');
  const { child, base } = /** @type {{ child: import('node:child_process').ChildProcess, base: string }} */ (await serve(dirname(store)));
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  const errors = /** @type {string[]} */ ([]);
  try {
    const open = async (/** @type {string} */ query, width = 800, height = 600, css = '') => {
      const page = await browser.newPage({ viewport: { width, height } });
      if (css) await page.addInitScript((text) => document.addEventListener('DOMContentLoaded', () => document.head.append(Object.assign(document.createElement('style'), { textContent: text }))), css);
      page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`${base}/viewer/?store=${base}/${basename(store)}/&t=${picks.t}&b=water&${query}`);
      await page.waitForFunction(() => window.__chronozarrViewer?.ready || window.__chronozarrViewer?.error, null, { timeout: 30_000 });
      await page.waitForFunction(() => { const s = window.__chronozarrViewer.api.state(); return s.settled && s.pending === 0; }, null, { timeout: 30_000 });
      return page;
    };
    const page = await open('z=4');
    const enabled = await page.$$eval('#product-buttons button', (bs) => bs.filter((b) => !(/** @type {HTMLButtonElement} */ (b).disabled)).map((b) => /** @type {HTMLElement} */ (b).dataset.product));
    expect(JSON.stringify(enabled) === '["band"]', `products enabled: ${enabled.join(', ')}`);
    const options = await page.$$eval('#band-select option', (os) => os.map((o) => (o.textContent ?? '').trim()));
    expect(JSON.stringify(options) === JSON.stringify(picks.bands), `band selector offers ${options.join(', ')}`);
    await clickAndRead(page, 'water', picks.pixels.water, picks.bands);
    await clickAndRead(page, 'land', picks.pixels.land, picks.bands);
    let coarse = page;
    let zoom = 1;
    let lod = 0;
    // The viewer zooms out to half the fit at most, and its map is at least 320 x 200 px: a store
    // of 128 x 96 px never shows its level 1 there. A map 80 px high (the minimum lifted) does.
    const low = '.cz-viewer .stage { min-height: 0 !important; height: 80px !important }';
    while (lod < picks.pixels.coarse.lod && zoom > 1 / 64) {
      zoom /= 2;
      await coarse.close();
      coarse = await open(`z=${zoom}`, 800, 600, low);
      lod = await coarse.evaluate(() => window.__chronozarrViewer.api.state().lod);
    }
    expect(lod === picks.pixels.coarse.lod, `at zoom ${zoom} the viewer draws level ${lod}`);
    await clickAndRead(coarse, 'coarse', picks.pixels.coarse, picks.bands);
    expect(errors.length === 0, `no console errors${errors.length ? `: ${errors.join('; ')}` : ''}`);
  } finally {
    await browser.close();
    child.kill();
  }
}

main().then(() => console.log('ok'), (err) => {
  if (!err.printed) console.error(err.message);
  process.exit(1);
});
