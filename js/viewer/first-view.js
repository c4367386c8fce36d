/**
 * The viewer's first view: its state from the URL parameters (what the store does not have falls
 * back to the defaults), its camera, and the first chunks put on the wire before anything else.
 * @module
 */
import { clampCamera, fitCamera, levelFor, storeToPixel, visibleCells, zoomLimits } from '../lib/camera.js';
import { defaultProduct } from '../lib/products.js';
import { shaderDeltaFor } from './renderer.js';

/**
 * @typedef {object} ViewState
 * @property {number} t
 * @property {string} product
 * @property {number} band
 * @property {import('../lib/typedefs.js').Camera} cam
 * @property {[number, number] | null} range fixed stretch
 * @property {[number, number] | null} auto the percentile stretch of what is on screen
 * @property {[number, number] | null} extent of the values on screen
 */

/**
 * @param {import('../lib/typedefs.js').Store} store
 * @param {import('./params.js').ViewerParams} params
 * @param {{ id: string, available: boolean }[]} products
 * @param {{ w: number, h: number, dpr: number }} size the canvas
 * @returns {ViewState}
 */
export function initialState(store, params, products, size) {
  const n = store.times.length;
  const bands = store.bands;
  const level0 = store.levels[0];
  let cam = fitCamera(level0, size.w, size.h);
  if (params.z) cam.zoom = params.z;
  if (params.c) {
    const p = storeToPixel(store.crs != null ? level0.transform : null, params.c[0], params.c[1]);
    cam = { ...cam, cx: p.x, cy: p.y };
  }
  return {
    t: params.t != null && params.t < n ? params.t : 0,
    product: params.p && products.find((p) => p.id === params.p && p.available) ? params.p : defaultProduct(bands),
    band: Math.max(0, params.b ? bands.findIndex((b) => b.name === params.b) : 0),
    cam: clampCamera(cam, zoomLimits(level0, size.w, size.h, size.dpr), level0),
    range: /** @type {[number, number] | null} */ (params.range),
    auto: null,
    extent: null,
  };
}

/**
 * Read the first view's chunks now, before the shaders compile and the scene is built: the
 * scene's own reads of the same cells join these in the reader (one request per chunk). The asked
 * level's cells, and the coarsest level's that stand in for them.
 * @param {import('../lib/typedefs.js').Store} store @param {ViewState} state @param {{ w: number, h: number }} size @param {AbortSignal} signal
 */
export function warmFirstView(store, state, size, signal) {
  const level0 = store.levels[0];
  const lod = levelFor(state.cam.zoom, store.levels.length);
  const coarsest = store.levels.length - 1;
  const stored = shaderDeltaFor(store.dtype) && store.encoding === 'star-delta';
  /** @param {number} k */
  const at = (k) => visibleCells(state.cam, size.w, size.h, store.levels[k], k, level0);
  /** @type {[number, { row: number, col: number }][]} */
  const early = at(lod).map((c) => [lod, c]);
  if (coarsest !== lod) for (const c of at(coarsest)) early.push([coarsest, c]);
  for (const [k, c] of early) store.getCell(k, c.row, c.col, state.t, { signal, stored }).catch(() => {});
}
