/**
 * Which products a store's bands allow, which bands feed each, and how values become brightness.
 * Bands are found by `common_name`, falling back to `name` (spec 3.6).
 * @module
 */
import { DISPLAY_CODES, PRODUCT_CODES } from './products.glsl.js';
import { TONE_WHITE } from './ramps.js';

/** @typedef {import('./typedefs.js').Band} Band */

/** Products in display order, with the band roles they read (the shader's `v` order). */
export const PRODUCTS = /** @type {const} */ ([
  { id: 'true_color', name: 'True color', roles: ['red', 'green', 'blue'] },
  { id: 'false_color', name: 'False color', roles: ['nir', 'red', 'green'] },
  { id: 'ndvi', name: 'NDVI', roles: ['nir', 'red'] },
  { id: 'ndwi', name: 'NDWI', roles: ['green', 'nir'] },
  { id: 'water', name: 'Water', roles: ['green', 'nir'] },
  { id: 'band', name: 'Single band', roles: [] },
]);

/**
 * Index of the band playing `role`: the first whose common_name is it, else whose name is it.
 * @param {readonly Band[]} bands
 * @param {string} role
 */
export function findBand(bands, role) {
  const lower = role.toLowerCase();
  const byCommon = bands.findIndex((b) => (b.common_name ?? '').toLowerCase() === lower);
  return byCommon >= 0 ? byCommon : bands.findIndex((b) => b.name.toLowerCase() === lower);
}

/**
 * Every product with whether the store can show it.
 * @param {readonly Band[]} bands
 */
export function productList(bands) {
  return PRODUCTS.map((p) => ({
    id: p.id,
    name: p.name,
    available: p.id === 'band' ? bands.length > 0 : p.roles.every((r) => findBand(bands, r) >= 0),
  }));
}

/** The first product the bands allow. @param {readonly Band[]} bands */
export function defaultProduct(bands) {
  return productList(bands).find((p) => p.available)?.id ?? 'band';
}

/**
 * Band indices feeding `product` in shader order (up to three; -1 unused).
 * @param {string} product
 * @param {readonly Band[]} bands
 * @param {number} band index of the single band
 * @returns {[number, number, number]}
 */
export function productBands(product, bands, band) {
  if (product === 'band') return [band, -1, -1];
  const roles = PRODUCTS.find((p) => p.id === product)?.roles ?? [];
  const out = /** @type {[number, number, number]} */ ([-1, -1, -1]);
  roles.forEach((role, i) => (out[i] = findBand(bands, role)));
  return out;
}

/**
 * A reflectance band is tone mapped: units "reflectance", or a 1e-4 scale with no units
 * (the Sentinel-2 L2A convention).
 * @param {Band} band
 */
export function isReflectance(band) {
  const units = (band.units ?? '').toLowerCase();
  if (units) return units === 'reflectance';
  return Math.abs(band.scale - 1e-4) < 1e-12;
}

/**
 * How the product's values become brightness: 'reflectance' (tone map of a colour composite of
 * reflectance bands), 'stored8' (8-bit bands with scale 1 and offset 0: shown as stored) or
 * 'linear' (a 2-98 percentile stretch of what is on screen, or a fixed range; a single band).
 * Index products return 'index': their colours are fixed ramps.
 * @param {string} product
 * @param {readonly Band[]} bands
 * @param {number[]} used band indices (-1 ignored)
 * @param {string} dtype
 */
export function displayMode(product, bands, used, dtype) {
  if (product === 'ndvi' || product === 'ndwi' || product === 'water') return 'index';
  const picked = used.filter((i) => i >= 0).map((i) => bands[i]);
  if (dtype === 'uint8' && picked.every((b) => b.scale === 1 && b.offset === 0)) return 'stored8';
  // One band alone is stretched over what is on screen, reflectance or not: its legend reads in
  // its own units and the stretch can be set; colour composites of reflectance are tone mapped.
  if (product !== 'band' && picked.every(isReflectance)) return 'reflectance';
  return 'linear';
}

/**
 * NDVI or NDWI of two physical values as the shader computes them (czIndex): (a - b) / (a + b),
 * 0 when the sum is 0, clamped to -1..1.
 * @param {number} a
 * @param {number} b
 */
export function normalizedDifference(a, b) {
  const s = a + b;
  return s === 0 ? 0 : Math.max(-1, Math.min(1, (a - b) / s));
}

/**
 * What the fragment shader needs to colour a product: band layers, scale and offset, the display
 * mode (reflectance tone map, linear stretch, 8-bit as stored) and the stretch range.
 * @param {{ attrs: { bands: readonly Band[] }, dtype: string, nodata: number | null, hasMask: boolean }} store
 * @param {object} o
 * @param {string} o.product
 * @param {number} o.band index of the band the `band` product shows
 * @param {[number, number] | null} o.range fixed stretch in physical units; it wins over tone mapping
 * @param {[number, number] | null} o.auto the percentile stretch of what is on screen
 * @param {number} [o.stretchLo] the reflectance that shows black when tone mapped (0)
 */
export function lookFor(store, { product, band, range, auto, stretchLo = 0 }) {
  const used = productBands(product, store.attrs.bands, band);
  const natural = displayMode(product, store.attrs.bands, used, store.dtype);
  const mode = range && natural !== 'index' ? 'linear' : natural;
  return {
    product: PRODUCT_CODES[/** @type {keyof PRODUCT_CODES} */ (product)],
    display: mode === 'index' ? 0 : DISPLAY_CODES[/** @type {keyof DISPLAY_CODES} */ (mode)],
    mode,
    bands: used,
    scale: used.map((i) => (i >= 0 ? store.attrs.bands[i].scale : 1)),
    offset: used.map((i) => (i >= 0 ? store.attrs.bands[i].offset : 0)),
    // A tone-mapped look reads its black and white points here.
    range: mode === 'reflectance' ? [stretchLo, TONE_WHITE] : range ?? auto ?? [0, 1],
    nodata: store.nodata,
    hasMask: store.hasMask,
  };
}
