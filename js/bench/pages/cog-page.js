// @ts-check
// A COG-per-date page as a web developer builds it on geotiff.js: one Cloud Optimized GeoTIFF per
// date (the store's `chronozarr export-cog`), the visible window of the current date read with
// readRasters (decoding on a pool of workers) and painted to a canvas. A read the user has moved
// past is dropped when it lands rather than aborted: geotiff.js 3.0.5 answers later reads of a
// block whose read was aborted with "buffer error". Query: ?base=URL of the COG directory&files=a.tif,b.tif,...
// &times=ISO,...&x=&y=&w=&h= (the level-0 window on screen) &lo=&hi= (the stretch).
import { Pool, fromUrl } from 'geotiff';
import { createHook } from './page-hook.js';

const q = new URLSearchParams(location.search);
const files = (q.get('files') ?? '').split(',');
const times = (q.get('times') ?? '').split(',');
const [x, y, w, h] = ['x', 'y', 'w', 'h'].map((k) => Number(q.get(k)));
const lo = Number(q.get('lo') ?? 0);
const hi = Number(q.get('hi') ?? 3000);
const RGB = [2, 1, 0]; // B04, B03, B02
// geotiff.js 3.0.5's default 64 kB blocks give "buffer error" (a tile assembled from the wrong
// bytes) when reads of several dates overlap, as a scrub makes them; 256 kB blocks do not.
// fromUrl's declared options leave out the blocked-source ones its implementation takes.
/** @type {import('geotiff').RemoteSourceOptions & import('geotiff').BlockedSourceOptions} */
const SOURCE = { blockSize: 256 * 1024 };
const hook = createHook({ times });
const pool = new Pool(navigator.hardwareConcurrency, () => new Worker(new URL('./geotiff-decoder.js', import.meta.url), { type: 'module' }));
const canvas = /** @type {HTMLCanvasElement} */ (document.getElementById('map'));
canvas.width = innerWidth;
canvas.height = innerHeight;
const ctx = /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d'));
/** @type {Map<number, Promise<any>>} */
const images = new Map();

/** The first image (full resolution) of date t's file, opened once. @param {number} t */
function image(t) {
  if (!images.has(t)) images.set(t, fromUrl(`${q.get('base')}/${files[t]}`, SOURCE).then((tiff) => tiff.getImage(0)));
  return /** @type {Promise<any>} */ (images.get(t));
}

/** Read and paint date t's window, unless another date was asked meanwhile. @param {number} t */
async function show(t) {
  hook.wanted = t;
  hook.settled = false;
  try {
    const img = await image(t);
    const bands = await img.readRasters({ window: [x, y, x + w, y + h], samples: RGB, interleave: false, pool });
    if (hook.wanted !== t) return;
    paint(bands);
    hook.shown(t);
  } catch (err) {
    hook.error = String(err);
  }
}

/** The three bands, stretched, in the middle of the canvas. @param {ArrayLike<number>[]} bands */
function paint(bands) {
  const out = ctx.createImageData(w, h);
  const scale = 255 / (hi - lo);
  for (let i = 0; i < w * h; i++) {
    for (let c = 0; c < 3; c++) out.data[i * 4 + c] = (bands[c][i] - lo) * scale;
    out.data[i * 4 + 3] = 255;
  }
  ctx.putImageData(out, Math.round((canvas.width - w) / 2), Math.round((canvas.height - h) / 2));
}

/** Band B04 of pixel (px, py) at every date, charted. @param {number} px @param {number} py */
async function history(px, py) {
  const values = await Promise.all(
    times.map((_, t) => image(t).then((img) => img.readRasters({ window: [px, py, px + 1, py + 1], samples: [RGB[0]], pool })).then((r) => r[0][0])),
  );
  return hook.chart(values, 'B04');
}

Object.assign(hook, { setT: (/** @type {number} */ t) => show(t), history });
show(0);
