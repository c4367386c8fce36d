// @ts-check
// The MapLibre layer draws every texel where pyproj puts it: on a UTM store (e2e/placement_stores.py)
// whose neighbouring texels differ at every level, the outline and the interior texel boundaries
// of levels 0 to 3, with bearing and pitch, measured on the canvas (maplibre/verify/align.js)
// against the pyproj positions (maplibre/verify/truth.py) projected with map.project; and the
// colours of 20 texel/product pairs equal in 8 bits to the viewer's.
// Run: cd js && node --test e2e/maplibre-placement.test.mjs
// With PLACEMENT_RESULTS=file.json the measured rows are written there; maplibre/verify/table.js
// turns them into the table of maplibre/README.md.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PY, jsDir, lonLats, run, skip, startBrowserStores } from './browser-stores.mjs';
import { colourAt, settled } from './viewer-page.mjs';

const W = 800;
const H = 600;
const BG_CSS = 'rgb(16, 32, 48)';
/** CSS px per texel of the level drawn: boundaries stand apart, a scan across one sees only it. */
const TEXEL_PX = 6;
/** With texels of TEXEL_PX, floor(log2(1 / p) + 3) is the level they belong to (view.js's rule). */
const LOD_BIAS = 3;
/** Texels of the level on each side of the view's centre that truth.py lists the edges of. */
const RADIUS = 45;
const ORIENTATIONS = [{ bearing: 0, pitch: 0 }, { bearing: 30, pitch: 0 }, { bearing: -50, pitch: 40 }];
/**
 * How far a measured boundary may be from pyproj's: 0.5 px, the limit of pixel-centre sampling,
 * plus 0.002 px: the 0.001 px by which the shader lets neighbouring cells overlap (shaders.js) and
 * float32 rounding in the shader and in map.project. The GPU's snapping of vertices to its
 * sub-pixel grid (1/16 px on SwiftShader) does not count: the fragment shader undoes it.
 */
const LIMIT = 0.5 + 2e-3;

/** @typedef {{ a: [number, number], b: [number, number] }} Edge */
/** @typedef {{ width: number, height: number, outline: [number, number][], texel_mercator: number, views: { level: number, x: number, y: number, edges: Edge[], box: [number, number][] }[] }} Truth */

/** The level-0 pixel a view of `level` is centred on: near the store's north-west corner, so the outline shows. @param {number} level */
const centreOf = (level) => [Math.min(40 * 2 ** level, 192), Math.min(30 * 2 ** level, 160)];

describe('MapLibre layer placement against pyproj', { skip, timeout: 300_000 }, () => {
  /** @type {Awaited<ReturnType<typeof startBrowserStores>>} */
  let s;
  /** @type {Truth} */
  let truth;
  /** @type {string} */
  let url;
  /** @type {string[]} */
  const consoleErrors = [];

  before(async () => {
    s = await startBrowserStores('maplibre-placement', { script: 'placement_stores.py' });
    url = `${s.stores}/utm.zarr`;
    const specs = [0, 1, 2, 3].map((l) => `${l}:${centreOf(l).join(':')}:${RADIUS}`);
    const { stdout } = await run(PY, [join(jsDir, 'maplibre', 'verify', 'truth.py'), join(s.tmp, 'utm.zarr'), ...specs], { maxBuffer: 256 * 2 ** 20 });
    truth = JSON.parse(stdout);
  });

  after(() => s?.close());

  /** @param {import('playwright-core').Page} page */
  function watch(page) {
    page.on('console', (m) => m.type() === 'error' && consoleErrors.push(`${page.url()}: ${m.text()}`));
    page.on('pageerror', (e) => consoleErrors.push(`${page.url()}: ${e.message}`));
  }

  /** A map page with the layer on the store, at `center`/`zoom`, once it is ready. @param {[number, number]} center @param {number} zoom @param {string} product */
  async function openLayer(center, zoom, product) {
    const page = await s.browser.newPage({ viewport: { width: W, height: H } });
    watch(page);
    await page.goto(`${s.base}/e2e/maplibre-host.html`);
    await page.waitForFunction(() => window.hostReady);
    await page.evaluate(({ center, zoom, background }) => window.makeMap({ center, zoom, background }), { center, zoom, background: BG_CSS });
    const options = product === 'band' ? { url, product, band: 'B08', range: /** @type {[number, number]} */ ([0.07, 0.31]), lodBias: LOD_BIAS } : { url, product, lodBias: LOD_BIAS };
    await page.evaluate((o) => window.addLayer(o), options);
    return page;
  }

  /** Every visible cell of `level` drawn, nothing loading, and the map drawn again since. @param {import('playwright-core').Page} page @param {number} level */
  async function drawnAt(page, level) {
    await page.waitForFunction((l) => {
      const st = window.layer.stats;
      const f = window.layer.frames.at(-1);
      return window.layer.lod === l && st?.settled && st.pending === 0 && f?.complete && f.cells.every((c) => c.lod === l);
    }, level, { timeout: 30_000 });
    await page.evaluate(() => window.nextRender().then(() => window.nextRender()));
  }

  /** The zoom at which a texel of `level` is TEXEL_PX CSS px at the store's centre. @param {number} level */
  const zoomFor = (level) => Math.log2(TEXEL_PX / (truth.texel_mercator * 2 ** level * 512));

  test('the outline and the texel boundaries of levels 0 to 3 are within 0.5 px of pyproj, with bearing and pitch', async () => {
    const centre = await lonLats(join(s.tmp, 'utm.zarr'), [centreOf(0)]);
    const page = await openLayer(centre[0], zoomFor(0), 'band');
    const rows = [];
    const { subpixelBits, renderer } = await page.evaluate(() => {
      const gl = /** @type {WebGL2RenderingContext} */ (document.createElement('canvas').getContext('webgl2'));
      const info = gl.getExtension('WEBGL_debug_renderer_info');
      return { subpixelBits: /** @type {number} */ (gl.getParameter(gl.SUBPIXEL_BITS)), renderer: info ? String(gl.getParameter(info.UNMASKED_RENDERER_WEBGL)) : 'an unnamed renderer' };
    });
    for (const view of truth.views) {
      const [center] = await lonLats(join(s.tmp, 'utm.zarr'), [[view.x, view.y]]);
      const zoom = zoomFor(view.level);
      for (const { bearing, pitch } of ORIENTATIONS) {
        await page.evaluate((v) => window.map.jumpTo(v), { center, zoom, bearing, pitch });
        await drawnAt(page, view.level);
        const m = await page.evaluate(async ({ edges, outline, step, box }) => {
          const align = await import('../maplibre/verify/align.js');
          const layer = window.layer;
          const map = window.map;
          const project = (/** @type {[number, number]} */ ll) => map.project(ll);
          const shown = align.grab(map.getCanvas());
          layer.setOpacity(0);
          await window.nextRender();
          const hidden = align.grab(map.getCanvas());
          layer.setOpacity(1);
          await window.nextRender();
          const size = { width: shown.width, height: shown.height };
          return {
            texels: align.measure(edges, project, align.byColour(shown), size),
            outline: align.measure(align.ringEdges(outline, step), project, align.byCoverage(shown, hidden), size),
            holes: align.holes(align.byCoverage(shown, hidden), shown.width, shown.height),
            strays: align.strays(edges, box, project, align.byColour(shown), align.byCoverage(shown, hidden), size),
          };
        }, { edges: view.edges, outline: truth.outline, step: 2 ** view.level, box: view.box });
        rows.push({ zoom: Number(zoom.toFixed(2)), bearing, pitch, level: view.level, boundaries: m.texels.checked, maxErrorPx: m.texels.maxError, meanErrorPx: m.texels.meanError, outline: m.outline.checked, outlineMaxErrorPx: m.outline.maxError, missing: m.texels.missing + m.outline.missing, holes: m.holes.length, holesAt: m.holes, changes: m.strays.changes, strays: m.strays.at.length, straysAt: m.strays.at, worst: m.texels.worst, outlineWorst: m.outline.worst });
      }
    }
    if (process.env.PLACEMENT_RESULTS) writeFileSync(process.env.PLACEMENT_RESULTS, `${JSON.stringify({ store: 'EPSG:32618, 384 x 320 at 10 m, levels 0 to 3', viewport: `${W} x ${H}`, texelPx: TEXEL_PX, renderer: `Chromium ${s.browser.version()}, ${renderer}`, subpixelBits, limitPx: LIMIT, rows }, null, 1)}\n`);
    for (const r of rows) {
      const where = `level ${r.level}, bearing ${r.bearing}, pitch ${r.pitch}`;
      assert.ok(r.boundaries >= 200, `${where}: only ${r.boundaries} texel boundaries on screen`);
      assert.ok(r.outline >= 20, `${where}: only ${r.outline} outline boundaries on screen`);
      assert.equal(r.missing, 0, `${where}: ${r.missing} boundaries not drawn`);
      assert.deepEqual(r.holesAt, [], `${where}: pixels left undrawn inside the footprint`);
      assert.ok(r.changes >= 1000, `${where}: only ${r.changes} colour changes looked at for strays`);
      assert.deepEqual(r.straysAt, [], `${where}: colour changes where no texel boundary is`);
      assert.ok(r.maxErrorPx <= LIMIT, `${where}: a texel boundary ${r.maxErrorPx} px off: ${JSON.stringify(r.worst)}`);
      assert.ok(r.outlineMaxErrorPx <= LIMIT, `${where}: the outline ${r.outlineMaxErrorPx} px off: ${JSON.stringify(r.outlineWorst)}`);
    }
    await page.close();
  });

  test('20 texel/product pairs: the layer draws the viewer\'s colours, equal in 8 bits', async () => {
    const store = join(s.tmp, 'utm.zarr');
    const centre = [192, 160];
    const texels = [[150, 130], [171, 141], [200, 171], [233, 188]];
    const [center, ...where] = await lonLats(store, [centre, ...texels]);
    const products = ['true_color', 'false_color', 'ndvi', 'ndwi', 'water'];
    const facts = JSON.parse(s.made).utm;
    const c = `${facts.x0 + (centre[0] + 0.5) * facts.res},${facts.y0 - (centre[1] + 0.5) * facts.res}`;
    const page = await openLayer(center, zoomFor(0), products[0]);
    let pairs = 0;
    for (const product of products) {
      await page.evaluate((p) => window.layer.setProduct(p), product);
      await drawnAt(page, 0);
      const points = await page.evaluate((lls) => lls.map((ll) => window.map.project(ll)).map((p) => /** @type {[number, number]} */ ([p.x, p.y])), where);
      const drawn = await page.evaluate((pts) => window.pixelsAt(pts), points);
      const viewer = await s.browser.newPage({ viewport: { width: W, height: H } });
      watch(viewer);
      await viewer.goto(`${s.base}/viewer/?store=${url}&t=0&p=${product}&z=4&c=${c}`);
      await viewer.waitForFunction(() => window.__chronozarrViewer?.ready, null, { timeout: 20_000 });
      await settled(viewer);
      for (const [i, [x, y]] of texels.entries()) {
        const expected = await colourAt(viewer, x, y);
        assert.deepEqual(drawn[i].slice(0, 3), expected.slice(0, 3), `${product} at level-0 pixel ${x},${y}`);
        pairs++;
      }
      await viewer.close();
    }
    assert.equal(pairs, 20);
    await page.close();
  });

  test('no console errors', () => {
    assert.deepEqual(consoleErrors, []);
  });
});
