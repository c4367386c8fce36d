/**
 * The layer's options, and its settings checked against its store: a timestep, a product, a band,
 * a stretch range and an opacity, each refused with a message naming what the store allows.
 * @module
 */
import { productList } from '../lib/products.js';
import { TONE_WHITE } from '../lib/ramps.js';

/**
 * @typedef {object} LayerOptions
 * @property {string} url store root (the directory holding zarr.json), absolute or relative to the page
 * @property {string} [id] layer id ('chronozarr')
 * @property {string} [product] 'true_color', 'false_color', 'ndvi', 'ndwi', 'water' or 'band' (the first the store allows)
 * @property {number | string} [band] index or name of the band the 'band' product shows (0)
 * @property {number} [t] timestep index (0)
 * @property {number} [opacity] 0 to 1 (1)
 * @property {boolean} [prefetch] fill the reader's caches around t in the background (false)
 * @property {[number, number]} [range] fixed linear stretch in physical units (default: tone map
 *   reflectance, 8-bit as stored, else the 2nd to 98th percentile of the values on screen)
 * @property {number} [lodBias] added to log2(1 / p) before it is floored to a level (0.5; see view.js levelForTexel)
 * @property {number} [stretchLo] reflectance shown black by the tone-mapped looks (0; white is TONE_WHITE)
 * @property {number} [meshDivisions] quads per cell side (8)
 * @property {number} [gpuBudgetBytes] texture budget (256 MiB)
 * @property {import('../src/reader/dataset.js').StoreOptions} [storeOptions] passed to openStore
 */

/** @typedef {Pick<import('../lib/typedefs.js').Store, 'times' | 'attrs' | 'bandNames'>} StoreFacts */

/** @param {StoreFacts} store @param {number} t */
export function checkTime(store, t) {
  const n = store.times.length;
  if (!Number.isInteger(t) || t < 0 || t >= n) throw new RangeError(`t must be an integer timestep from 0 to ${n - 1}, got ${t}`);
  return t;
}

/** @param {StoreFacts} store @param {string | null} id */
export function checkProduct(store, id) {
  const p = productList(store.attrs.bands).find((q) => q.id === id);
  if (!p) throw new Error(`unknown product ${JSON.stringify(id)}: one of ${productList(store.attrs.bands).map((q) => q.id).join(', ')}`);
  if (!p.available) throw new Error(`product ${id} needs bands this store does not have (${store.bandNames.join(', ')})`);
  return p.id;
}

/** @param {StoreFacts} store @param {number | string} band index or name */
export function bandIndex(store, band) {
  const names = store.bandNames;
  const i = typeof band === 'number' ? band : names.indexOf(band);
  if (!Number.isInteger(i) || i < 0 || i >= names.length) throw new RangeError(`no band ${JSON.stringify(band)} in this store (${names.join(', ')})`);
  return i;
}

/**
 * A fixed linear stretch: [min, max] with min < max, or null.
 * @param {[number, number] | null} range
 * @returns {[number, number] | null}
 */
export function checkRange(range) {
  if (range != null && !(Array.isArray(range) && range.length === 2 && range.every(Number.isFinite) && range[1] > range[0])) {
    throw new RangeError(`range must be [min, max] with min < max, got ${JSON.stringify(range)}`);
  }
  return range ? [range[0], range[1]] : null;
}

/**
 * lodBias and stretchLo as given, refused when they are not numbers the rules can use.
 * @param {{ lodBias?: number, stretchLo?: number }} options
 */
export function checkLevelAndTone({ lodBias = 0.5, stretchLo = 0 }) {
  if (!Number.isFinite(lodBias)) throw new RangeError(`lodBias must be a finite number, got ${lodBias}`);
  if (!(Number.isFinite(stretchLo) && stretchLo < TONE_WHITE)) throw new RangeError(`stretchLo must be a reflectance below the white point ${TONE_WHITE}, got ${stretchLo}`);
  return { lodBias, stretchLo };
}

/** @param {unknown} v */
export const clamp01 = (v) => Math.max(0, Math.min(1, Number(v)));
