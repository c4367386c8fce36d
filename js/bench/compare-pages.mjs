// @ts-check
// The three pages the browser comparison drives, behind one interface: the URL of a 3 x 3-cell
// view of the same level-0 window, when the first complete frame was shown, a step to another
// date, the frames shown, and the time to a whole pixel-history chart.
//   viewer      the chronozarr viewer (js/viewer) on the store
//   zarr-layer  @carbonplan/zarr-layer on MapLibre on the same store (bench/pages/zarr-layer-page.js)
//   cog         geotiff.js on the store's COG export, one file per date (bench/pages/cog-page.js)
//   maplibre    chronozarr's MapLibre layer on the same map and view as zarr-layer's
//               (bench/pages/chronozarr-layer-page.js)
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import proj4 from 'proj4';
import { VIEWPORT, firstViewUrl } from './viewer-harness.mjs';

const UTM = (/** @type {number} */ zone) => `+proj=utm +zone=${zone} +datum=WGS84 +units=m +no_defs`;
const CENTRE = 384; // level-0 pixel at the centre of the view (viewer-harness.mjs's first view)
const STRETCH = { lo: 0, hi: 3000 };

/**
 * Everything the pages need to know of the store, from its root zarr.json.
 * @param {string} storeDir
 * @param {string} cogDir
 */
export function describe(storeDir, cogDir) {
  const root = JSON.parse(readFileSync(join(storeDir, 'zarr.json'), 'utf8'));
  const block = root.attributes.chronozarr;
  const [a, , c, , e, f] = block.levels[0].transform;
  const level0 = JSON.parse(readFileSync(join(storeDir, '0', 'data', 'zarr.json'), 'utf8'));
  const [nTime, , height, width] = level0.shape;
  const zone = Number(/326(\d\d)/.exec(JSON.stringify(root.attributes))?.[1] ?? 31);
  return { storeDir, cogDir, a, c, e, f, nTime, height, width, zone, times: Array.from({ length: nTime }, (_, t) => new Date(Date.UTC(2024, 0, 3 + 5 * t)).toISOString()) };
}

/** @typedef {ReturnType<typeof describe>} Described */
/** @typedef {'viewer' | 'viewer-history' | 'zarr-layer' | 'cog' | 'maplibre'} Kind */
/** @typedef {import('playwright-core').Page} Page */

/** Lon/lat of a level-0 pixel centre. @param {Described} d @param {number} x @param {number} y @returns {[number, number]} */
function lonLat(d, x, y) {
  return proj4(UTM(d.zone), 'WGS84', [d.c + d.a * (x + 0.5), d.f + d.e * (y + 0.5)]);
}

/**
 * The page URL of each tool, showing the same level-0 window at 1 CSS px per pixel.
 * @param {Described} d @param {string} base @param {string} storeUrl @param {string} cogUrl
 * @param {string} historyUrl the same store written with the history array
 * @returns {Record<Kind, string>}
 */
export function urls(d, base, storeUrl, cogUrl, historyUrl) {
  const x = CENTRE - VIEWPORT.width / 2;
  const y = Math.max(0, CENTRE - VIEWPORT.height / 2);
  const h = Math.min(VIEWPORT.height, d.height - y);
  const [lon, lat] = lonLat(d, CENTRE, CENTRE);
  // MapLibre's zoom is in 512 px tiles of the Web Mercator world; 1 CSS px = a metres at lat.
  const zoom = Math.log2((40075016.686 * Math.cos((lat * Math.PI) / 180)) / (512 * d.a));
  const bounds = [d.c, d.f + d.e * d.height, d.c + d.a * d.width, d.f].join(',');
  const files = readdirSync(d.cogDir).filter((n) => n.endsWith('.tif')).sort();
  const common = `times=${d.times.join(',')}&lo=${STRETCH.lo}&hi=${STRETCH.hi}`;
  return {
    viewer: firstViewUrl(`${base}/viewer/index.html?store=${storeUrl}`, d.storeDir),
    'viewer-history': firstViewUrl(`${base}/viewer/index.html?store=${historyUrl}`, d.storeDir),
    'zarr-layer': `${base}/bench/pages/zarr-layer.html?store=${storeUrl}&lon=${lon}&lat=${lat}&zoom=${zoom}&proj4=${encodeURIComponent(UTM(d.zone))}&bounds=${bounds}&${common}`,
    maplibre: `${base}/bench/pages/chronozarr-layer.html?store=${storeUrl}&lon=${lon}&lat=${lat}&zoom=${zoom}&${common}`,
    cog: `${base}/bench/pages/cog.html?base=${cogUrl}&files=${files.join(',')}&x=${x}&y=${y}&w=${VIEWPORT.width}&h=${h}&${common}`,
  };
}

/** The chronozarr viewer, on the store without or with the history array. @param {Kind} kind */
export const isViewer = (kind) => kind === 'viewer' || kind === 'viewer-history';

/** The pixel whose history is charted (inside the view, away from the centre cell). */
export function historyPixel() {
  return { x: CENTRE + 200, y: CENTRE - 150 };
}

/**
 * In the page: the hook of either kind of page, read the same way.
 * @param {Kind} kind
 * @returns {{ firstCompleteAt?: number | null, firstPictureAt?: number | null, error: string | null, frames: { t: number | null, at: number, complete: boolean }[], setT(t: number): unknown, settled?: boolean } | undefined}
 */
function hookOf(kind) {
  if (kind !== 'viewer' && kind !== 'viewer-history') return window.__bench;
  const h = window.__chronozarrViewer;
  // The viewer paints nothing until a chunk is on the GPU: its first frame is its first picture.
  return h && { firstCompleteAt: h.firstCompleteAt, firstPictureAt: h.firstFrameAt, error: h.error, frames: h.frames, setT: (t) => h.api.setT(t), settled: h.api.state?.().settled };
}

/** Wait for the first complete frame; its time and the first picture's since navigation start (ms). @param {Page} page @param {Kind} kind */
export async function firstComplete(page, kind, timeout = 180_000) {
  await page.waitForFunction(
    ([k, src]) => {
      const h = new Function(`return (${src})`)()(k);
      if (h?.error) throw new Error(h.error);
      return h?.firstCompleteAt != null;
    },
    /** @type {[Kind, string]} */ ([kind, hookOf.toString()]),
    { timeout, polling: 10 },
  );
  return page.evaluate(([k, src]) => {
    const h = new Function(`return (${src})`)()(k);
    return { complete: /** @type {number} */ (h.firstCompleteAt), picture: /** @type {number} */ (h.firstPictureAt ?? h.firstCompleteAt) };
  }, /** @type {[Kind, string]} */ ([kind, hookOf.toString()]));
}

/** Ask for date t; the page's performance.now() when it was asked. @param {Page} page @param {Kind} kind @param {number} t */
export function step(page, kind, t) {
  return page.evaluate(([k, src, tt]) => {
    const at = performance.now();
    new Function(`return (${src})`)()(k).setT(tt);
    return at;
  }, /** @type {[Kind, string, number]} */ ([kind, hookOf.toString(), t]));
}

/** The complete frames shown so far: { t, at }; throws the page's error when it has one. @param {Page} page @param {Kind} kind */
export async function frames(page, kind) {
  const { error, shown } = await page.evaluate(([k, src]) => {
    const h = /** @type {NonNullable<ReturnType<typeof hookOf>>} */ (new Function(`return (${src})`)()(k));
    return { error: h.error, shown: h.frames.filter((f) => f.complete).map((f) => ({ t: f.t, at: f.at })) };
  }, /** @type {[Kind, string]} */ ([kind, hookOf.toString()]));
  if (error) throw new Error(`${kind}: ${error}`);
  return shown;
}

/**
 * Ask for a pixel's history and wait for the whole chart: ms from the ask to the chart drawn.
 * The viewer's inspector charts as values arrive; it is whole when its caption counts 0 gaps
 * (the benchmark series has no invalid pixel; dates still being read are counted as such).
 * @param {Page} page @param {Kind} kind @param {Described} d
 * @returns {Promise<number>}
 */
export async function history(page, kind, d) {
  const { x, y } = historyPixel();
  if (isViewer(kind)) {
    return page.evaluate(([px, py]) => new Promise((resolve, reject) => {
      const api = window.__chronozarrViewer.api;
      const host = /** @type {HTMLElement} */ (document.getElementById('chart-host'));
      const start = performance.now();
      const done = () => /· 0 gaps/.test(host.querySelector('.chart-caption')?.textContent ?? '');
      const observer = new MutationObserver(() => {
        if (!done()) return;
        observer.disconnect();
        resolve(performance.now() - start);
      });
      observer.observe(host, { subtree: true, childList: true, characterData: true });
      const s = api.screenOf(px + 0.5, py + 0.5);
      if (!api.click(s.px, s.py)) reject(new Error(`no pixel under ${s.px}, ${s.py}`));
    }), /** @type {[number, number]} */ ([x, y]));
  }
  /** @type {[number, number]} */
  const args = kind === 'zarr-layer' ? lonLat(d, x, y) : [x, y];
  return page.evaluate(async (a) => {
    const start = performance.now();
    const end = await window.__bench.history(a[0], a[1]);
    return end - start;
  }, args);
}
