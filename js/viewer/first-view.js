/**
 * The viewer's first view: its state from the URL parameters (what the store does not have falls
 * back to the defaults), its camera, and the first chunks put on the wire before anything else.
 * @module
 */
import { clampCamera, fitCamera, levelFor, pictureLevel, storeToPixel, visibleCells, zoomLimits } from '../lib/camera.js';
import { loadPlan } from '../lib/load-plan.js';
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
  const bands = store.attrs.bands;
  const level0 = store.levels[0];
  let cam = fitCamera(level0, size.w, size.h);
  if (params.z) cam.zoom = params.z;
  if (params.c) {
    const p = storeToPixel(store.crs != null ? level0.transform : null, params.c[0], params.c[1]);
    cam = { ...cam, cx: p.x, cy: p.y };
  }
  return {
    t: params.t != null && params.t < n ? params.t : 0,
    product: initialProduct(store, params, products),
    band: Math.max(0, params.b ? bands.findIndex((b) => b.name === params.b) : 0),
    cam: clampCamera(cam, zoomLimits(level0, size.w, size.h, size.dpr), level0),
    range: /** @type {[number, number] | null} */ (params.range),
    auto: null,
    extent: null,
  };
}

/**
 * The product the address asks for when the store has it, else the store's default.
 * @param {import('../lib/typedefs.js').Store} store
 * @param {import('./params.js').ViewerParams} params
 * @param {{ id: string, available: boolean }[]} products
 */
export function initialProduct(store, params, products) {
  return params.p && products.find((p) => p.id === params.p && p.available) ? params.p : defaultProduct(store.attrs.bands);
}

/**
 * Read the first view's chunks now, before the shaders compile and the scene is built, in the
 * scene's plan (load-plan.js): the coarse picture, then the frame. The scene's own reads of the
 * same cells join these in the reader (one request per chunk).
 * @param {import('../lib/typedefs.js').Store} store @param {ViewState} state @param {{ w: number, h: number, dpr: number }} size @param {AbortSignal} signal
 */
export function warmFirstView(store, state, size, signal) {
  const level0 = store.levels[0];
  const lod = levelFor(state.cam.zoom, store.levels.length);
  const stored = shaderDeltaFor(store.dtype) && store.encoding === 'star-delta';
  const needs = loadPlan({
    lod,
    picture: pictureLevel(state.cam.zoom, size.dpr, lod, store.levels.length - 1),
    t: state.t,
    direction: 1,
    nTime: store.times.length,
    visibleAt: (k) => visibleCells(state.cam, size.w, size.h, store.levels[k], k, level0),
    has: () => false,
    showing: false,
  });
  for (const { priority, lod: k, cell, t } of needs) store.getCell(k, cell.row, cell.col, t, { signal, stored, priority }).catch(() => {});
}
