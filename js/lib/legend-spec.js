/**
 * What the legend of a look shows, as data: a colour ramp over a value domain with ticks in
 * physical units (and the stretch handles of a linear look), or the two classes of the water
 * product. Pure, so the legend on screen and the legend burned into exports are the same.
 * @module
 */
import { RAMPS, TONE_WHITE, WATER, rampColor, toneValue } from './ramps.js';
import { isReflectance, productBands } from './products.js';
import { ticks } from './ticks.js';

/** @typedef {import('./ramps.js').Rgb} Rgb */

/**
 * @typedef {object} RampLegend
 * @property {'ramp'} kind
 * @property {string} title
 * @property {string} units
 * @property {[number, number]} domain values at the left and right ends of the bar
 * @property {number[]} ticks values with a labelled tick
 * @property {(v: number) => Rgb} color the colour the map draws for value v
 * @property {[number, number] | null} stretch the linear stretch (handles), null when fixed
 */

/**
 * @typedef {object} ClassLegend
 * @property {'classes'} kind
 * @property {string} title
 * @property {string} units
 * @property {{ label: string, color: Rgb | null, ramp?: (f: number) => Rgb }[]} items
 */

/** @typedef {RampLegend | ClassLegend} LegendSpec */

const grey = (/** @type {number} */ g) => /** @type {Rgb} */ ([g, g, g]);

/** The band's units for a label: its own, "reflectance" by convention, else none. @param {import('./typedefs.js').Band} band */
export function bandUnits(band) {
  return band.units ?? (isReflectance(band) ? 'reflectance' : '');
}

/**
 * The bar's value domain for a linear stretch: the stretch and the extent of the values on screen,
 * so the handles sit inside the data they clip.
 * @param {[number, number]} range
 * @param {[number, number] | null} extent
 * @returns {[number, number]}
 */
export function stretchDomain(range, extent) {
  const [lo, hi] = range;
  if (extent && extent[1] > extent[0]) return [Math.min(lo, extent[0]), Math.max(hi, extent[1])];
  const pad = (hi - lo) * 0.1;
  return [lo - pad, hi + pad];
}

/**
 * @param {{ attrs: { bands: readonly import('./typedefs.js').Band[] } }} store
 * @param {{ mode: string, range: number[] }} look lookFor's result
 * @param {{ product: string, band: number, extent?: [number, number] | null }} state
 * @returns {LegendSpec}
 */
export function legendFor(store, look, { product, band, extent = null }) {
  const used = productBands(product, store.attrs.bands, band).filter((i) => i >= 0).map((i) => store.attrs.bands[i]);
  if (product === 'ndvi' || product === 'ndwi') {
    const ramp = RAMPS[product];
    return { kind: 'ramp', title: product.toUpperCase(), units: 'index', domain: [-1, 1], ticks: [-1, -0.5, 0, 0.5, 1], color: (v) => rampColor(ramp, v), stretch: null };
  }
  if (product === 'water') {
    const nir = used[1];
    return {
      kind: 'classes',
      title: 'Water',
      units: '',
      items: [
        { label: `Water: NDWI above ${WATER.threshold}`, color: [...WATER.color] },
        { label: `Land: ${nir?.name ?? 'NIR'} reflectance 0 to ${TONE_WHITE}`, color: null, ramp: (f) => grey(WATER.landGrey * toneValue(f * TONE_WHITE)) },
      ],
    };
  }
  const names = used.map((b) => b.name).join(' / ');
  const units = used.length ? bandUnits(used[0]) : '';
  if (look.mode === 'reflectance') {
    const black = look.range[0];
    return { kind: 'ramp', title: names, units: 'reflectance', domain: [black, TONE_WHITE], ticks: ticks(black, TONE_WHITE, 4), color: (v) => grey(toneValue(v, black)), stretch: null };
  }
  if (look.mode === 'stored8') {
    return { kind: 'ramp', title: names, units: 'as stored', domain: [0, 255], ticks: [0, 64, 128, 192, 255], color: (v) => grey(Math.min(1, Math.max(0, v / 255))), stretch: null };
  }
  const lo = look.range[0];
  const hi = look.range[1];
  const domain = stretchDomain([lo, hi], extent);
  const color = (/** @type {number} */ v) => grey(hi > lo ? Math.min(1, Math.max(0, (v - lo) / (hi - lo))) : v >= lo ? 1 : 0);
  return { kind: 'ramp', title: names, units, domain, ticks: ticks(domain[0], domain[1], 5), color, stretch: [lo, hi] };
}

/** Where value v sits along a ramp legend's bar, 0 (left) to 1 (right). @param {RampLegend} spec @param {number} v */
export function positionOf(spec, v) {
  const [a, b] = spec.domain;
  return (v - a) / (b - a);
}

/** The value at a position of the bar. @param {RampLegend} spec @param {number} f */
export function valueAt(spec, f) {
  const [a, b] = spec.domain;
  return a + f * (b - a);
}

/** 8-bit sRGB of a shader colour, as the canvas stores it. @param {Rgb} c */
export const toBytes = (c) => c.map((v) => Math.round(Math.min(1, Math.max(0, v)) * 255));
