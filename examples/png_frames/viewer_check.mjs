// The PNG-frame store in the viewer, headless: `chronozarr view STORE` serves it, Debian Chromium
// (software WebGL) opens it at level 0 and this script checks what a user would look at. True color
// is the active product and the only colour product on (the frames have no near-infrared band);
// each asked pixel, clicked, reads back its stored red, green and blue, and is drawn in exactly
// those colours, or in the background colour where the frame's alpha masked it. Prints one JSON
// object (what was read) and then `ok`; exits 1 naming the first check that failed.
//
//   node examples/png_frames/viewer_check.mjs png-1 --t 1 --pixels 10,10 90,20 100,30
//
// CHRONOZARR_PYTHON names the Python that has chronozarr (default python3); playwright-core comes
// from js/node_modules (`make test` installs it).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--no-first-run'];
const BACKGROUND = [9, 12, 18]; // the viewer's canvas where nothing is drawn
const COLOUR = ['true_color'];
const NEEDS_NIR = ['false_color', 'ndvi', 'ndwi', 'water'];

/** @param {string[]} argv */
function parse(argv) {
  const out = { store: '', t: 0, pixels: /** @type {[number, number][]} */ ([]) };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--t') out.t = Number(argv[++i]);
    else if (argv[i] === '--pixels') while (argv[i + 1] && !argv[i + 1].startsWith('--')) out.pixels.push(/** @type {[number, number]} */ (argv[++i].split(',').map(Number)));
    else out.store = argv[i];
  }
  if (!out.store || !out.pixels.length) throw new Error('usage: viewer_check.mjs STORE [--t T] --pixels X,Y [X,Y ...]');
  return out;
}

/** `chronozarr view STORE`: the viewer URL it prints, and the process to stop. @param {string} store */
function serve(store) {
  const python = process.env.CHRONOZARR_PYTHON ?? 'python3';
  const code = "import sys; from chronozarr.cli import main; sys.argv[0] = 'chronozarr'; sys.exit(main())";
  const child = spawn(python, ['-c', code, 'view', store, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((done, fail) => {
    let text = '';
    const read = (/** @type {Buffer} */ d) => {
      text += d;
      const m = /Viewer: (http\S+)/.exec(text);
      if (m) done({ url: m[1], child });
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('exit', (code) => fail(new Error(`chronozarr view exited ${code}: ${text}`)));
  });
}

/** @param {boolean} ok @param {string} what */
function check(ok, what) {
  if (!ok) throw new Error(`viewer check failed: ${what}`);
}

async function main() {
  const { store, t, pixels } = parse(process.argv.slice(2));
  const { url, child } = await serve(store);
  const playwright = await import(createRequire(join(REPO, 'js', 'package.json')).resolve('playwright-core'));
  const { chromium } = playwright.chromium ? playwright : playwright.default;
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 800, height: 600 } });
    const errors = /** @type {string[]} */ ([]);
    page.on('console', (/** @type {any} */ m) => m.type() === 'error' && errors.push(m.text()));
    page.on('pageerror', (/** @type {Error} */ e) => errors.push(e.message));
    await page.goto(`${url}&t=${t}&z=4`); // 4 CSS px a data pixel: level 0 is what is drawn
    await page.waitForFunction(() => window.__chronozarrViewer?.ready || window.__chronozarrViewer?.error, null, { timeout: 30_000 });
    await page.waitForFunction(() => { const s = window.__chronozarrViewer.api.state(); return s.settled && s.pending === 0; }, null, { timeout: 30_000 });
    const state = await page.evaluate(() => window.__chronozarrViewer.api.state());
    const products = Object.fromEntries(await page.$$eval('#product-buttons button', (bs) => bs.map((b) => [b.dataset.product, !b.disabled])));
    check(state.product === 'true_color', `the active product is ${state.product}, not true_color`);
    check(COLOUR.every((p) => products[p]) && NEEDS_NIR.every((p) => products[p] === false), `products on: ${JSON.stringify(products)}`);
    check(state.lod === 0 && state.shownT === t, `level ${state.lod} at timestep ${state.shownT} is drawn, not level 0 at ${t}`);
    const read = [];
    for (const [x, y] of pixels) {
      const got = await page.evaluate(([x, y]) => {
        const api = window.__chronozarrViewer.api;
        const s = api.screenOf(x + 0.5, y + 0.5);
        // the drawn colour first: a click opens the inspector, which may cover the canvas
        const drawn = [...api.pixel(s.px, s.py)];
        const click = api.click(s.px, s.py);
        return { drawn, click: click && { pixel: click.pixel, t: click.t, level: click.level, valid: click.valid, stored: click.stored } };
      }, [x, y]);
      check(got.click != null, `pixel ${x},${y} is not on the raster`);
      const { click, drawn } = got;
      check(click.pixel.x === x && click.pixel.y === y && click.t === t && click.level === 0, `the click at ${x},${y} read ${JSON.stringify(click)}`);
      const want = click.valid ? click.stored : BACKGROUND;
      check(drawn.slice(0, 3).every((c, i) => Math.abs(c - want[i]) <= 1), `pixel ${x},${y} is drawn ${drawn}, not ${want}`);
      read.push({ x, y, valid: click.valid, stored: click.stored, drawn: drawn.slice(0, 3) });
    }
    check(errors.length === 0, `console errors: ${errors.join('; ')}`);
    console.log(JSON.stringify({ url, t, products, pixels: read }));
    console.log('ok');
  } finally {
    await browser.close();
    child.kill();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
